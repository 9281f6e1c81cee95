// Join/leave churn against a real gateway started by the project's launcher: loops from
// one address open /world/ws, join, wait for the welcome (or a refusal) and drop the socket, for
// --seconds. Sampled every 500 ms: the world's tick (GET /world/api/status) and the gateway
// process's RSS (/proc). Reported: the tick rate over the churn and its slowest 5 s window, joins and
// refusals per second, and the gateway's RSS before, at its peak and after. It imports nothing of
// the plugin, so the same file measures any checkout (the before/after of a fix).
// Run: node bench/churn-gateway.bench.ts [--loops 10 --seconds 60]. Last line: one JSON object.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startGateway } from "../test/support/gateway.ts";
import { churn } from "./lib/churn-loop.ts";

const { values } = parseArgs({
  options: { loops: { type: "string", default: "10" }, seconds: { type: "string", default: "60" } },
});
const LOOPS = Number(values.loops);
const SECONDS = Number(values.seconds);

function rssMiB(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

const gw = await startGateway();
const wsUrl = `${gw.baseUrl.replace(/^http/, "ws")}/world/ws`;
const tickNow = async () =>
  ((await (await fetch(`${gw.baseUrl}/world/api/status`)).json()) as { tick: number }).tick;

try {
  await new Promise((r) => setTimeout(r, 5000));
  const rssBefore = rssMiB(gw.pid);
  const samples: { at: number; tick: number; rss: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const tick = await tickNow().catch(() => Number.NaN);
      samples.push({ at: performance.now(), tick, rss: rssMiB(gw.pid) });
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const { joins, refusals, elapsedSec, endedAt: deadline } = await churn(wsUrl, LOOPS, SECONDS);
  await new Promise((r) => setTimeout(r, 5000));
  sampling = false;
  await sampler;
  const rssAfter = rssMiB(gw.pid);
  const during = samples.filter((s) => s.at <= deadline && Number.isFinite(s.tick));
  const hz = (a: (typeof during)[number], b: (typeof during)[number]) =>
    ((b.tick - a.tick) * 1000) / (b.at - a.at);
  let slowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < during.length; i++) {
    const j = during.findIndex((s) => s.at >= during[i]!.at + 5000);
    if (j > i) slowest = Math.min(slowest, hz(during[i]!, during[j]!));
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "churn-gateway",
      loops: LOOPS,
      seconds: round(elapsedSec),
      joinsPerSec: round(joins / elapsedSec),
      refusalsPerSec: round(refusals / elapsedSec),
      tickHz: during.length > 1 ? round(hz(during[0]!, during.at(-1)!)) : null,
      slowest5sTickHz: Number.isFinite(slowest) ? round(slowest) : null,
      rssMiB: { before: rssBefore, peak: Math.max(...samples.map((s) => s.rss)), after: rssAfter },
    }),
  );
} finally {
  await gw.stop();
}
