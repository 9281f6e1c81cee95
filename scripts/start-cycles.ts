// `npm run cycles -- --count 10`: the real `npm start` started and stopped COUNT times in a row in this
// checkout, each reaching a running world (scripts/lib/start-cycles.ts), while a file in the checkout
// keeps changing. One state directory for all cycles (a temporary one unless --state-dir is given).
// A line per cycle; the last line is one JSON object with the figures. Exit code 0 only when every
// cycle came up and stopped.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type CycleResult, startCycles } from "./lib/start-cycles.ts";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "10" },
    "state-dir": { type: "string" },
    "no-churn": { type: "boolean", default: false },
    /** A gateway config overlay for every cycle (OCW_GATEWAY_CONFIG). */
    "gateway-config": { type: "string" },
  },
});
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1 || count > 1000)
  throw new Error("--count must be an integer 1..1000");

const stateDir = values["state-dir"] ?? (await mkdtemp(path.join(os.tmpdir(), "ocw-cycles-")));
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;
let results: CycleResult[] = [];
let failure: string | undefined;
try {
  results = await startCycles({
    count,
    stateDir,
    churn: !values["no-churn"],
    ...(values["gateway-config"] ? { gatewayConfigFile: path.resolve(values["gateway-config"]) } : {}),
    onLine: (l) => console.log(l),
  });
} catch (error) {
  failure = error instanceof Error ? error.message : String(error);
  console.error(failure);
} finally {
  if (!values["state-dir"]) await rm(stateDir, { recursive: true, force: true });
}
const ready = results.map((r) => r.readyMs / 1000);
const stop = results.map((r) => r.stopMs / 1000);
const round = (x: number) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    cycles: count,
    up: results.length,
    failed: failure ? 1 : 0,
    readySecP50: round(quantile(ready, 0.5)),
    readySecMax: round(Math.max(0, ...ready)),
    stopSecMax: round(Math.max(0, ...stop)),
    readySec: ready.map(round),
    stopSec: stop.map(round),
    loadAverage: round(os.loadavg()[0] ?? 0),
  }),
);
process.exit(failure ? 1 : 0);
