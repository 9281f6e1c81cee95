// Cluster benchmark, against a real nats-server on loopback (Debian nats-server):
// 1. Tick commit: the same ticks (one agent chatting every tick at 20 Hz) committed to the shared
//    JetStream log (append fenced by the expected last sequence, waited for its ack) and to the
//    node:sqlite store (WAL, fsync per tick), in the same run: p50/p99 per tick.
// 2. Takeover after kill -9: a separate process owns a room (bench/cluster-owner.ts: the production
//    takeRoom path) and chats every tick; it is killed with SIGKILL after 200 acknowledged chats, and
//    this process, standing by, takes the room (epoch + 1) from snapshot + log. takeoverMs is from the
//    kill to the room being served here; lostAcked counts acknowledged chats missing from the
//    restored world, duplicateTicks ticks logged more than once.
// 3. Portal handoff: two cluster rooms (worlds "north" and "south", each with a portal to the other)
//    owned here on two NATS connections, as by two gateways. A traveller joins beside north's portal
//    and steps on it; handoffMs is from the end of the north tick that stepped it onto the portal
//    (it left north in that tick) until south's tick that placed it is committed (the arrival
//    acknowledged): north's commit, the publish to OCW_TRANSFERS, south's consumer, its tick and
//    commit. Travellers go one at a time (OCW_BENCH_TRAVELLERS, default 50).
// Last line: one JSON object with the figures.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { takeRoom, waitForRoom } from "../src/cluster/cluster-room.ts";
import { connectCluster } from "../src/cluster/nats.ts";
import { lastSequence, readLog } from "../src/cluster/shared-log.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { commitTick } from "../src/runtime/persistence.ts";
import { WorldStore } from "../src/runtime/store.ts";
import { portalWorld } from "../src/world/testing/fixtures.ts";
import type { Input, StepResult } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";
import { startNats } from "../test/support/test-nats.ts";

const TTL_MS = 3000;
const COMMIT_TICKS = Number(process.env.OCW_BENCH_TICKS ?? 400);
const TRAVELLERS = Number(process.env.OCW_BENCH_TRAVELLERS ?? 50);
const quiet = { info: () => {}, warn: () => {}, error: (m: string) => console.error(m) };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}
const round = (n: number) => Math.round(n * 100) / 100;

const nats = await startNats();
const tmp = mkdtempSync(path.join(os.tmpdir(), "ocw-bench-cluster-"));
let owner: ChildProcess | undefined;
try {
  const definition = await loadWorldDir(BUNDLED_WORLD_DIR);
  const resources = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL_MS });

  // 1. Commit latency, JetStream then node:sqlite, on the same inputs.
  const room = (await takeRoom({
    resources,
    room: "bench-commit",
    definition,
    claimant: { gatewayId: "bench", baseUrl: "http://127.0.0.1:1" },
    leaseTtlMs: TTL_MS,
    snapshotEveryTicks: 1_000_000,
    logger: quiet,
  }))!;
  room.runtime.start();
  const inputs: Input[][] = [];
  await room.runtime.submit({ kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" });
  for (let i = 0; i < COMMIT_TICKS; i++) {
    await room.runtime.submit({ kind: "chat", entityId: "agt_b", channel: "global", message: `m${i}` });
  }
  const jetStreamMs = [...room.log.commitMs];
  await room.release();
  const store = WorldStore.open(path.join(tmp, "world.db"));
  const world = World.create(definition);
  const sqliteMs: number[] = [];
  inputs.push([{ kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" }]);
  for (let i = 0; i < COMMIT_TICKS; i++)
    inputs.push([{ kind: "chat", entityId: "agt_b", channel: "global", message: `m${i}` }]);
  for (const tickInputs of inputs) {
    const result = world.step(tickInputs);
    const started = performance.now();
    commitTick(store, tickInputs, result);
    sqliteMs.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 50)); // the same 20 Hz pace as the runtime's ticks
  }
  store.close();

  // 2. Takeover after kill -9 of the owning process.
  owner = spawn(
    process.execPath,
    [path.join(import.meta.dirname, "cluster-owner.ts"), nats.url, "bench-failover", String(TTL_MS)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const acked: string[] = [];
  let killedAt = 0;
  await new Promise<void>((resolve, reject) => {
    owner!.once("exit", () => resolve());
    owner!.once("error", reject);
    createInterface({ input: owner!.stdout! }).on("line", (line) => {
      if (!line.startsWith("ACK ") || killedAt) return;
      acked.push(line.slice(4));
      if (acked.length === 200) {
        killedAt = performance.now();
        owner!.kill("SIGKILL");
      }
    });
  });
  const next = await waitForRoom({
    resources,
    room: "bench-failover",
    definition,
    claimant: { gatewayId: "standby", baseUrl: "http://127.0.0.1:2" },
    leaseTtlMs: TTL_MS,
    snapshotEveryTicks: 100,
    logger: quiet,
    pollMs: 100,
  });
  const takeoverMs = performance.now() - killedAt;
  const chats = next.runtime.world
    .chatHistoryFor("agt_bench", "lobby", 0, 100_000)
    .filter((m) => m.fromEntityId === "agt_bench")
    .map((m) => m.message);
  const lostAcked = acked.filter((m) => !chats.includes(m)).length;
  const duplicateAcked = acked.filter((m) => chats.indexOf(m) !== chats.lastIndexOf(m)).length;
  const ticks: number[] = [];
  for await (const record of readLog(
    resources,
    "bench-failover",
    1,
    await lastSequence(resources, "bench-failover"),
  ))
    if (record.kind === "tick") ticks.push(record.tick);
  const duplicateTicks = ticks.length - new Set(ticks).size;
  await next.release();

  // 3. Portal handoff between two cluster rooms.
  const other = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL_MS });
  const take = async (on: typeof resources, name: string, definition: ReturnType<typeof portalWorld>) => {
    const taken = (await takeRoom({
      resources: on,
      room: name,
      definition,
      claimant: { gatewayId: `gw-${name}`, baseUrl: "http://127.0.0.1:3" },
      leaseTtlMs: TTL_MS,
      snapshotEveryTicks: 1_000_000,
      logger: quiet,
    }))!;
    taken.runtime.start();
    return taken;
  };
  const north = await take(resources, "north", portalWorld("north", "hall", "south", "yard"));
  const south = await take(other, "south", portalWorld("south", "yard", "north", "hall"));
  const leftAt = new Map<string, number>();
  // Stamped as the step returns: the tick in which the traveller stepped onto the portal and left.
  const northWorld = north.runtime.world as World;
  const step = northWorld.step.bind(northWorld);
  northWorld.step = (tickInputs): StepResult => {
    const result = step(tickInputs);
    const now = performance.now();
    for (const e of result.events)
      if (e.type === "presence.leave" && e.toWorldId === "south") leftAt.set(String(e.payload.entityId), now);
    return result;
  };
  const handoffMs: number[] = [];
  let arrived: (() => void) | undefined;
  south.handoff.onArrived((transfer) => {
    const left = leftAt.get(transfer.entityId);
    if (left !== undefined) handoffMs.push(performance.now() - left);
    arrived?.();
  });
  for (let i = 0; i < TRAVELLERS; i++) {
    const entityId = `agt_t${i}`;
    const placed = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    await north.runtime.submit({
      kind: "join",
      entityId,
      actorKind: "agent",
      name: `T${i}`,
      at: { tx: 7, ty: 4 },
    });
    await north.runtime.submit({ kind: "moveTo", entityId, dest: { tx: 8, ty: 4 } });
    await placed;
  }
  const handoffPublished = north.handoff.stats.published;
  await north.release();
  await south.release();
  await other.close();
  await resources.close();

  console.log(
    `tick commit p50/p99 ms: JetStream ${round(percentile(jetStreamMs, 50))}/${round(percentile(jetStreamMs, 99))}, node:sqlite ${round(percentile(sqliteMs, 50))}/${round(percentile(sqliteMs, 99))} (${jetStreamMs.length} and ${sqliteMs.length} ticks)`,
  );
  console.log(
    `takeover after kill -9: ${Math.round(takeoverMs)} ms (lease TTL ${TTL_MS} ms); ${acked.length} acknowledged, ${lostAcked} lost, ${duplicateAcked} twice; ${duplicateTicks} ticks logged twice of ${ticks.length} in the log`,
  );
  console.log(
    `portal handoff p50/p95 ms: ${round(percentile(handoffMs, 50))}/${round(percentile(handoffMs, 95))} (${handoffMs.length} travellers, ${handoffPublished} published)`,
  );
  console.log(
    JSON.stringify({
      takeoverMs: Math.round(takeoverMs),
      handoffP50Ms: round(percentile(handoffMs, 50)),
      handoffP95Ms: round(percentile(handoffMs, 95)),
      commitP50MsJetStream: round(percentile(jetStreamMs, 50)),
      commitP99MsJetStream: round(percentile(jetStreamMs, 99)),
      commitP50MsSqlite: round(percentile(sqliteMs, 50)),
      commitP99MsSqlite: round(percentile(sqliteMs, 99)),
      lostAcked,
      duplicateAcked,
      duplicateTicks,
      leaseTtlMs: TTL_MS,
    }),
  );
} finally {
  if (owner && owner.exitCode === null && owner.signalCode === null) owner.kill("SIGKILL");
  rmSync(tmp, { recursive: true, force: true });
  await nats.stop();
}
