// Gateway start time (spawn -> plugin route answering with a running world) and resident memory
// of the gateway process with this plugin and the bundled world, idle and after 10 s of ticking.
import { readFileSync } from "node:fs";
import { startGateway } from "../test/support/gateway.ts";

function rssMiB(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

const runs = Number(process.env.OCW_BENCH_RUNS ?? 2);
const starts: number[] = [];
const rssReady: number[] = [];
const rssAfter: number[] = [];
let ticks = 0;
for (let i = 0; i < runs; i++) {
  const gw = await startGateway();
  try {
    starts.push(gw.startupMs);
    rssReady.push(rssMiB(gw.pid));
    await new Promise((r) => setTimeout(r, 10_000));
    rssAfter.push(rssMiB(gw.pid));
    const status = (await (await fetch(`${gw.baseUrl}/world/api/status`)).json()) as { tick: number };
    ticks = status.tick;
  } finally {
    await gw.stop();
  }
  console.log(
    `run ${i + 1}: ready in ${starts.at(-1)} ms, RSS ${rssReady.at(-1)} MiB at ready, ${rssAfter.at(-1)} MiB after 10 s (tick ${ticks})`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  JSON.stringify({
    runs,
    startupMsMedian: median(starts),
    startupMs: starts,
    rssMiBAtReady: rssReady,
    rssMiBAfter10s: rssAfter,
  }),
);
