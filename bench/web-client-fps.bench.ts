// Frame rate of the web client in headless Debian chromium (software GL, so figures compare runs on
// one machine, not devices): the bundled lobby ticking in process, the built client (web/dist, run
// `npm run build:web` first) served by the real web surface, one viewer page at 1280x800 and WALKERS
// socket clients walking a fixed plaza loop and chatting room-wide. Counts requestAnimationFrame
// callbacks in the page over SECONDS. Run: npx node bench/web-client-fps.bench.ts [walkers] [seconds]
// The last output line is one JSON object with the figures.
import { launchBrowser } from "../test/support/browser.ts";
import { plazaWalkers, startLobbyWeb } from "./lib/lobby-web.ts";

const WALKERS = Number(process.argv[2] ?? 6);
const SECONDS = Number(process.argv[3] ?? 10);

const lobby = await startLobbyWeb();
const base = lobby.server.httpBase;

const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await page.goto(`${base}/world/?name=Viewer`);
await page.waitForFunction(
  () => (window as unknown as { __ocw?: { me(): unknown } }).__ocw?.me(),
  undefined,
  {
    timeout: 30_000,
  },
);

const walkers = await plazaWalkers(base, WALKERS);
await page.waitForTimeout(1500);
const frames = await page.evaluate(
  (ms) =>
    new Promise<number[]>((resolve) => {
      const times: number[] = [];
      const started = performance.now();
      const tick = (t: number) => {
        times.push(t);
        if (t - started < ms) requestAnimationFrame(tick);
        else resolve(times);
      };
      requestAnimationFrame(tick);
    }),
  SECONDS * 1000,
);
walkers.stop();
await browser.close();
await lobby.stop();
const gaps = frames.slice(1).map((t, i) => t - frames[i]!);
gaps.sort((a, b) => a - b);
const spanSec = (frames.at(-1)! - frames[0]!) / 1000;
console.log(
  JSON.stringify({
    bench: "web-client-fps",
    walkers: WALKERS,
    seconds: Math.round(spanSec * 10) / 10,
    meanFps: Math.round(((frames.length - 1) / spanSec) * 10) / 10,
    p95FrameMs: Math.round(gaps[Math.floor(gaps.length * 0.95)]! * 10) / 10,
  }),
);
