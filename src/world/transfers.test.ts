// Portals to other worlds in the pure simulation: stepping on one removes the traveller in the tick
// and records the handoff as state (tick log, snapshots); the target world places an arrival once
// per transfer id, however often the record is delivered.
import { describe, expect, it } from "vitest";
import { OPERATOR_ENTITY_ID } from "./ids.ts";
import { portalWorld } from "./testing/fixtures.ts";
import { join, one, walkTo } from "./testing/helpers.ts";
import { OUTBOX_KEPT, type Transfer, TransferBook } from "./transfers.ts";
import { World } from "./world.ts";

const north = () => World.create(portalWorld("north", "hall", "south", "yard"));
const south = () => World.create(portalWorld("south", "yard", "north", "hall"));

/** An agent that walked onto north's portal: returns the world and the transfer it made. */
function departed(): { world: World; transfer: Transfer } {
  const world = north();
  expect(one(world, join("agt_ana")).ok).toBe(true);
  walkTo(world, "agt_ana", 7, 4);
  const walked = one(world, { kind: "moveTo", entityId: "agt_ana", dest: { tx: 8, ty: 4 } });
  expect(walked.ok).toBe(true);
  for (let i = 0; i < 100 && world.getEntity("agt_ana"); i++) world.step([]);
  const [transfer] = world.outgoingTransfers();
  return { world, transfer: transfer! };
}

describe("portals to another world", () => {
  it("remove the traveller in the tick and record the handoff, in snapshots too", () => {
    const { world, transfer } = departed();
    expect(world.getEntity("agt_ana")).toBeUndefined();
    expect(transfer).toMatchObject({
      fromWorld: "north",
      toWorld: "south",
      roomId: "yard",
      tile: { tx: 3, ty: 3 },
      entityId: "agt_ana",
      actorKind: "agent",
      name: "ana",
    });
    expect(transfer.id).toBe(`north:${transfer.tick}:agt_ana`);
    expect(world.departedTo("agt_ana")).toBe("south");
    const restored = World.restore(world.definition, world.snapshot());
    expect(restored.outgoingTransfers()).toEqual([transfer]);
    expect(restored.departedTo("agt_ana")).toBe("south");
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
  });

  it("name the other world in the presence.leave", () => {
    const world = north();
    one(world, join("agt_ana"));
    walkTo(world, "agt_ana", 7, 4);
    world.step([{ kind: "moveTo", entityId: "agt_ana", dest: { tx: 8, ty: 4 } }]);
    const leaves = [];
    for (let i = 0; i < 100 && leaves.length === 0; i++)
      leaves.push(...world.step([]).events.filter((e) => e.type === "presence.leave"));
    expect(leaves[0]).toMatchObject({
      toWorldId: "south",
      toRoomId: "yard",
      payload: { entityId: "agt_ana" },
    });
  });

  it("are marked sent by the host, and only then leave the outbox", () => {
    const { world, transfer } = departed();
    const marked = one(world, { kind: "transfersSent", entityId: OPERATOR_ENTITY_ID, ids: [transfer.id] });
    expect(marked).toMatchObject({ ok: true, value: { kind: "transfersSent", marked: 1 } });
    expect(world.outgoingTransfers()).toEqual([]);
    // The traveller is still known to have gone there (an agent's later request is sent on).
    expect(world.departedTo("agt_ana")).toBe("south");
    const refused = one(world, { kind: "transfersSent", entityId: "agt_ana", ids: [transfer.id] } as never);
    expect(refused.ok).toBe(false);
  });

  it("place an arrival once per transfer id", () => {
    const { transfer } = departed();
    const target = south();
    const arrive = { kind: "arrive" as const, entityId: transfer.entityId, transfer };
    const first = one(target, arrive);
    expect(first).toMatchObject({
      ok: true,
      value: { kind: "arrive", roomId: "yard", tile: { tx: 3, ty: 3 } },
    });
    expect(target.getEntity("agt_ana")).toMatchObject({
      roomId: "yard",
      tile: { tx: 3, ty: 3 },
      name: "ana",
    });
    walkTo(target, "agt_ana", 5, 5);
    // Delivered again (a new owner of north re-sent it): nobody is placed again.
    const again = one(target, arrive);
    expect(again).toMatchObject({ ok: true, value: { kind: "arrive", duplicate: true } });
    expect(target.getEntity("agt_ana")?.tile).toEqual({ tx: 5, ty: 5 });
    const joins = target
      .eventsFor("agt_ana", "yard", 0, 100)
      .events.filter((e) => e.type === "presence.join");
    expect(joins).toHaveLength(1);
    // A restored target still knows it applied the transfer.
    const restored = World.restore(target.definition, target.snapshot());
    expect(one(restored, arrive)).toMatchObject({ ok: true, value: { duplicate: true } });
  });

  it("place an arrival for a room the target does not have on a spawn of its default room", () => {
    const { transfer } = departed();
    const target = south();
    const lost = { ...transfer, roomId: "nowhere", tile: { tx: 99, ty: 99 } };
    expect(one(target, { kind: "arrive", entityId: lost.entityId, transfer: lost })).toMatchObject({
      ok: true,
      value: { roomId: "yard", tile: { tx: 2, ty: 2 } },
    });
  });

  it("refuse a malformed arrival with a typed error", () => {
    const target = south();
    const { transfer } = departed();
    for (const bad of [
      { ...transfer, entityId: "agt_other" },
      { ...transfer, id: "" },
      { ...transfer, actorKind: "human" },
      { ...transfer, tile: { tx: -1, ty: 0 } },
      { ...transfer, toWorld: "a/b" },
    ]) {
      const result = one(target, { kind: "arrive", entityId: "agt_ana", transfer: bad } as never);
      expect(result).toMatchObject({ ok: false, error: { code: "bad_request" } });
    }
    expect(target.getEntity("agt_ana")).toBeUndefined();
  });

  it("keep a bounded outbox when nothing sends it (a world run without a cluster)", () => {
    const book = new TransferBook();
    const { transfer } = departed();
    for (let i = 0; i <= OUTBOX_KEPT; i++) book.depart({ ...transfer, id: `north:${i}:agt_ana` });
    expect(book.outgoing).toHaveLength(OUTBOX_KEPT);
    expect(book.outgoing[0]?.id).toBe("north:1:agt_ana");
  });

  it("replay to the same state (the transfer is world state, stepped from the log)", () => {
    const a = departed().world;
    const b = departed().world;
    expect(a.snapshotHash()).toBe(b.snapshotHash());
  });
});
