// What a browser test's page costs the machine: one page of the world as the browser tests open it
// (test/support/browser.ts: headless Debian chromium without a GPU, the frame rate capped), the
// bundled lobby ticking in process behind the real web surface, TEST_PAGE_WALKERS socket clients
// (default 4) walking a plaza loop and chatting so the page has figures to draw. For each frame rate in
// TEST_PAGE_FPS_LIST (default "15,5": the cap before and after it was lowered), a fresh browser and
// page, then the CPU of the browser's processes over TEST_PAGE_SECONDS (default 20), in cores.
// Reported: coresAt<fps> for each, msPerFrame (the CPU of one drawn frame, from the two extremes)
// and the ratio of the last to the first, from the same run on the same machine.
// Run: npm run bench:test-page. The last output line is one JSON object with the figures.
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { launchBrowser, openPlayer } from "../test/support/browser.ts";
import { until } from "../test/support/wait.ts";
import { plazaWalkers, startLobbyWeb } from "./lib/lobby-web.ts";
import { processTreeCpuMs } from "./lib/process-cpu.ts";

const FPS_LIST = (process.env.TEST_PAGE_FPS_LIST ?? "15,5").split(",").map(Number);
const SECONDS = Number(process.env.TEST_PAGE_SECONDS ?? 20);
const WALKERS = Number(process.env.TEST_PAGE_WALKERS ?? 4);
const round = (n: number, places = 3) => Math.round(n * 10 ** places) / 10 ** places;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** This process's children that are the browser (playwright starts chromium as our child). */
function browserCpuMs(): number {
  let ms = 0;
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const listed = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").trim();
    for (const pid of listed ? listed.split(" ").map(Number) : []) {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes("chrom")) ms += processTreeCpuMs(pid);
    }
  }
  return ms;
}

const lobby = await startLobbyWeb();
const base = lobby.server.httpBase;
const walkers = await plazaWalkers(base, WALKERS);

const cores: Record<string, number> = {};
try {
  for (const fps of FPS_LIST) {
    const browser = await launchBrowser();
    try {
      await openPlayer(browser, base, `Viewer ${fps}`, {
        viewport: { width: 1280, height: 800 },
        fps,
      });
      await until(
        "the page to settle after its start",
        async () => {
          const before = browserCpuMs();
          await pause(1000);
          return browserCpuMs() - before < 1000; // under one core: past the start's compile and load
        },
        60_000,
      );
      const cpu0 = browserCpuMs();
      const t0 = performance.now();
      await pause(SECONDS * 1000);
      cores[`coresAt${fps}`] = round((browserCpuMs() - cpu0) / (performance.now() - t0));
      console.log(`${fps} fps: ${cores[`coresAt${fps}`]} cores`);
    } finally {
      await browser.close();
    }
  }
} finally {
  walkers.stop();
  await lobby.stop();
}
const first = FPS_LIST[0]!;
const last = FPS_LIST.at(-1)!;
const a = cores[`coresAt${first}`]!;
const b = cores[`coresAt${last}`]!;
console.log(
  JSON.stringify({
    ...cores,
    msPerFrame: first === last ? null : round(((a - b) / (first - last)) * 1000, 1),
    ratio: round(b / a),
    seconds: SECONDS,
    walkers: WALKERS,
    loadAverage: round(os.loadavg()[0] ?? 0, 1),
  }),
);
process.exit(0);
