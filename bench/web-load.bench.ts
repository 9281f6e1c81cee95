// Open-to-join-form: how long a person waits from opening /world/ until the join form is on screen,
// in real Debian Chromium (playwright-core) against a real gateway started by the project's own
// launcher. Each run opens the page in a fresh browser context (an empty cache: a first visit), then
// opens it again in the same context (a repeat visit, whatever the cache kept). Two links:
//   loopback   the page straight from 127.0.0.1 (what this machine's own browser sees);
//   broadband  Chromium's network emulation at 20 Mbit/s down, 5 Mbit/s up, 40 ms latency (a home
//              connection to a gateway elsewhere), where the bytes on the wire dominate.
// Time is the page's own clock: performance.now() (ms since navigation start) when #join is shown,
// and when the script had arrived (its responseEnd; what follows is the script's own work). Bytes
// are what crossed the wire (transferSize of the document and every resource).
// Run: npm run bench:web-load [-- --runs 7]. The last output line is one JSON object.
import { parseArgs } from "node:util";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../test/support/browser.ts";
import { startGateway } from "../test/support/gateway.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`--runs must be a positive integer, got ${values.runs}`);

const LINKS = {
  loopback: undefined,
  broadband: { latency: 40, downloadThroughput: (20e6 / 8) | 0, uploadThroughput: (5e6 / 8) | 0 },
} as const;
type Link = keyof typeof LINKS;

interface Visit {
  ms: number;
  bytes: number;
  /** When the script had arrived (responseEnd): the rest until the form is the script's own work. */
  scriptMs: number;
}

async function openJoinForm(context: BrowserContext, url: string, link: Link): Promise<Visit> {
  const page = await context.newPage();
  try {
    const conditions = LINKS[link];
    if (conditions) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, ...conditions });
    }
    await page.goto(url, { waitUntil: "commit", timeout: 120_000 });
    const handle = await page.waitForFunction(
      () => {
        const form = document.getElementById("join");
        return form && !form.hidden && form.getClientRects().length > 0 ? performance.now() : false;
      },
      undefined,
      { polling: 10, timeout: 120_000 },
    );
    const ms = (await handle.jsonValue()) as number;
    const { bytes, scriptMs } = await page.evaluate(() => {
      const entries = [
        ...performance.getEntriesByType("navigation"),
        ...performance.getEntriesByType("resource"),
      ] as PerformanceResourceTiming[];
      const script = entries.find((e) => /\/world\/assets\/app[^/]*\.js/.test(e.name));
      return {
        bytes: entries.map((e) => e.transferSize).reduce((a, b) => a + b, 0),
        scriptMs: script?.responseEnd ?? Number.NaN,
      };
    });
    return { ms, bytes, scriptMs };
  } finally {
    await page.close();
  }
}

const quantile = (xs: number[], q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};
const round = (x: number) => Math.round(x);

const gateway = await startGateway();
const browser = await launchBrowser();
const figures: Record<string, number> = {};
try {
  const url = `${gateway.baseUrl}/world/`;
  // One unmeasured visit: the gateway's first answers (file system caches, lazy route set-up).
  const warm = await browser.newContext();
  await openJoinForm(warm, url, "loopback");
  await warm.close();
  console.log(`gateway ready in ${(gateway.startupMs / 1000).toFixed(1)} s; ${RUNS} runs per link`);
  console.log("link       visit   p50 ms   max ms   script arrived p50 ms   bytes");
  for (const link of Object.keys(LINKS) as Link[]) {
    const first: Visit[] = [];
    const repeat: Visit[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
      try {
        first.push(await openJoinForm(context, url, link));
        repeat.push(await openJoinForm(context, url, link));
      } finally {
        await context.close();
      }
    }
    for (const [visit, runs] of [
      ["first", first],
      ["repeat", repeat],
    ] as const) {
      const ms = runs.map((r) => r.ms);
      const bytes = quantile(
        runs.map((r) => r.bytes),
        0.5,
      );
      const scriptMs = round(
        quantile(
          runs.map((r) => r.scriptMs),
          0.5,
        ),
      );
      console.log(
        `${link.padEnd(10)} ${visit.padEnd(7)} ${String(round(quantile(ms, 0.5))).padStart(6)}   ${String(round(Math.max(...ms))).padStart(6)}   ${String(scriptMs).padStart(21)}   ${bytes}`,
      );
      const key = `${link}${visit === "first" ? "First" : "Repeat"}`;
      figures[`${key}P50Ms`] = round(quantile(ms, 0.5));
      figures[`${key}MaxMs`] = round(Math.max(...ms));
      figures[`${key}Bytes`] = bytes;
      figures[`${key}ScriptP50Ms`] = scriptMs;
    }
  }
} finally {
  await browser.close();
  await gateway.stop();
}
console.log(JSON.stringify({ runs: RUNS, ...figures }));
