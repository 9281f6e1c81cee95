// Auto-snapshot benchmark: the periodic snapshot runs on the gateway's event loop, so its
// longest synchronous stretch is a stall every participant feels (at 20 Hz one tick is 50 ms).
// A world of the bundled lobby with SNAPSHOT_ACTORS (1,000) walking actors (the crowd of
// bench/crowd.bench.ts) runs until its rooms' event logs are full (event_retention, 20,000). Then:
// 1. the parts of a snapshot save, one by one: World.snapshot() (capture), canonicalHash (and the
//    `canonicalize` package it used to be, for comparison), JSON.stringify, gzip, the SQLite write of
//    the JSON as text (what was stored before) and gzipped, and a structured clone of the whole
//    snapshot (what handing it to a worker thread would cost);
// 2. the whole save as it was (snapshotEntryBefore: the package's canonical JSON + JSON text; the
//    event loop is held throughout), as saveWorld does it now (at once, for start-up and shutdown),
//    and as the periodic snapshot does it now (saveWorldInSlices): its longest synchronous stretch,
//    measured as the longest gap between two turns of the event loop while it runs, and its wall time;
// 3. the world ticking at 20 Hz with its journal (the gateway's setting): the longest interval between
//    two ticks while each kind of save runs.
// Last line: one JSON object with the figures (medians over SNAPSHOT_RUNS runs).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import canonicalize from "canonicalize";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { saveWorld, saveWorldInSlices } from "../src/runtime/open-world.ts";
import { commitTick, SideTables, snapshotEntry } from "../src/runtime/persistence.ts";
import { WorldStore } from "../src/runtime/store.ts";
import { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { canonicalHash, sha256Hex } from "../src/world/snapshot.ts";
import { Crowd } from "../src/world/testing/plaza-crowd.ts";
import type { WorldSnapshot } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const ACTORS = Number(process.env.SNAPSHOT_ACTORS ?? 1000);
const RUNS = Number(process.env.SNAPSHOT_RUNS ?? 5);
const quiet = { info() {}, warn() {}, error() {} };

const lobby = await loadWorldDir(new URL("../worlds/lobby", import.meta.url).pathname);
const world = World.create(lobby);
const crowd = new Crowd(world, ACTORS);
// A crowd of 1,000 appends ~470 events a tick: 150 ticks fill a 20,000-event log. Its people chat on
// the global channel at the load harness's pace (one message each every ~10 s: 5 a tick at 20 Hz), so
// the snapshot carries the chat history a real crowd leaves (SNAPSHOT_WARM_TICKS=1000 reaches the
// 5,000 messages a room keeps).
const CHATS_PER_TICK = Number(process.env.SNAPSHOT_CHATS_PER_TICK ?? Math.round(ACTORS / 200));
for (let i = 0; i < Number(process.env.SNAPSHOT_WARM_TICKS ?? 150); i++) {
  const inputs = crowd.inputs();
  for (let k = 0; k < CHATS_PER_TICK; k++) {
    const entityId = crowd.ids[(i * CHATS_PER_TICK + k) % crowd.ids.length]!;
    inputs.push({ kind: "chat", entityId, channel: "global", message: `hello from ${entityId}` });
  }
  world.step(inputs);
}

const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-snapshot-bench-"));
const store = WorldStore.open(path.join(dir, "world.db"));
const runtime = new WorldRuntime(world, quiet);
const opened = { store, runtime, definition: world.definition, problems: [] as string[] };
runtime.journal = {
  commit: (inputs, result) => {
    commitTick(store, inputs, result, new SideTables(store));
  },
  recover: () => {
    throw new Error("not in the bench");
  },
};
store.saveAutoSnapshot(snapshotEntry(world.snapshot()));

/** The stored form as it was before the snapshot stall was cut: the package's canonical JSON for
 * the hash, JSON text as the body. */
function snapshotEntryBefore(snapshot: WorldSnapshot) {
  const text = canonicalize(snapshot)!;
  return {
    tick: snapshot.tick,
    time: snapshot.time,
    format: snapshot.format,
    hash: sha256Hex(text),
    body: JSON.stringify(snapshot),
  };
}

function time<T>(fn: () => T): [number, T] {
  const started = performance.now();
  const value = fn();
  return [performance.now() - started, value];
}

/** The longest gap between two turns of the event loop while `work` runs, and its wall time. */
async function stall(work: () => unknown): Promise<{ maxGapMs: number; wallMs: number }> {
  let maxGap = 0;
  let last = performance.now();
  let running = true;
  const probe = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    if (running) setImmediate(probe);
  };
  setImmediate(probe);
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  running = false;
  maxGap = Math.max(maxGap, performance.now() - last);
  return { maxGapMs: maxGap, wallMs };
}

/** The longest interval between two ticks of the running world while `work` runs. */
async function tickGap(work: () => unknown): Promise<number> {
  let last = performance.now();
  let maxGap = 0;
  const off = runtime.onTick(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  });
  // Two ticks before and after, so a stall at either end is seen.
  await new Promise((resolve) => setTimeout(resolve, 120));
  last = performance.now();
  maxGap = 0;
  await work();
  await new Promise((resolve) => setTimeout(resolve, 120));
  off();
  return maxGap;
}

const samples: Record<string, number[]> = {};
const add = (key: string, ms: number) => {
  samples[key] ??= [];
  samples[key].push(ms);
};
let bytes = 0;
let gzBytes = 0;
for (let run = 0; run < RUNS; run++) {
  world.step(crowd.inputs());
  const [captureMs, snapshot] = time(() => world.snapshot());
  add("captureMs", captureMs);
  add("canonicalizePackageMs", time(() => canonicalize(snapshot))[0]);
  add("canonicalHashMs", time(() => canonicalHash(snapshot))[0]);
  const [stringifyMs, body] = time(() => JSON.stringify(snapshot));
  add("stringifyMs", stringifyMs);
  bytes = body.length;
  const [gzipMs, gz] = time(() => gzipSync(body, { level: 1 }));
  add("gzipMs", gzipMs);
  gzBytes = gz.length;
  add("structuredCloneMs", time(() => structuredClone(snapshot))[0]);
  const before = snapshotEntryBefore(snapshot);
  add("sqliteWriteTextMs", time(() => store.saveAutoSnapshot(before))[0]);
  const entry = snapshotEntry(snapshot);
  add("sqliteWriteGzipMs", time(() => store.saveAutoSnapshot(entry))[0]);

  world.step(crowd.inputs());
  add("beforeTotalMs", time(() => store.saveAutoSnapshot(snapshotEntryBefore(world.snapshot())))[0]);
  world.step(crowd.inputs());
  add("saveWorldMs", time(() => saveWorld(opened))[0]);
  world.step(crowd.inputs());
  const sliced = await stall(async () => {
    if (!(await saveWorldInSlices(opened))) throw new Error("the sliced save did not store");
  });
  add("slicedMaxStallMs", sliced.maxGapMs);
  add("slicedWallMs", sliced.wallMs);
}

// The world ticking (20 Hz, journal on) while each kind of save runs; the crowd keeps walking.
const offFeed = runtime.onTick(() => {
  for (const input of crowd.inputs()) runtime.submit(input).catch(() => {});
});
const TICK_RUNS = Math.max(1, Math.ceil(RUNS / 2));
for (let run = 0; run < TICK_RUNS; run++) {
  runtime.start();
  add("tickGapIdleMs", await tickGap(() => new Promise((resolve) => setTimeout(resolve, 300))));
  add("tickGapBeforeMs", await tickGap(() => store.saveAutoSnapshot(snapshotEntryBefore(world.snapshot()))));
  add("tickGapSlicedMs", await tickGap(() => saveWorldInSlices(opened)));
  runtime.stop();
}
offFeed();
store.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 100) / 100;
};
const figures = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
const eventsRetained = Object.values(world.snapshot().state.rooms as Record<string, { events: unknown[] }>)
  .map((r) => r.events.length)
  .reduce((a, b) => a + b, 0);
const chatKept = Object.values(world.snapshot().state.rooms as Record<string, { chat: unknown[] }>)
  .map((r) => r.chat.length)
  .reduce((a, b) => a + b, 0);
console.log(
  `${ACTORS} actors, ${eventsRetained} retained events, ${chatKept} chat messages, JSON ${(bytes / 1e6).toFixed(2)} MB (gzipped ${(gzBytes / 1e6).toFixed(2)} MB); medians of ${RUNS} runs (ms):`,
);
for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(22)} ${v}`);
console.log(
  `stall: before ${figures.beforeTotalMs} ms at once; now ${figures.slicedMaxStallMs} ms at most (${(figures.beforeTotalMs! / figures.slicedMaxStallMs!).toFixed(1)}x less), over ${figures.slicedWallMs} ms of wall time`,
);
console.log(
  JSON.stringify({
    snapshot: {
      actors: ACTORS,
      eventsRetained,
      chatKept,
      jsonBytes: bytes,
      gzipBytes: gzBytes,
      runs: RUNS,
      ...figures,
    },
  }),
);
