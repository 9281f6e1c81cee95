// `npm run load -- --humans H --agents A --minutes M`: the load harness against a real gateway it
// starts on loopback (scripts/lib/load.ts says what is measured and how). Progress lines while it
// runs; at the end a JSON report and PNG plots (latency and tick time over time) in .test-artifacts/,
// and as the last line one JSON object with the headline figures.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_DIR } from "./lib/gateway.ts";
import { type LoadReport, runLoad, summaryLine } from "./lib/load.ts";
import { writeCharts } from "./lib/plot.ts";

const { values } = parseArgs({
  options: {
    humans: { type: "string", default: "5" },
    agents: { type: "string", default: "10" },
    minutes: { type: "string", default: "1" },
    every: { type: "string", default: "5" },
    "patch-rate": { type: "string" },
    "tool-share": { type: "string", default: "0.2" },
    watchers: { type: "string", default: "64" },
    /** A directory: the gateway writes a V8 CPU profile (.cpuprofile) there when the run stops. */
    "cpu-prof": { type: "string" },
    /** A flag for the gateway's node process, e.g. --gateway-node-flag=--max-semi-space-size=64 (repeatable). */
    "gateway-node-flag": { type: "string", multiple: true },
    /** Where the browsers' fan-out runs: process or inline (plugin config web.fanout). */
    fanout: { type: "string" },
  },
});
const humans = Number(values.humans);
const agents = Number(values.agents);
const minutes = Number(values.minutes);
const every = Number(values.every);
for (const [name, v, max] of [
  ["humans", humans, 5000],
  ["agents", agents, 2000],
] as const) {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new Error(`--${name} must be an integer 0..${max}`);
}
if (!(minutes > 0 && minutes <= 240)) throw new Error("--minutes must be > 0 and <= 240");
if (!(every >= 1 && every <= 600)) throw new Error("--every must be 1..600 seconds");
const toolShare = Number(values["tool-share"]);
if (!(toolShare >= 0 && toolShare <= 1)) throw new Error("--tool-share must be within 0..1");
const watchers = Number(values.watchers);
if (!Number.isInteger(watchers) || watchers < 1) throw new Error("--watchers must be an integer >= 1");

/** The goal for a move seen by another client on loopback (the PRD bound, section 1, is
 * p95 < 400 ms). Drawn on the latency plot. */
const P95_BOUND_MS = 80;

export async function plotReport(report: LoadReport, base: string) {
  const t = (f: (p: LoadReport["series"][number]) => number | null) =>
    report.series.map((p) => [p.tSec, f(p)] as [number, number | null]);
  return writeCharts(
    [
      {
        title: `Input -> update latency seen by another client (${report.humans} humans, ${report.agents} agents)`,
        xLabel: "time (s)",
        yLabel: "ms",
        lines: [
          { name: "p50", color: "#1f77b4", points: t((p) => p.latencyP50Ms) },
          { name: "p95", color: "#ff7f0e", points: t((p) => p.latencyP95Ms) },
        ],
        limit: { value: P95_BOUND_MS, label: `goal p95 ${P95_BOUND_MS} ms (PRD bound 400 ms)` },
      },
      {
        title: "Tick time (step + commit + answers) and the browsers' patch delivery after it",
        xLabel: "time (s)",
        yLabel: "ms",
        lines: [
          { name: "p50", color: "#2ca02c", points: t((p) => p.tickP50Ms) },
          { name: "p99", color: "#d62728", points: t((p) => p.tickP99Ms) },
          { name: "patch delivery p99", color: "#17becf", points: t((p) => p.patchDeliveryP99Ms) },
        ],
        limit: { value: 10, label: "goal p99 10 ms" },
      },
      {
        title: "Gateway RSS and CPU (and the load harness's own CPU)",
        xLabel: "time (s)",
        yLabel: "MiB / %",
        lines: [
          { name: "RSS MiB", color: "#9467bd", points: t((p) => p.rssMiB) },
          { name: "V8 heap reserved MiB", color: "#e377c2", points: t((p) => p.heapTotalMiB) },
          { name: "external MiB", color: "#bcbd22", points: t((p) => p.externalMiB) },
          { name: "CPU %", color: "#8c564b", points: t((p) => p.cpuPct) },
          { name: "harness CPU %", color: "#7f7f7f", points: t((p) => p.harnessCpuPct) },
        ],
      },
    ],
    base,
  );
}

const fanout = values.fanout;
if (fanout !== undefined && fanout !== "process" && fanout !== "inline")
  throw new Error("--fanout must be process or inline");
const patchRate = values["patch-rate"] === undefined ? undefined : Number(values["patch-rate"]);
if (patchRate !== undefined && !(Number.isInteger(patchRate) && patchRate >= 1 && patchRate <= 20))
  throw new Error("--patch-rate must be an integer 1..20");
const report = await runLoad({
  humans,
  agents,
  seconds: Math.round(minutes * 60),
  reportEverySec: every,
  toolShare,
  watchers,
  ...(patchRate ? { patchRate } : {}),
  ...(values["cpu-prof"] ? { cpuProfileDir: path.resolve(values["cpu-prof"]) } : {}),
  ...(values["gateway-node-flag"] ? { gatewayNodeFlags: values["gateway-node-flag"] } : {}),
  ...(fanout ? { fanout } : {}),
});
const dir = path.join(PROJECT_DIR, ".test-artifacts");
await mkdir(dir, { recursive: true });
const base = path.join(
  dir,
  `load-${humans}h-${agents}a-${minutes}m${patchRate ? `-${patchRate}hz` : ""}${fanout ? `-${fanout}` : ""}`,
);
await writeFile(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
const charts = await plotReport(report, base);
console.log(
  `load: report ${base}.json; plots ${charts.files.join(", ")}${charts.note ? ` (${charts.note})` : ""}`,
);
console.log(
  `load: latency p50 ${report.latency.p50Ms} p95 ${report.latency.p95Ms} p99 ${report.latency.p99Ms} ms (${report.latency.samples} samples, ${report.latency.lost} lost) | tick p50 ${report.tick.p50Ms} p99 ${report.tick.p99Ms} ms at ${report.tick.hz} Hz | patches ${report.patches.perSec}/s delivered p50 ${report.patches.deliveryP50Ms} p99 ${report.patches.deliveryP99Ms} ms (work p99 ${report.patches.workP99Ms} ms, ${report.patches.skipped} skipped) | rss ${report.rssMiB.start} -> ${report.rssMiB.end} MiB | cpu ${report.cpuPct}% (gateway thread ${report.gatewayThreadCpuPct}%, waited for a core ${report.gatewayThreadWaitPct}%, fan-out ${report.fanout} ${report.childCpuPct}%, waited ${report.childWaitPct}%) | ${report.humansTraffic.framesPerClientPerSec} frames ${report.humansTraffic.bytesPerClientPerSec} B/s per human | ${report.httpAgentsTraffic.requests} HTTP agent requests (${report.httpAgentsTraffic.errors} errors), ${report.toolAgentsTraffic.requests} tool calls by ${report.toolAgentsTraffic.agents} tool agents (${report.toolAgentsTraffic.errors} errors, move seen p50 ${report.toolAgentsTraffic.latencyP50Ms} p95 ${report.toolAgentsTraffic.latencyP95Ms} ms) | harness cpu ${report.harnessCpuPct}% | dropped ${report.droppedConnections} | rate-limited ${report.rateLimited.serverTotal} | cursor errors ${report.cursorErrors} (${report.chatsChecked} chats checked) | load ${report.loadAverage.join(" ")}`,
);
console.log(JSON.stringify(summaryLine(report)));
