// Cluster benchmark (#28), against a real nats-server on loopback (Debian nats-server):
// 1. Tick commit: the same ticks (one agent chatting every tick at 20 Hz) committed to the shared
//    JetStream log (append fenced by the expected last sequence, waited for its ack) and to the
//    node:sqlite store (WAL, fsync per tick), in the same run: p50/p99 per tick.
// 2. Takeover after kill -9: a separate process owns a room (bench/cluster-owner.ts: the production
//    takeRoom path) and chats every tick; it is killed with SIGKILL after 200 acknowledged chats, and
//    this process, standing by, takes the room (epoch + 1) from snapshot + log. takeoverMs is from the
//    kill to the room being served here; lostAcked counts acknowledged chats missing from the
//    restored world, duplicateTicks ticks logged more than once.
// Portals between gateways are not built, so there is no handoff figure (handoffP95Ms: null).
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
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";
import { startNats } from "../test/support/nats.ts";

const TTL_MS = 3000;
const COMMIT_TICKS = Number(process.env.OCW_BENCH_TICKS ?? 400);
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
  await resources.close();

  console.log(
    `tick commit p50/p99 ms: JetStream ${round(percentile(jetStreamMs, 50))}/${round(percentile(jetStreamMs, 99))}, node:sqlite ${round(percentile(sqliteMs, 50))}/${round(percentile(sqliteMs, 99))} (${jetStreamMs.length} and ${sqliteMs.length} ticks)`,
  );
  console.log(
    `takeover after kill -9: ${Math.round(takeoverMs)} ms (lease TTL ${TTL_MS} ms); ${acked.length} acknowledged, ${lostAcked} lost, ${duplicateAcked} twice; ${duplicateTicks} ticks logged twice of ${ticks.length} in the log`,
  );
  console.log(
    JSON.stringify({
      takeoverMs: Math.round(takeoverMs),
      handoffP95Ms: null,
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
