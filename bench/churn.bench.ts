// Join/leave churn: loops from one address open a WebSocket, join, wait for the welcome
// and drop the socket (a network drop: the character keeps its seat for the resume grace period),
// over and over, against the real human web surface with the bundled lobby ticking in process.
// Reported: the tick rate the world kept (ticks per second against its 20 Hz), the slowest ticks,
// joins per second, the sessions and actors standing at the end, and the process's peak RSS.
// With --store the world runs on its durable store as in the gateway (every tick committed, the
// humans' resume tokens kept in it: src/plugin/adapters.ts's wiring); without, volatile.
// Run: npm run bench:churn [-- --loops 10 --seconds 20 --per-address 20 --store]. Last line: one JSON object.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { RateLimiter } from "../src/aic/rate-limit.ts";
import { AicService } from "../src/aic/service.ts";
import { BUNDLED_WORLD_DIR } from "../src/config/config.ts";
import { DEFAULT_ADMISSION_LIMITS } from "../src/http/humans/connection-admission.ts";
import { serveOnLoopback } from "../src/http/humans/testing/serve-loopback.ts";
import { createWebSurface } from "../src/http/humans/web-surface.ts";
import { humanSessions } from "../src/plugin/durable-state.ts";
import { closeWorld, openWorld } from "../src/runtime/open-world.ts";
import { churn } from "./lib/churn-loop.ts";

const { values } = parseArgs({
  options: {
    loops: { type: "string", default: "10" },
    seconds: { type: "string", default: "20" },
    "per-address": { type: "string", default: String(DEFAULT_ADMISSION_LIMITS.maxHumansPerAddress) },
    store: { type: "boolean", default: false },
  },
});
const LOOPS = Number(values.loops);
const SECONDS = Number(values.seconds);
const PER_ADDRESS = Number(values["per-address"]);

const quiet = { info() {}, warn() {}, error() {} };
const stateDir = values.store ? mkdtempSync(path.join(tmpdir(), "ocw-churn-")) : undefined;
const host = await openWorld({
  worldDir: BUNDLED_WORLD_DIR,
  defaultRoomId: "lobby",
  storeFile: stateDir ? path.join(stateDir, "world.db") : undefined,
  logger: quiet,
});
const runtime = host.runtime;
const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
const surface = createWebSurface({
  service,
  worldDir: BUNDLED_WORLD_DIR,
  logger: quiet,
  admission: { ...DEFAULT_ADMISSION_LIMITS, maxHumansPerAddress: PER_ADDRESS },
  ...(host.store ? { savedSessions: humanSessions(host) } : {}),
});
const server = await serveOnLoopback(surface);
runtime.start();

let peakRss = process.memoryUsage().rss;
const tickMs: number[] = [];
let lastTickAt = performance.now();
runtime.onTick(() => {
  const now = performance.now();
  tickMs.push(now - lastTickAt);
  lastTickAt = now;
});
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);

const startTicks = runtime.health().ticks;
const { joins, refusals, elapsedSec } = await churn(server.wsUrl, LOOPS, SECONDS);
const ticks = runtime.health().ticks - startTicks;
clearInterval(sampler);
const sorted = tickMs.slice(1).sort((a, b) => a - b);
const pick = (q: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
const actors = Object.keys(runtime.world.definition.rooms).reduce(
  (sum, roomId) => sum + runtime.world.actorsInRoom(roomId).length,
  0,
);
const result = {
  bench: "churn",
  store: values.store,
  loops: LOOPS,
  seconds: Math.round(elapsedSec * 10) / 10,
  perAddress: PER_ADDRESS,
  joinsPerSec: Math.round((joins / elapsedSec) * 10) / 10,
  refusals,
  tickHz: Math.round((ticks / elapsedSec) * 10) / 10,
  tickGapMs: { p50: pick(0.5), p95: pick(0.95), max: pick(1) },
  sessionsAtEnd: surface.stats().sessions,
  actorsAtEnd: actors,
  peakRssMiB: Math.round(peakRss / 1048576),
};
await server.close();
closeWorld(host, quiet);
if (stateDir) rmSync(stateDir, { recursive: true, force: true });
console.log(JSON.stringify(result));
