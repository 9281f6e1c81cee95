// Portals between cluster rooms on a real nats-server: a traveller that steps through a portal on
// one room's owner is placed in the other room exactly once, also when the transfer is delivered
// again after a failover, and a transfer to a room nobody owns yet waits in the stream until the
// room is taken; an arrival whose tick is never committed (its room lost) is given back at once, so
// the room's next owner gets it without waiting out the consumer's ack wait.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/support/test-nats.ts";
import { until } from "../../test/support/wait.ts";
import { portalWorld } from "../world/testing/fixtures.ts";
import type { Transfer } from "../world/transfers.ts";
import { type ClusterRoom, takeRoom } from "./cluster-room.ts";
import { ARRIVAL_ACK_WAIT_MS } from "./handoff.ts";
import { type ClusterResources, connectCluster, TRANSFER_STREAM, transferSubject } from "./nats.ts";

const TTL = 2000;
const logger = { info: () => {}, warn: () => {}, error: () => {} };
const north = portalWorld("north", "hall", "south", "yard");
const south = portalWorld("south", "yard", "north", "hall");
const west = portalWorld("west", "yard", "north", "hall");

let nats: TestNats;
const connections: ClusterResources[] = [];
const rooms: ClusterRoom[] = [];

beforeAll(async () => {
  nats = await startNats();
});

afterAll(async () => {
  for (const room of rooms) await room.release().catch(() => undefined);
  for (const c of connections) await c.close();
  await nats?.stop();
});

async function gateway(): Promise<ClusterResources> {
  const resources = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
  connections.push(resources);
  return resources;
}

const worlds = { north, south, west };

/** Takes `room` as `gatewayId`; its runtime ticks unless `ticking` is false. */
async function take(
  resources: ClusterResources,
  gatewayId: string,
  room: keyof typeof worlds,
  ticking = true,
) {
  const taken = await takeRoom({
    resources,
    room,
    definition: worlds[room],
    claimant: { gatewayId, baseUrl: `http://127.0.0.1/${gatewayId}` },
    leaseTtlMs: TTL,
    snapshotEveryTicks: 10_000,
    logger,
  });
  if (!taken) throw new Error(`${gatewayId} could not take ${room}`);
  rooms.push(taken);
  if (ticking) taken.runtime.start();
  return taken;
}

/** Joins `entityId` in north and walks it onto the portal; resolves once it has left north. */
async function walkThrough(owner: ClusterRoom, entityId: string): Promise<void> {
  const runtime = owner.runtime;
  expect(
    (await runtime.submit({ kind: "join", entityId, actorKind: "agent", name: entityId.slice(4) })).ok,
  ).toBe(true);
  expect((await runtime.submit({ kind: "moveTo", entityId, dest: { tx: 8, ty: 4 } })).ok).toBe(true);
  await until(() => runtime.world.departedTo(entityId) === "south");
}

async function waiting(resources: ClusterResources): Promise<number> {
  const jsm = await jetstreamManager(resources.nc);
  const info = await jsm.streams.info(TRANSFER_STREAM, { subjects_filter: transferSubject("south") });
  return info.state.subjects?.[transferSubject("south")] ?? 0;
}

const joinsOf = (room: ClusterRoom, entityId: string) =>
  room.runtime.world
    .eventsFor(entityId, "yard", 0, 1000)
    .events.filter((e) => e.type === "presence.join" && e.payload.entityId === entityId);

describe("portals between cluster rooms", () => {
  it("hand a traveller over exactly once, across a failover, and wait for a room nobody owns", {
    timeout: 120_000,
  }, async () => {
    const a = await gateway();
    const b = await gateway();
    const c = await gateway();
    const northOnA = await take(a, "gw-a", "north");

    // South has no owner yet: the transfer waits in the stream, and north marks it sent.
    await walkThrough(northOnA, "agt_ana");
    await until(() => northOnA.runtime.world.outgoingTransfers().length === 0);
    expect(await waiting(a)).toBe(1);

    const southOnB = await take(b, "gw-b", "south");
    await until(() => southOnB.runtime.world.getEntity("agt_ana") !== undefined);
    expect(southOnB.runtime.world.getEntity("agt_ana")).toMatchObject({
      roomId: "yard",
      tile: { tx: 3, ty: 3 },
    });
    await until(async () => (await waiting(a)) === 0);

    // North's owner publishes bo's transfer and dies before marking it sent (its handoff stops).
    northOnA.handoff.stop();
    await walkThrough(northOnA, "agt_bo");
    const [bo] = northOnA.runtime.world.outgoingTransfers() as Transfer[];
    expect(bo?.entityId).toBe("agt_bo");
    const js = jetstream(a.nc);
    const first = await js.publish(transferSubject("south"), JSON.stringify(bo), { msgID: bo!.id });
    expect(first.duplicate).toBe(false);
    await until(() => southOnB.runtime.world.getEntity("agt_bo") !== undefined);

    // Failover: gw-c takes north, restores bo's unmarked transfer and sends it again; JetStream drops it.
    await a.leases.purge("north");
    const northOnC = await take(c, "gw-c", "north");
    expect(northOnC.restored.replayedTicks).toBeGreaterThan(0);
    await until(() => northOnC.runtime.world.outgoingTransfers().length === 0);
    expect(northOnC.handoff.stats.published).toBe(1);
    const again = await js.publish(transferSubject("south"), JSON.stringify(bo), { msgID: bo!.id });
    expect(again.duplicate).toBe(true);

    // Past JetStream's duplicate window (another message id): the target's applied ids drop it.
    await js.publish(transferSubject("south"), JSON.stringify(bo), { msgID: `${bo!.id}:late` });
    await until(() => southOnB.handoff.stats.duplicates === 1);
    expect(southOnB.handoff.stats.arrived).toBe(2);
    expect(joinsOf(southOnB, "agt_ana")).toHaveLength(1);
    expect(joinsOf(southOnB, "agt_bo")).toHaveLength(1);
    await until(async () => (await waiting(a)) === 0);

    // South's next owner restores both arrivals, and still knows them applied.
    await b.leases.purge("south");
    const southOnC = await take(c, "gw-c2", "south");
    expect(southOnC.runtime.world.getEntity("agt_bo")).toBeDefined();
    const replay = await southOnC.runtime.submit({ kind: "arrive", entityId: "agt_bo", transfer: bo! });
    expect(replay).toMatchObject({ ok: true, value: { duplicate: true } });
  });
});

describe("an arrival whose tick is not committed", () => {
  it("goes to the room's next owner well before the ack wait, applied there once", {
    timeout: 120_000,
  }, async () => {
    const b = await gateway();
    const c = await gateway();
    // West's owner does not tick: the arrival waits in its queue, its tick never committed.
    const westOnB = await take(b, "gw-b", "west", false);
    const transfer: Transfer = {
      id: "north:7:agt_cy",
      fromWorld: "north",
      toWorld: "west",
      roomId: "yard",
      tile: { tx: 3, ty: 3 },
      entityId: "agt_cy",
      actorKind: "agent",
      name: "cy",
      tick: 7,
    };
    await jetstream(b.nc).publish(transferSubject("west"), JSON.stringify(transfer), { msgID: transfer.id });
    await until(() => westOnB.runtime.health().queueDepth === 1);
    // Delivered to B by now: without a nak, JetStream would not deliver it again before this.
    const redeliveredBy = performance.now() + ARRIVAL_ACK_WAIT_MS;

    // B loses the room (another gateway's doing, as far as it can tell): the queued arrival is
    // refused, and its message given back although B's handoff is stopping with the room.
    await b.leases.purge("west");
    await westOnB.lease.renew();
    expect(westOnB.lostReason).toMatch(/deposed/);
    expect(westOnB.runtime.world.getEntity("agt_cy")).toBeUndefined();

    const westOnC = await take(c, "gw-c", "west");
    await until(
      () => westOnC.runtime.world.getEntity("agt_cy") !== undefined,
      Math.max(0, redeliveredBy - performance.now() - 1_000),
    );
    expect(westOnC.runtime.world.getEntity("agt_cy")).toMatchObject({
      roomId: "yard",
      tile: { tx: 3, ty: 3 },
    });
    await until(() => westOnC.handoff.stats.arrived === 1);
    expect(westOnC.handoff.stats.duplicates).toBe(0);
  });
});
