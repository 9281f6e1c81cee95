// The gateway's per-patch view sync for a crowd, in process: the bundled lobby stepped in process,
// HUMANS browser sessions and AGENTS other actors all walking the load harness's plaza (13 x 10 tiles;
// a new random destination about every 2 s, as bench/crowd.bench.ts), so with the 16-tile radius every
// viewer is near everyone. The product's createViewSync (src/http/humans/view-sync.ts) with
// web.maxVisible = MAX_VISIBLE gets the ticks (TickInfo) and fake sockets, and runs a patch's whole
// fan-out inside pushTick; its send does what the gateway's does before the socket (JSON.stringify of a
// text message; a binary frame or a prepared text as it is) and counts the bytes. Timed: the whole
// pushTick (every viewer's delta, events and radar), per patch; the world step is not counted. The
// uncapped view sync before the visible entity limit was ~40x slower per patch in the same runs
// (docs/performance-history.md).
// Run: npx node bench/view-sync.bench.ts [humans=700] [agents=300] [seconds=5] [maxVisible=64]
// The last output line is one JSON object with the figures.
import os from "node:os";
import type { WebSocket } from "ws";
import { worldReads } from "../src/aic/reads.ts";
import { BUNDLED_WORLD_DIR } from "../src/config/config.ts";
import { PreparedText } from "../src/http/humans/prepared-text.ts";
import { PresenceState } from "../src/http/humans/presence-state.ts";
import type { ServerMessage } from "../src/http/humans/protocol.ts";
import { type HumanSession, newSession } from "../src/http/humans/session.ts";
import { createViewSync } from "../src/http/humans/view-sync.ts";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { World } from "../src/world/world.ts";

const HUMANS = Number(process.argv[2] ?? 700);
const AGENTS = Number(process.argv[3] ?? 300);
const SECONDS = Number(process.argv[4] ?? 5);
const MAX_VISIBLE = Number(process.argv[5] ?? 64);
const WARM_SECONDS = 1;
const INTEREST_TILES = 16;
/** The harness's walk box (scripts/lib/load.ts DEFAULT_BOX). */
const BOX = { tx0: 16, ty0: 11, tx1: 28, ty1: 20 };

const quiet = { info() {}, warn() {}, error() {} };
const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
const reads = worldReads(runtime);
const room = reads.definition.rooms.lobby!;
const tickRate = reads.definition.tickRate;
const radius = INTEREST_TILES * room.tileSize;

let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
};

const fakeSocket = () => ({ OPEN: 1, readyState: 1, bufferedAmount: 0, close() {} }) as unknown as WebSocket;

const ids: string[] = [];
for (let i = 0; i < HUMANS + AGENTS; i++) {
  const human = i < HUMANS;
  const id = `${human ? "hum" : "agt"}_crowd${String(i).padStart(5, "0")}`;
  void runtime.submit({ kind: "join", entityId: id, actorKind: human ? "human" : "agent", name: id });
  if (i % 50 === 49) runtime.stepNow();
  ids.push(id);
}
runtime.stepNow();
const present = ids.filter((id) => reads.getEntity(id));
const humanIds = present.filter((id) => id.startsWith("hum_"));

let bytes = 0;
let radarBytes = 0;
const count = (message: ServerMessage | PreparedText | Uint8Array) => {
  let n: number;
  if (message instanceof PreparedText) n = message.bytes.length;
  else if (message instanceof Uint8Array) n = message.length;
  else n = Buffer.byteLength(JSON.stringify(message));
  bytes += n;
  if (message instanceof PreparedText || (!(message instanceof Uint8Array) && message.type === "radar"))
    radarBytes += n;
};
let measuring = false;
const viewSync = createViewSync(
  reads,
  (_s, m) => {
    if (measuring) count(m);
    else if (!(m instanceof Uint8Array) && !(m instanceof PreparedText)) JSON.stringify(m);
  },
  () => {},
  new PresenceState(),
  // The whole fan-out at once, inside pushTick (the gateway slices it over event-loop turns: the work
  // is the same, spread out), so pushTick's time is the patch's work.
  { defer: (run) => run(), sliceMs: Number.POSITIVE_INFINITY },
);
const sessions: HumanSession[] = humanIds.map((id) => newSession(id, fakeSocket(), radius, id, MAX_VISIBLE));
for (const s of sessions) viewSync.enterRoom(s, reads.getEntity(s.actor.entityId)!, reads.latestSeq("lobby"));

const times: number[] = [];
const steps: number[] = [];
const nextMoveAt = new Map(present.map((id, i) => [id, i % (2 * tickRate)]));
const totalTicks = Math.round((WARM_SECONDS + SECONDS) * tickRate);
for (let tick = 0; tick < totalTicks; tick++) {
  for (const id of present) {
    if (tick < nextMoveAt.get(id)!) continue;
    nextMoveAt.set(id, tick + Math.round(tickRate * (1.5 + rand())));
    const dest = {
      tx: BOX.tx0 + Math.floor(rand() * (BOX.tx1 - BOX.tx0 + 1)),
      ty: BOX.ty0 + Math.floor(rand() * (BOX.ty1 - BOX.ty0 + 1)),
    };
    void runtime.submit({ kind: "moveTo", entityId: id, dest });
  }
  let t0 = performance.now();
  const step = runtime.stepNow()!;
  const stepMs = performance.now() - t0;
  measuring = tick >= WARM_SECONDS * tickRate;
  if (measuring) steps.push(stepMs);
  const info = { tick: step.tick, serverTsMs: step.serverTsMs, events: step.events, inputs: [] };
  t0 = performance.now();
  viewSync.pushTick(sessions, info);
  if (measuring) times.push(performance.now() - t0);
}

const r = (x: number, digits = 1) => Number(x.toFixed(digits));
const quantile = (xs: number[], q: number) => {
  if (!xs.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return r(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!, 2);
};
const summary = (xs: number[]) => ({
  mean: xs.length ? r(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : null,
  p50: quantile(xs, 0.5),
  p95: quantile(xs, 0.95),
  p99: quantile(xs, 0.99),
  max: quantile(xs, 1),
});
const meanVisible = (sessions: { sent: { size: number } }[]) =>
  sessions.length ? r(sessions.reduce((a, s) => a + s.sent.size, 0) / sessions.length) : null;
const perClientPerSec = (b: number) => (humanIds.length ? r(b / humanIds.length / SECONDS) : null);
const figures = {
  humans: HUMANS,
  agents: AGENTS,
  viewers: humanIds.length,
  actors: present.length,
  maxVisible: MAX_VISIBLE,
  simulatedSec: SECONDS,
  patches: times.length,
  viewSyncMsPerPatch: summary(times),
  meanVisiblePerViewer: meanVisible(sessions),
  bytesPerClientPerSec: perClientPerSec(bytes),
  radarBytesPerClientPerSec: perClientPerSec(radarBytes),
  worldStepMs: summary(steps),
  loadAvg1: r(os.loadavg()[0]!, 2),
};
console.log(
  `${humanIds.length} viewers + ${present.length - humanIds.length} others in the plaza, ${SECONDS} s: view sync per patch p50 ${figures.viewSyncMsPerPatch.p50} ms (maxVisible ${MAX_VISIBLE}, ~${figures.meanVisiblePerViewer} shown each)`,
);
console.log(JSON.stringify(figures));
