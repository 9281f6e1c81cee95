// Durability benchmark.
// 1. Ack latency: 10 agents send moveTo/chatSend through the real AicService to a ticking world
//    opened by the production path (openWorld), in alternating phases of the same run: durable (the
//    default store: node:sqlite, WAL, fsync per tick), durable to the OS only (same, no fsync:
//    survives a killed process, not a power loss) and volatile (no journal). An ack is the answer to
//    the caller; it includes the wait for the next tick (up to 1000 / tickRate ms), so compare the
//    columns with each other, not with zero.
//    Rate limits are on (classes wide enough never to refuse) and, with a store, durable as in the
//    gateway: each agent also observes once per action, and that read's latency (its grant is written
//    before the answer) is reported per mode too.
// 2. Read throughput: 100 agents observe as fast as they are answered, each request in an
//    event-loop turn of its own (as HTTP requests arrive), in alternating phases: durable (a read's
//    rate-limit grant is written before its answer; the reads of one turn share one write) and
//    volatile. Reads/s and reads per side-table write. (One write per read, before the batching, gave
//    4.4x fewer durable reads: docs/performance-history.md.)
// 3. The tick commit itself (the write, + fsync, the tick's answers wait for), per tick, and the part
//    of it that is the tick log's second copy outside the database (tick-mirror.ts: a write, and an
//    fdatasync when the tick answers someone), measured inside the same commits.
// 4. Recovery: rebuilding the world from a snapshot plus a 10,000-tick log (open + verify + replay).
// Last line: one JSON object with the figures.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RateLimiter } from "../src/aic/rate-limit.ts";
import { AicService } from "../src/aic/service.ts";
import { persistRateLimits } from "../src/plugin/durable-state.ts";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import { closeWorld, type OpenedWorld, openWorld } from "../src/runtime/open-world.ts";
import { commitTick, recoverWorld, snapshotEntry } from "../src/runtime/persistence.ts";
import { WorldStore } from "../src/runtime/store.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const AGENTS = 10;
const ACKS_PER_PHASE = Number(process.env.DURABILITY_BENCH_ACKS ?? 1_000);
const ROUNDS = 3;
const LOG_TICKS = 10_000;
const READERS = 100;
const READ_PHASE_MS = Number(process.env.DURABILITY_BENCH_READ_MS ?? 2_000);
const quiet = { info() {}, warn() {}, error() {} };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

interface Rig {
  host: OpenedWorld;
  service: AicService;
  commitMs: number[];
  /** The tick log's second copy's share of each commit (tick-mirror.ts). */
  mirrorMs: number[];
  readMs: number[];
  /** Side-table writes outside the tick commits (the reads' grants). */
  sideWrites: number;
}

/** The production path (openWorld) with the store in `storeFile`, or volatile without one. */
async function rig(storeFile: string | undefined, storeSync: "full" | "normal" = "full"): Promise<Rig> {
  const host = await openWorld({
    worldDir: BUNDLED_WORLD_DIR,
    defaultRoomId: "lobby",
    storeFile,
    storeSync,
    logger: quiet,
  });
  const commitMs: number[] = [];
  const journal = host.runtime.journal;
  if (journal) {
    host.runtime.journal = {
      commit(inputs, result) {
        const started = performance.now();
        journal.commit(inputs, result);
        commitMs.push(performance.now() - started);
      },
      recover: journal.recover,
    };
  }
  const wide = { perSec: 10_000, burst: 10_000 };
  const limiter = new RateLimiter({
    classes: { action: wide, chatSend: wide, observe: wide, session: wide },
  });
  persistRateLimits(host, limiter); // no-op without a store
  const service = new AicService({ runtime: host.runtime, agents: (id) => ({ name: id }), limiter });
  const mirrorMs: number[] = [];
  const mirror = host.mirror;
  if (mirror) {
    const append = mirror.append.bind(mirror);
    mirror.append = (row, flush) => {
      const started = performance.now();
      append(row, flush);
      mirrorMs.push(performance.now() - started);
    };
  }
  const r: Rig = { host, service, commitMs, mirrorMs, readMs: [], sideWrites: 0 };
  const store = host.store;
  if (store) {
    const writeSide = store.writeSide.bind(store);
    store.writeSide = (rows) => {
      r.sideWrites += 1;
      writeSide(rows);
    };
  }
  return r;
}

/** READERS agents observe for `ms`, each read in a turn of its own; returns reads and side writes. */
async function readPhase(r: Rig, ms: number): Promise<{ reads: number; writes: number; ms: number }> {
  const { host, service } = r;
  host.runtime.start();
  const ids = Array.from({ length: READERS }, (_, i) => `reader_${i}`);
  await Promise.all(ids.map((id) => service.call("join", id, { agentId: id, roomId: "lobby" }))); // once per rig
  const writesBefore = r.sideWrites;
  const started = performance.now();
  const until = started + ms;
  let reads = 0;
  await Promise.all(
    ids.map(async (agentId) => {
      const body = { agentId, roomId: "lobby", radius: 4, detail: "lite" };
      while (performance.now() < until) {
        // The next request arrives with the next turn's I/O, not in this one's microtasks.
        await new Promise((resolve) => setImmediate(resolve));
        const seen = await service.call("observe", agentId, body);
        if (seen.status !== "ok") throw new Error(JSON.stringify(seen));
        reads += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  host.runtime.stop();
  return { reads, writes: r.sideWrites - writesBefore, ms: elapsed };
}

async function readThroughput() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-reads-"));
  try {
    const rigs = {
      volatile: await rig(undefined),
      batched: await rig(path.join(dir, "batched.db"), "full"),
    };
    const sum = {
      volatile: { reads: 0, writes: 0, ms: 0 },
      batched: { reads: 0, writes: 0, ms: 0 },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ["volatile", "batched"] as const) {
        const phaseResult = await readPhase(rigs[name], READ_PHASE_MS);
        sum[name].reads += phaseResult.reads;
        sum[name].writes += phaseResult.writes;
        sum[name].ms += phaseResult.ms;
      }
    }
    for (const r of Object.values(rigs)) closeWorld(r.host, quiet);
    const rate = (x: { reads: number; ms: number }) => x.reads / (x.ms / 1000);
    const perWrite = (x: { reads: number; writes: number }) =>
      x.writes === 0 ? Number.NaN : x.reads / x.writes;
    return {
      volatile: rate(sum.volatile),
      batched: rate(sum.batched),
      readsPerWriteBatched: perWrite(sum.batched),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Steady load until `acks` answers arrived; returns each answer's latency in ms. */
async function phase(r: Rig, acks: number, phaseId: string): Promise<number[]> {
  const { host, service } = r;
  host.runtime.start();
  const ids = Array.from({ length: AGENTS }, (_, i) => `bench_${i}`);
  await Promise.all(ids.map((id) => service.call("join", id, { agentId: id, roomId: "lobby" })));
  const latencies: number[] = [];
  let sent = 0;
  await Promise.all(
    ids.map(async (agentId, a) => {
      for (let i = 0; sent < acks; i++) {
        sent += 1;
        const txId = `tx_bench_${phaseId}_${a}_${i}`;
        const started = performance.now();
        const answer =
          i % 2 === 0
            ? await service.call("moveTo", agentId, {
                agentId,
                roomId: "lobby",
                txId,
                dest: { tx: 4 + ((i + a) % 8), ty: 5 + (a % 3) },
              })
            : await service.call("chatSend", agentId, {
                agentId,
                roomId: "lobby",
                txId,
                channel: "proximity",
                message: `bench ${i}`,
              });
        latencies.push(performance.now() - started);
        if (answer.status !== "ok" && answer.error.code !== "invalid_destination")
          throw new Error(JSON.stringify(answer));
        const readStarted = performance.now();
        const seen = await service.call("observe", agentId, {
          agentId,
          roomId: "lobby",
          radius: 4,
          detail: "lite",
        });
        r.readMs.push(performance.now() - readStarted);
        if (seen.status !== "ok") throw new Error(JSON.stringify(seen));
        // A steady rate rather than a flood: each agent waits a random fraction of a tick.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      }
    }),
  );
  host.runtime.stop();
  return latencies;
}

function summary(latencies: number[]) {
  const sorted = [...latencies].sort((x, y) => x - y);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

async function ackLatency() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-durable-"));
  try {
    const rigs = {
      volatile: await rig(undefined),
      durable: await rig(path.join(dir, "full.db"), "full"),
      osOnly: await rig(path.join(dir, "normal.db"), "normal"),
    };
    const lat = { volatile: [] as number[], durable: [] as number[], osOnly: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ["volatile", "durable", "osOnly"] as const)
        lat[name].push(...(await phase(rigs[name], ACKS_PER_PHASE, `${name}${round}`)));
    }
    const result = {
      tickRate: rigs.durable.host.definition.tickRate,
      durable: summary(lat.durable),
      osOnly: summary(lat.osOnly),
      volatile: summary(lat.volatile),
      readDurable: summary(rigs.durable.readMs),
      readVolatile: summary(rigs.volatile.readMs),
      commit: summary(rigs.durable.commitMs),
      commitOsOnly: summary(rigs.osOnly.commitMs),
      mirror: summary(rigs.durable.mirrorMs),
      mirrorOsOnly: summary(rigs.osOnly.mirrorMs),
    };
    for (const r of Object.values(rigs)) {
      r.host.runtime.stop();
      closeWorld(r.host, quiet);
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function recovery() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-recovery-"));
  try {
    const { definition } = await openWorld({
      worldDir: BUNDLED_WORLD_DIR,
      defaultRoomId: "lobby",
      storeFile: undefined,
      logger: quiet,
    });
    const file = path.join(dir, "world.db");
    const store = WorldStore.open(file);
    const live = World.create(definition);
    store.saveAutoSnapshot(snapshotEntry(live.snapshot()));
    const ids = Array.from({ length: AGENTS }, (_, i) => `agt_bench_${i}`);
    let acted = 0;
    for (let t = 1; t <= LOG_TICKS; t++) {
      let inputs: Input[] = [];
      if (t === 1) {
        inputs = ids.map((entityId) => ({ kind: "join", entityId, actorKind: "agent", name: entityId }));
      } else if (t % 2 === 0) {
        // Every other tick, two agents act (a move and a chat, both idempotent): a busy world.
        const a = ids[t % AGENTS]!;
        const b = ids[(t + 3) % AGENTS]!;
        inputs = [
          {
            kind: "moveTo",
            entityId: a,
            dest: { tx: 4 + (t % 8), ty: 5 + (t % 3) },
            tx: { key: `m${t}`, payloadHash: "p" },
          },
          {
            kind: "chat",
            entityId: b,
            channel: "proximity",
            message: `m${t}`,
            tx: { key: `c${t}`, payloadHash: "p" },
          },
        ];
        acted += 2;
      }
      commitTick(store, inputs, live.step(inputs));
    }
    store.close();
    const bytes = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const started = performance.now();
    const reopened = WorldStore.open(file);
    const { world, report } = recoverWorld(definition, reopened);
    const recoveryMs = performance.now() - started;
    reopened.close();
    if (report.replayedTicks !== LOG_TICKS || world.snapshotHash() !== live.snapshotHash())
      throw new Error(`recovery did not reproduce the run: ${JSON.stringify(report)}`);
    return { recoveryMs, actions: acted, bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The tick timer is unref'd (it must never keep a gateway alive); this keeps the bench process up.
const keepAlive = setInterval(() => {}, 1_000);
const lat = await ackLatency();
const loadAverage = (os.loadavg()[0] ?? 0).toFixed(1);
console.log(
  `ack latency (${AGENTS} agents, ${lat.durable.n} acks per mode, ${lat.tickRate} Hz ticks, includes the wait for the tick; load average ${loadAverage}):`,
);
const row = (label: string, x: { p50: number; p99: number }) =>
  console.log(`  ${label.padEnd(36)} p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms`);
row("durable (WAL, fsync every tick):", lat.durable);
row("durable to the OS (WAL, no fsync):", lat.osOnly);
row("volatile (no journal):", lat.volatile);
console.log(
  `  p99 added: ${(lat.durable.p99 - lat.volatile.p99).toFixed(2)} ms with fsync, ${(lat.osOnly.p99 - lat.volatile.p99).toFixed(2)} ms without`,
);
console.log(
  `  observe (its rate-limit grant saved before the answer when durable): p99 ${lat.readDurable.p99.toFixed(3)} ms durable, ${lat.readVolatile.p99.toFixed(3)} ms volatile`,
);
console.log(
  `  tick commit: p50 ${lat.commit.p50.toFixed(3)} ms, p99 ${lat.commit.p99.toFixed(3)} ms with fsync (${lat.commit.n} ticks); p50 ${lat.commitOsOnly.p50.toFixed(3)} ms, p99 ${lat.commitOsOnly.p99.toFixed(3)} ms without`,
);
console.log(
  `    of which the tick log's second copy: p50 ${lat.mirror.p50.toFixed(3)} ms, p99 ${lat.mirror.p99.toFixed(3)} ms with fsync; p99 ${lat.mirrorOsOnly.p99.toFixed(3)} ms without`,
);
const reads = await readThroughput();
console.log(
  `read throughput (${READERS} agents observing, each read in its own event-loop turn, ${ROUNDS} x ${READ_PHASE_MS} ms per mode; load average ${(os.loadavg()[0] ?? 0).toFixed(1)}):`,
);
console.log(
  `  durable, one write per turn: ${reads.batched.toFixed(0)} reads/s (${reads.readsPerWriteBatched.toFixed(1)} reads per write)`,
);
console.log(`  volatile: ${reads.volatile.toFixed(0)} reads/s`);
const rec = await recovery();
clearInterval(keepAlive);
console.log(
  `recovery of a ${LOG_TICKS}-tick log (${rec.actions} actions, ${(rec.bytes / 1024).toFixed(0)} KiB): ${rec.recoveryMs.toFixed(0)} ms`,
);
console.log(
  JSON.stringify({
    ackP50MsDurable: round2(lat.durable.p50),
    ackP50MsVolatile: round2(lat.volatile.p50),
    ackP99MsDurable: round2(lat.durable.p99),
    ackP99MsVolatile: round2(lat.volatile.p99),
    ackP99MsDurableNoFsync: round2(lat.osOnly.p99),
    readP99MsDurable: round2(lat.readDurable.p99),
    readP99MsVolatile: round2(lat.readVolatile.p99),
    readsPerSecDurable: Math.round(reads.batched),
    readsPerSecVolatile: Math.round(reads.volatile),
    readsDurableVsVolatile: round2(reads.batched / reads.volatile),
    readsPerWrite: round2(reads.readsPerWriteBatched),
    commitP99Ms: round2(lat.commit.p99),
    commitP99MsNoFsync: round2(lat.commitOsOnly.p99),
    mirrorP50Ms: round2(lat.mirror.p50),
    mirrorP99Ms: round2(lat.mirror.p99),
    mirrorP99MsNoFsync: round2(lat.mirrorOsOnly.p99),
    recoveryMs10kTicks: Math.round(rec.recoveryMs),
    loadAverage: Number(loadAverage),
  }),
);
