import { describe, expect, it } from "vitest";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import { World } from "./world.ts";

function worldWithA(): World {
  const world = World.create(smallWorld());
  one(world, join("agt_a"));
  return world;
}

describe("moveTo", () => {
  it("walks around the wall through the door gap (A*, tile centres)", () => {
    const world = worldWithA();
    expect(world.getEntity("agt_a")!.tile).toEqual({ tx: 2, ty: 2 });
    const r = one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 14, ty: 2 } });
    expect(r.ok && r.value).toEqual({ kind: "moveTo", result: "accepted", pathLength: expect.any(Number) });
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      world.step([]);
      const e = world.getEntity("agt_a")!;
      seen.add(`${e.tile.tx},${e.tile.ty}`);
      expect(world.isBlocked("a", e.tile)).toBe(false);
    }
    expect(world.getEntity("agt_a")!.tile).toEqual({ tx: 14, ty: 2 });
    expect(world.getEntity("agt_a")!.pos).toEqual({ x: 14.5 * 32, y: 2.5 * 32 });
    expect(world.getEntity("agt_a")!.speed).toBe(0);
    expect(seen.has("10,9")).toBe(true); // it had to use the doorway
  });

  it("moves walkSpeed/tickRate per tick and faces its direction", () => {
    const world = worldWithA();
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 8, ty: 2 } });
    const e = world.getEntity("agt_a")!;
    expect(e.pos.x).toBeCloseTo(2.5 * 32 + 128 / 20, 9);
    expect(e.facing).toBe("right");
    expect(e.speed).toBe(128);
  });

  it("rejects out-of-bounds, blocked and unreachable destinations; same tile is no_op", () => {
    const world = worldWithA();
    const err = (dest: { tx: number; ty: number }) => {
      const r = one(world, { kind: "moveTo", entityId: "agt_a", dest });
      return r.ok ? r.value : r.error.code;
    };
    expect(err({ tx: 20, ty: 2 })).toBe("invalid_destination");
    expect(err({ tx: -1, ty: 2 })).toBe("invalid_destination");
    expect(err({ tx: 0, ty: 0 })).toBe("collision_blocked");
    expect(err({ tx: 10, ty: 3 })).toBe("collision_blocked");
    expect(err({ tx: 2, ty: 2 })).toEqual({ kind: "moveTo", result: "no_op", pathLength: 0 });
    // Close the door: the east half becomes unreachable.
    walkTo(world, "agt_a", 9, 8);
    const close = one(world, {
      kind: "interact",
      entityId: "agt_a",
      targetId: "obj_door_a",
      action: "close",
    });
    expect(close.ok && close.value).toEqual({
      kind: "interact",
      outcome: { type: "ok", message: "The door closes." },
    });
    expect(err({ tx: 14, ty: 2 })).toBe("collision_blocked");
    expect(err({ tx: 10, ty: 9 })).toBe("collision_blocked");
  });

  it("a new move replaces the old one", () => {
    const world = worldWithA();
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 8, ty: 2 } });
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 2, ty: 6 } });
    run(world, 100);
    expect(world.getEntity("agt_a")!.tile).toEqual({ tx: 2, ty: 6 });
  });

  it("stops (or re-paths) when a door closes on its path", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    one(world, join("agt_b"));
    walkTo(world, "agt_b", 9, 10);
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 14, ty: 2 } });
    run(world, 5);
    const closed = one(world, {
      kind: "interact",
      entityId: "agt_b",
      targetId: "obj_door_a",
      action: "close",
    });
    expect(closed.ok && closed.value.kind === "interact" && closed.value.outcome.type).toBe("ok");
    run(world, 300);
    const a = world.getEntity("agt_a")!;
    expect(a.speed).toBe(0);
    expect(a.tile.tx).toBeLessThan(10); // never walked through the closed door
  });
});

describe("moveDir", () => {
  it("clamps at walls and slides along them", () => {
    const world = worldWithA();
    one(world, { kind: "moveDir", entityId: "agt_a", dx: -1, dy: -1 });
    run(world, 60);
    const e = world.getEntity("agt_a")!;
    // Pressed into the top-left corner: the body (0.7 tile) touches the border walls.
    expect(e.pos.x).toBeCloseTo(32 + 0.35 * 32, 6);
    expect(e.pos.y).toBeCloseTo(32 + 0.35 * 32, 6);
    expect(e.tile).toEqual({ tx: 1, ty: 1 });
    // Slide: pushing right+up along the top wall still moves right.
    one(world, { kind: "moveDir", entityId: "agt_a", dx: 1, dy: -1 });
    const before = world.getEntity("agt_a")!.pos;
    run(world, 10);
    const after = world.getEntity("agt_a")!.pos;
    expect(after.y).toBeCloseTo(before.y, 9);
    expect(after.x).toBeGreaterThan(before.x + 30);
    expect(world.getEntity("agt_a")!.facing).toBe("right");
  });

  it("never enters a blocked tile and (0,0) stops", () => {
    const world = worldWithA();
    one(world, { kind: "moveDir", entityId: "agt_a", dx: 1, dy: 0 });
    run(world, 100);
    const e = world.getEntity("agt_a")!;
    expect(e.pos.x).toBeCloseTo(10 * 32 - 0.35 * 32, 6);
    one(world, { kind: "moveDir", entityId: "agt_a", dx: 0, dy: 0 });
    const stopped = world.getEntity("agt_a")!.pos;
    run(world, 5);
    expect(world.getEntity("agt_a")!.pos).toEqual(stopped);
    expect(world.getEntity("agt_a")!.speed).toBe(0);
  });

  it("rejects bad directions", () => {
    const world = worldWithA();
    const r = one(world, { kind: "moveDir", entityId: "agt_a", dx: 2, dy: 0 });
    expect(!r.ok && r.error.code).toBe("bad_request");
  });
});
