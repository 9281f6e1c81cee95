// Durability benchmark.
// 1. Ack latency: 10 agents send moveTo/chatSend through the real AicService to a ticking world, with
//    durability on (the production store: node:sqlite, WAL, fsync per tick) and off (no journal), in
//    alternating phases of the same run. An ack is the answer to the caller; it includes the wait for
//    the next tick (up to 1000 / tickRate ms), so compare the two columns, not either with zero.
// 2. The durable tick commit itself (the write + fsync the tick waits for), per tick.
// 3. Recovery: rebuilding the world from a snapshot plus a 10,000-tick log (open + verify + replay).
// Last line: one JSON object with the figures.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RateLimiter } from "../src/aic/rate-limit.ts";
import { AicService } from "../src/aic/service.ts";
import { resolveConfig } from "../src/config/config.ts";
import { createHost, disposeHost, type WorldHost } from "../src/plugin/host.ts";
import { commitTick, recoverWorld, snapshotEntry } from "../src/runtime/persistence.ts";
import { WorldStore } from "../src/runtime/store.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const AGENTS = 10;
const ACKS_PER_PHASE = Number(process.env.DURABILITY_BENCH_ACKS ?? 1_000);
const ROUNDS = 3;
const LOG_TICKS = 10_000;
const quiet = { info() {}, warn() {}, error() {} };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

interface Rig {
  host: WorldHost;
  service: AicService;
  commitMs: number[];
}

async function rig(stateDir: string | undefined): Promise<Rig> {
  const config = resolveConfig({ rateLimits: { disabled: true }, snapshot: { intervalSec: 3600 } });
  const host = await createHost({ config, logger: quiet, ...(stateDir ? { stateDir } : {}) });
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
  const service = new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  return { host, service, commitMs };
}

/** Steady load until `acks` answers arrived; returns each answer's latency in ms. */
async function phase(r: Rig, acks: number, phaseId: string): Promise<number[]> {
  const { host, service } = r;
  host.runtime.start();
  const ids = Array.from({ length: AGENTS }, (_, i) => `bench_${i}`);
  await Promise.all(ids.map((id) => service.join(id, { agentId: id, roomId: "lobby" })));
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
            ? await service.moveTo(agentId, {
                agentId,
                roomId: "lobby",
                txId,
                dest: { tx: 4 + ((i + a) % 8), ty: 5 + (a % 3) },
              })
            : await service.chatSend(agentId, {
                agentId,
                roomId: "lobby",
                txId,
                channel: "proximity",
                message: `bench ${i}`,
              });
        latencies.push(performance.now() - started);
        if (answer.status !== "ok" && answer.error.code !== "invalid_destination")
          throw new Error(JSON.stringify(answer));
        // A steady rate rather than a flood: each agent waits a random fraction of a tick.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      }
    }),
  );
  host.runtime.stop();
  return latencies;
}

async function ackLatency() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-durable-"));
  try {
    const durable = await rig(dir);
    const volatile = await rig(undefined);
    const durableLat: number[] = [];
    const volatileLat: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      volatileLat.push(...(await phase(volatile, ACKS_PER_PHASE, `v${round}`)));
      durableLat.push(...(await phase(durable, ACKS_PER_PHASE, `d${round}`)));
    }
    const commits = [...durable.commitMs].sort((x, y) => x - y);
    await disposeHost(durable.host, quiet);
    await disposeHost(volatile.host, quiet);
    durableLat.sort((x, y) => x - y);
    volatileLat.sort((x, y) => x - y);
    return {
      tickRate: durable.host.definition.tickRate,
      durable: { p50: percentile(durableLat, 50), p99: percentile(durableLat, 99), n: durableLat.length },
      volatile: { p50: percentile(volatileLat, 50), p99: percentile(volatileLat, 99), n: volatileLat.length },
      commit: { p50: percentile(commits, 50), p99: percentile(commits, 99), n: commits.length },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function recovery() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-recovery-"));
  try {
    const host = await createHost({ config: resolveConfig({}), logger: quiet });
    const definition = host.definition;
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
console.log(
  `ack latency (${AGENTS} agents, ${lat.durable.n} + ${lat.volatile.n} acks, ${lat.tickRate} Hz ticks, includes the wait for the tick):`,
);
console.log(
  `  durable (WAL, fsync per tick): p50 ${lat.durable.p50.toFixed(2)} ms, p99 ${lat.durable.p99.toFixed(2)} ms`,
);
console.log(
  `  volatile (no journal):         p50 ${lat.volatile.p50.toFixed(2)} ms, p99 ${lat.volatile.p99.toFixed(2)} ms`,
);
console.log(
  `  p99 added by durability: ${(lat.durable.p99 - lat.volatile.p99).toFixed(2)} ms; the tick commit itself: p50 ${lat.commit.p50.toFixed(3)} ms, p99 ${lat.commit.p99.toFixed(3)} ms over ${lat.commit.n} ticks`,
);
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
    commitP99Ms: round2(lat.commit.p99),
    recoveryMs10kTicks: Math.round(rec.recoveryMs),
  }),
);
