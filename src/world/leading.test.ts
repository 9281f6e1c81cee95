// Walking with someone (leading.ts, actions/lead.ts) and nobody ending a walk on another's tile
// (free-tile.ts): deterministic, on the small fixture world (a wall at x = 10 whose gap at row 9 holds
// an open door; a portal at (15, 5) to room b).
import { describe, expect, it } from "vitest";
import { LEADING } from "./leading.ts";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one, run } from "./testing/helpers.ts";
import type { Input, TileCoord } from "./types.ts";
import { World } from "./world.ts";

const def = smallWorld();

function worldWith(...at: [string, TileCoord][]): World {
  const world = World.create(def);
  for (const [id, tile] of at) one(world, { ...join(id), at: tile } as Input);
  return world;
}

const tileOf = (world: World, id: string) => world.getEntity(id)!.tile;
const gap = (world: World, a: string, b: string) => {
  const ea = world.getEntity(a)!;
  const eb = world.getEntity(b)!;
  if (ea.roomId !== eb.roomId) return Number.POSITIVE_INFINITY;
  return Math.max(Math.abs(ea.tile.tx - eb.tile.tx), Math.abs(ea.tile.ty - eb.tile.ty));
};
const lead = (entityId: string, dest: TileCoord, withId: string): Input => ({
  kind: "lead",
  entityId,
  dest,
  with: withId,
});

describe("lead: walking with someone", () => {
  it("waits when the follower stays behind, then gives up (left_behind) after giveUpSec, standing", () => {
    const world = worldWith(["agt_a", { tx: 2, ty: 2 }], ["hum_c", { tx: 2, ty: 3 }]);
    const r = one(world, lead("agt_a", { tx: 9, ty: 2 }, "hum_c"));
    expect(r.ok && r.value).toEqual({ kind: "lead", result: "accepted", pathLength: 7 });
    run(world, 100);
    // It walked on while within behindTiles, then stopped to wait.
    expect(gap(world, "agt_a", "hum_c")).toBe(LEADING.behindTiles + 1);
    expect(world.getEntity("agt_a")).toMatchObject({ speed: 0, lead: { with: "hum_c", state: "waiting" } });
    const waitedAt = tileOf(world, "agt_a");
    run(world, LEADING.giveUpSec * def.tickRate);
    expect(world.getEntity("agt_a")!.lead).toEqual({ with: "hum_c", state: "left_behind" });
    expect(tileOf(world, "agt_a")).toEqual(waitedAt);
    run(world, 20);
    expect(tileOf(world, "agt_a")).toEqual(waitedAt);
  });

  it("walks on once the follower catches up, and arrives with them (arrived_together)", () => {
    const world = worldWith(["agt_a", { tx: 2, ty: 2 }], ["hum_c", { tx: 2, ty: 3 }]);
    one(world, lead("agt_a", { tx: 9, ty: 2 }, "hum_c"));
    run(world, 100);
    expect(world.getEntity("agt_a")!.lead?.state).toBe("waiting");
    one(world, { kind: "moveTo", entityId: "hum_c", dest: { tx: 8, ty: 3 } });
    let ended = 0;
    for (let i = 0; i < 300 && !ended; i++) {
      world.step([]);
      if (world.getEntity("agt_a")!.lead?.state === "arrived_together") ended = i;
    }
    expect(ended).toBeGreaterThan(0);
    expect(tileOf(world, "agt_a")).toEqual({ tx: 9, ty: 2 });
    expect(gap(world, "agt_a", "hum_c")).toBeLessThanOrEqual(LEADING.nearTiles);
  });

  it("waits before a door and before a portal until the follower is near, and goes through with them", () => {
    const world = worldWith(["agt_a", { tx: 6, ty: 8 }], ["hum_c", { tx: 4, ty: 8 }]);
    one(world, lead("agt_a", { tx: 15, ty: 5 }, "hum_c"));
    const doorIndex = 9 * 20 + 10;
    let waitedAtDoor = false;
    let waitedAtPortal = false;
    let through = -1;
    for (let tick = 0; tick < 2000 && through < 0; tick++) {
      const a = world.getEntity("agt_a")!;
      // A slow follower: it moves only while the leader waits, and then only to 3 tiles behind it.
      if (a.lead?.state === "waiting" && a.roomId === "a") {
        const here = a.tile;
        if (here.tx === 9 && here.ty === 9) waitedAtDoor = true;
        if (Math.max(Math.abs(here.tx - 15), Math.abs(here.ty - 5)) === 1) waitedAtPortal = true;
        const c = world.getEntity("hum_c")!;
        if (c.speed === 0 && gap(world, "agt_a", "hum_c") > LEADING.nearTiles) {
          const toward = { tx: here.tx - Math.sign(here.tx - c.tile.tx), ty: here.ty };
          one(world, { kind: "moveTo", entityId: "hum_c", dest: toward.tx === here.tx ? c.tile : toward });
          continue;
        }
      }
      // Never on the door's tile or through the portal with the follower further than nearTiles.
      if (a.tile.ty * 20 + a.tile.tx === doorIndex)
        expect(gap(world, "agt_a", "hum_c")).toBeLessThanOrEqual(LEADING.nearTiles + 1);
      if (a.roomId === "b") through = tick;
      else world.step([]);
    }
    expect(waitedAtDoor || waitedAtPortal).toBe(true);
    expect(through).toBeGreaterThan(0);
    world.step([]);
    expect(world.getEntity("agt_a")).toMatchObject({ roomId: "b", lead: { state: "arrived_together" } });
  });

  it("a follower not yet in the room (coming through a portal) is waited for", () => {
    const world = worldWith(["agt_a", { tx: 14, ty: 6 }], ["hum_c", { tx: 12, ty: 5 }]);
    // The leader goes through first (the follower is near), then leads on in room b.
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 15, ty: 5 } });
    run(world, 20);
    expect(world.getEntity("agt_a")!.roomId).toBe("b");
    // Straight down from where the portal set it (3, 3): the way crosses no portal.
    one(world, lead("agt_a", { tx: 3, ty: 8 }, "hum_c"));
    run(world, 40);
    expect(world.getEntity("agt_a")).toMatchObject({ speed: 0, lead: { state: "waiting" } });
    one(world, { kind: "moveTo", entityId: "hum_c", dest: { tx: 15, ty: 5 } });
    let arrived = false;
    for (let i = 0; i < 400 && !arrived; i++) {
      const c = world.getEntity("hum_c")!;
      const a = world.getEntity("agt_a")!;
      if (c.roomId === "b" && c.speed === 0 && gap(world, "agt_a", "hum_c") > 1)
        one(world, { kind: "moveTo", entityId: "hum_c", dest: a.tile });
      else world.step([]);
      arrived = world.getEntity("agt_a")!.lead?.state === "arrived_together";
    }
    expect(arrived).toBe(true);
    expect(world.getEntity("agt_a")!.roomId).toBe("b");
    expect(tileOf(world, "agt_a")).toEqual({ tx: 3, ty: 8 });
  });

  it("refuses to lead oneself; waits for one not in the world; a new move ends the lead", () => {
    const world = worldWith(["agt_a", { tx: 2, ty: 2 }], ["hum_c", { tx: 2, ty: 3 }]);
    const self = one(world, lead("agt_a", { tx: 5, ty: 2 }, "agt_a"));
    expect(!self.ok && self.error.code).toBe("bad_request");
    const object = one(world, lead("agt_a", { tx: 5, ty: 2 }, "obj_door_a"));
    expect(!object.ok && object.error.code).toBe("bad_request");
    one(world, lead("agt_a", { tx: 5, ty: 2 }, "hum_zz"));
    run(world, 3);
    expect(world.getEntity("agt_a")).toMatchObject({ speed: 0, lead: { with: "hum_zz", state: "waiting" } });
    expect(tileOf(world, "agt_a")).toEqual({ tx: 2, ty: 2 });
    one(world, lead("agt_a", { tx: 5, ty: 2 }, "hum_c"));
    expect(world.getEntity("agt_a")!.lead?.state).toBe("walking");
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 2, ty: 6 } });
    expect(world.getEntity("agt_a")!.lead).toBeUndefined();
  });

  it("a lead survives a snapshot and restore: the same run, hash for hash", () => {
    const world = worldWith(["agt_a", { tx: 2, ty: 2 }], ["hum_c", { tx: 2, ty: 3 }]);
    one(world, lead("agt_a", { tx: 9, ty: 2 }, "hum_c"));
    run(world, 90);
    const restored = World.restore(def, JSON.parse(JSON.stringify(world.snapshot())));
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
    for (let i = 0; i < 60; i++) {
      world.step([]);
      restored.step([]);
    }
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
    expect(restored.getEntity("agt_a")!.lead).toEqual(world.getEntity("agt_a")!.lead);
  });
});

describe("a lead never ends on another's tile; a moveTo ends on its destination", () => {
  it("a moveTo to a tile someone stands on ends there (the PRD's moveTo)", () => {
    const world = worldWith(["agt_a", { tx: 2, ty: 2 }], ["agt_b", { tx: 7, ty: 2 }]);
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 7, ty: 2 } });
    run(world, 100);
    expect(tileOf(world, "agt_a")).toEqual({ tx: 7, ty: 2 });
    expect(tileOf(world, "agt_b")).toEqual({ tx: 7, ty: 2 });
  });

  it("a lead whose goal someone stands on ends on the free tile beside it, standing", () => {
    const world = worldWith(
      ["agt_a", { tx: 4, ty: 2 }],
      ["hum_c", { tx: 3, ty: 2 }],
      ["agt_b", { tx: 7, ty: 2 }],
    );
    one(world, lead("agt_a", { tx: 7, ty: 2 }, "hum_c"));
    run(world, 100);
    const a = tileOf(world, "agt_a");
    expect(a).not.toEqual({ tx: 7, ty: 2 });
    expect(Math.max(Math.abs(a.tx - 7), Math.abs(a.ty - 2))).toBe(1);
    expect(world.getEntity("agt_a")!.speed).toBe(0);
    expect(tileOf(world, "agt_b")).toEqual({ tx: 7, ty: 2 });
  });

  it("a walk to a portal's tile is a walk onto it, whoever stood there", () => {
    const world = worldWith(["agt_a", { tx: 13, ty: 5 }]);
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 15, ty: 5 } });
    run(world, 30);
    expect(world.getEntity("agt_a")!.roomId).toBe("b");
  });
});
