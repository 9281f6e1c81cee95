// A cluster room on a real nats-server: ticks go to the shared log before they are answered, a
// snapshot trims the log, and when another gateway takes the room (epoch + 1) it resumes from
// snapshot + log with every acknowledged action exactly once, while the deposed owner's next append
// is refused and it stops serving.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/support/test-nats.ts";
import { until } from "../../test/support/wait.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../runtime/load-world-dir.ts";
import type { WorldDefinition } from "../world/types.ts";
import { type ClusterRoom, takeRoom } from "./cluster-room.ts";
import { type ClusterResources, connectCluster } from "./nats.ts";
import { type LogRecord, lastSequence, readLog } from "./shared-log.ts";

const TTL = 2000;
const logger = { info: () => {}, warn: () => {}, error: () => {} };

let nats: TestNats;
let a: ClusterResources;
let b: ClusterResources;
let definition: WorldDefinition;
const rooms: ClusterRoom[] = [];

beforeAll(async () => {
  nats = await startNats();
  a = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
  b = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
  definition = await loadWorldDir(BUNDLED_WORLD_DIR);
});

afterAll(async () => {
  for (const room of rooms) await room.release().catch(() => undefined);
  await a?.close();
  await b?.close();
  await nats?.stop();
});

const options = (resources: ClusterResources, gatewayId: string) => ({
  resources,
  room: "town",
  definition,
  claimant: { gatewayId, baseUrl: `http://127.0.0.1/${gatewayId}` },
  leaseTtlMs: TTL,
  snapshotEveryTicks: 20,
  logger,
});

describe("a cluster room on the shared JetStream log", () => {
  it("fails over with every acknowledged action once, no tick twice; the deposed owner is fenced", {
    timeout: 120_000,
  }, async () => {
    const owner = (await takeRoom(options(a, "gw-a")))!;
    rooms.push(owner);
    expect(owner.lease.epoch).toBe(1);
    expect(await takeRoom(options(b, "gw-b"))).toBeUndefined();
    owner.runtime.start();

    const acked: string[] = [];
    expect(
      (await owner.runtime.submit({ kind: "join", entityId: "agt_c", actorKind: "agent", name: "C" })).ok,
    ).toBe(true);
    for (let i = 0; i < 30; i++) {
      const message = `hello ${i}`;
      const result = await owner.runtime.submit({
        kind: "chat",
        entityId: "agt_c",
        channel: "global",
        message,
        tx: { key: `agt_c:tx${i}`, payloadHash: `h${i}` },
      });
      if (result.ok) acked.push(message);
    }
    expect(acked).toHaveLength(30);
    // A snapshot was taken and the log behind it trimmed.
    await until(async () => (await a.snapshots.get("town"))?.operation === "PUT");
    const committedTick = owner.runtime.world.tick;

    // The owner is paused past its lease (as by SIGSTOP): its lease is gone and another gateway takes the room.
    await a.leases.purge("town");
    const next = (await takeRoom(options(b, "gw-b")))!;
    rooms.push(next);
    expect(next.lease.epoch).toBe(2);
    expect(next.restored.snapshotTick).toBeGreaterThan(0);
    expect(next.runtime.world.tick).toBeGreaterThanOrEqual(committedTick);
    const chats = next.runtime.world
      .chatHistoryFor("agt_c", "lobby", 0, 1000)
      .filter((m) => m.fromEntityId === "agt_c")
      .map((m) => m.message);
    expect(chats).toEqual(acked);
    // Idempotency carried over: a retry of an acknowledged action is answered, not applied again.
    expect(next.runtime.world.lookupTx("agt_c:tx3")?.payloadHash).toBe("h3");

    // The old owner's next append is refused: it stops serving and answers nothing more.
    const late = owner.runtime.submit({
      kind: "chat",
      entityId: "agt_c",
      channel: "global",
      message: "late",
    });
    await expect(late).rejects.toThrow();
    await until(() => owner.lostReason !== undefined);
    expect(owner.lostReason).toMatch(/deposed|lease/);
    expect(owner.runtime.running).toBe(false);

    next.runtime.start();
    expect(
      (await next.runtime.submit({ kind: "chat", entityId: "agt_c", channel: "global", message: "after" }))
        .ok,
    ).toBe(true);
    await next.release();

    // The log: ticks in order across both epochs, none twice, none of epoch 1 after epoch 2 began.
    const records: (LogRecord & { seq: number })[] = [];
    for await (const record of readLog(a, "town", 1, await lastSequence(a, "town"))) records.push(record);
    const ticks = records.filter((r) => r.kind === "tick");
    expect(records[0]?.seq).toBeGreaterThan(1); // trimmed behind a snapshot
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]!.tick).toBe(ticks[i - 1]!.tick + 1);
    const fenceAt = records.findIndex((r) => r.kind === "epoch" && r.epoch === 2);
    expect(fenceAt).toBeGreaterThanOrEqual(0);
    expect(records.slice(fenceAt).every((r) => r.epoch === 2)).toBe(true);
    expect(
      records.some(
        (r) => r.kind === "tick" && r.inputs.some((i) => i.kind === "chat" && i.message === "late"),
      ),
    ).toBe(false);
  });
});
