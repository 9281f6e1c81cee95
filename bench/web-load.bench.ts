// Open-to-join-form: how long a person waits from opening /world/ until the join form is on screen,
// in real Debian Chromium (playwright-core) against a real gateway started by the project's own
// launcher. Each run opens the page in a fresh browser context (an empty cache: a first visit), then
// opens it again in the same context (a repeat visit, whatever the cache kept). Two links:
//   loopback   the page straight from 127.0.0.1 (what this machine's own browser sees);
//   broadband  Chromium's network emulation at 20 Mbit/s down, 5 Mbit/s up, 40 ms latency (a home
//              connection to a gateway elsewhere), where the bytes on the wire dominate.
// and two codings, alternated run by run so the machine's drift hits both alike:
//   served     what the browser gets by default (brotli: the precompressed files);
//   plain      the same build with `Accept-Encoding: identity` (the baseline: the files uncompressed).
// Time is the page's own clock: performance.now() (ms since navigation start) when #join is shown,
// and when the script had arrived (its responseEnd; what follows is the script's own work). Bytes
// are what crossed the wire (transferSize of the document and every resource).
// Run: npm run bench:web-load [-- --runs 7]. The last output line is one JSON object.
import { parseArgs } from "node:util";
import type { Browser, BrowserContext } from "playwright-core";
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
const CODINGS = { served: {}, plain: { "accept-encoding": "identity" } } as const;
type Coding = keyof typeof CODINGS;

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

/** A first visit in a fresh context, then a repeat visit in the same one. */
async function visitTwice(
  browser: Browser,
  url: string,
  link: Link,
  coding: Coding,
): Promise<[Visit, Visit]> {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 700 },
    extraHTTPHeaders: CODINGS[coding],
  });
  try {
    return [await openJoinForm(context, url, link), await openJoinForm(context, url, link)];
  } finally {
    await context.close();
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const round = (x: number) => Math.round(x);

const gateway = await startGateway();
const browser = await launchBrowser();
const figures: Record<string, number> = {};
try {
  const url = `${gateway.baseUrl}/world/`;
  // One unmeasured visit: the gateway's first answers (file system caches, lazy route set-up).
  await visitTwice(browser, url, "loopback", "served");
  console.log(
    `gateway ready in ${(gateway.startupMs / 1000).toFixed(1)} s; ${RUNS} runs per link and coding`,
  );
  console.log("link       coding  visit   p50 ms   max ms   script arrived p50 ms   bytes");
  for (const link of Object.keys(LINKS) as Link[]) {
    const runs: Record<string, Visit[]> = {};
    for (const coding of Object.keys(CODINGS)) {
      runs[`${coding} first`] = [];
      runs[`${coding} repeat`] = [];
    }
    for (let i = 0; i < RUNS; i++) {
      for (const coding of Object.keys(CODINGS) as Coding[]) {
        const [first, repeat] = await visitTwice(browser, url, link, coding);
        runs[`${coding} first`]?.push(first);
        runs[`${coding} repeat`]?.push(repeat);
      }
    }
    for (const [key, visits] of Object.entries(runs)) {
      const [coding, visit] = key.split(" ") as [Coding, string];
      const ms = visits.map((v) => v.ms);
      const p50 = round(median(ms));
      const script = round(median(visits.map((v) => v.scriptMs)));
      const bytes = median(visits.map((v) => v.bytes));
      console.log(
        `${link.padEnd(10)} ${coding.padEnd(7)} ${visit.padEnd(7)} ${String(p50).padStart(6)}   ${String(round(Math.max(...ms))).padStart(6)}   ${String(script).padStart(21)}   ${bytes}`,
      );
      const name = `${link}${visit === "first" ? "First" : "Repeat"}${coding === "plain" ? "Plain" : ""}`;
      figures[`${name}P50Ms`] = p50;
      figures[`${name}ScriptP50Ms`] = script;
      figures[`${name}Bytes`] = bytes;
    }
    // The ratio of the two codings in the same run: below 1, compression shortens the wait.
    figures[`${link}FirstServedOverPlain`] =
      Math.round((figures[`${link}FirstP50Ms`]! / figures[`${link}FirstPlainP50Ms`]!) * 100) / 100;
  }
} finally {
  await browser.close();
  await gateway.stop();
}
console.log(JSON.stringify({ runs: RUNS, ...figures }));
