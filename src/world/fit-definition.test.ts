import { describe, expect, it } from "vitest";
import { definitionFromWire, definitionToWire } from "./definition-wire.ts";
import { fitSnapshot, WORLD_NOTICE_ENTITY_ID } from "./fit-definition.ts";
import { OPERATOR_ENTITY_ID } from "./ids.ts";
import { validateFittedSnapshot, validateSnapshot, type WorldState } from "./snapshot.ts";
import { type FixtureRoom, fixtureWorld, openRoom } from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import type { Input, WorldDefinition, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";

function roomA(wallAt?: { tx: number; ty: number }, extra: FixtureRoom["objects"] = []): FixtureRoom {
  const rows = openRoom(16, 10).map((row, y) =>
    wallAt && y === wallAt.ty ? `${row.slice(0, wallAt.tx)}#${row.slice(wallAt.tx + 1)}` : row,
  );
  return {
    id: "a",
    rows,
    objects: [
      { type: "spawn", name: "s1", tx: 2, ty: 2 },
      { type: "door", name: "door_a", tx: 12, ty: 7, props: { open: false } },
      ...extra,
    ],
  };
}
const roomB: FixtureRoom = {
  id: "b",
  rows: openRoom(10, 8),
  objects: [{ type: "spawn", name: "s2", tx: 2, ty: 2 }],
};

const before = fixtureWorld([roomA(), roomB]);
const sign = { type: "sign", name: "sign_new", tx: 4, ty: 4, props: { text: "Welcome" } };
const after = fixtureWorld([roomA({ tx: 6, ty: 5 }, [sign])]);

function redefineInput(def: WorldDefinition): Input {
  return { kind: "redefine", entityId: OPERATOR_ENTITY_ID, definition: definitionToWire(def) };
}

function setUp(): World {
  const world = World.create(before);
  world.step([join("agt_ada"), join("hum_bob"), join("agt_cy", "b")]);
  walkTo(world, "agt_ada", 6, 5);
  return world;
}

describe("a world taking a new definition", () => {
  it("the wire form round-trips the definition exactly", () => {
    const back = definitionFromWire(JSON.parse(JSON.stringify(definitionToWire(after))));
    expect(back).toEqual(after);
  });

  it("keeps everyone with their ids, moves one off a new wall and one out of a removed room, and tells both", () => {
    const world = setUp();
    const result = world.step([redefineInput(after)]);
    const answer = result.results[0]!;
    expect(answer.ok).toBe(true);
    expect(world.definition.sceneHash).toBe(after.sceneHash);
    const ada = world.getEntity("agt_ada")!;
    expect(ada.roomId).toBe("a");
    expect(world.isBlocked("a", { tx: 6, ty: 5 })).toBe(true);
    expect(ada.tile).not.toEqual({ tx: 6, ty: 5 });
    expect(Math.abs(ada.tile.tx - 6) + Math.abs(ada.tile.ty - 5)).toBe(1);
    expect(world.getEntity("hum_bob")!.roomId).toBe("a");
    expect(world.getEntity("agt_cy")!.roomId).toBe("a");
    expect(world.roomIds()).toEqual(["a"]);
    const told = result.events.filter(
      (e) => e.type === "chat.message" && e.payload.fromEntityId === WORLD_NOTICE_ENTITY_ID,
    );
    expect(told.map((e) => (e.audience.kind === "entities" ? e.audience.ids : [])).sort()).toEqual([
      ["agt_ada"],
      ["agt_cy"],
    ]);
    expect(String(told.find((e) => JSON.stringify(e.audience).includes("agt_ada"))!.payload.message)).toMatch(
      /became a wall/,
    );
    expect(world.objectView("obj_sign_new")?.state).toEqual({ text: "Welcome" });
    // The fitted state was checked only against the new definition: it passes the whole check too.
    expect(() => validateSnapshot(after, JSON.parse(JSON.stringify(world.snapshot())))).not.toThrow();
    // It goes on: moves, snapshots that restore under the new definition.
    run(world, 5);
    expect(World.restore(after, world.snapshot()).snapshotHash()).toBe(world.snapshotHash());
  });

  it("objects keep their state and version where they still exist", () => {
    const world = World.create(before);
    world.step([join("agt_ada")]);
    walkTo(world, "agt_ada", 11, 7);
    expect(
      one(world, { kind: "interact", entityId: "agt_ada", targetId: "obj_door_a", action: "open" }).ok,
    ).toBe(true);
    const door = world.objectView("obj_door_a")!;
    world.step([redefineInput(after)]);
    expect(world.objectView("obj_door_a")).toEqual(door);
  });

  it("a replay from a snapshot before the change through the logged inputs ends at the same hash", () => {
    const world = setUp();
    const base = JSON.parse(JSON.stringify(world.snapshot()));
    const log: Input[][] = [
      [{ kind: "moveTo", entityId: "hum_bob", dest: { tx: 8, ty: 6 } }],
      [],
      JSON.parse(JSON.stringify([redefineInput(after)])),
      [{ kind: "chat", entityId: "hum_bob", channel: "global", message: "hello" }],
      [],
      [{ kind: "moveTo", entityId: "agt_ada", dest: { tx: 3, ty: 3 } }],
    ];
    const hashes = log.map((inputs) => {
      world.step(inputs);
      return world.snapshotHash();
    });
    const replayed = World.restore(before, base);
    const again = log.map((inputs) => {
      replayed.step(JSON.parse(JSON.stringify(inputs)));
      return replayed.snapshotHash();
    });
    expect(again).toEqual(hashes);
  });

  it("a fitted state is still checked against the new definition: what a removed room held is refused", () => {
    const snapshot = setUp().snapshot() as WorldSnapshot & { state: WorldState };
    const unfitted = { ...snapshot, sceneHash: after.sceneHash };
    expect(() => validateFittedSnapshot(after, unfitted)).toThrow(/malformed: unknown/);
    expect(() => validateFittedSnapshot(after, fitSnapshot(snapshot, before, after).snapshot)).not.toThrow();
  });

  it("fitting leaves the snapshot it was given as it was (it copies what it changes, not the whole state)", () => {
    const world = setUp();
    void world.step([{ kind: "moveTo", entityId: "hum_bob", dest: { tx: 9, ty: 6 } }]);
    const snapshot = world.snapshot() as WorldSnapshot & { state: WorldState };
    const text = JSON.stringify(snapshot);
    const fitted = fitSnapshot(snapshot, before, after);
    expect(fitted.homeless.map((a) => a.id)).toEqual(["agt_cy"]);
    expect(fitted.snapshot.state.actors.find((a) => a.id === "hum_bob")!.path).toEqual([]);
    expect(JSON.stringify(snapshot)).toBe(text);
  });

  it("a snapshot of the old definition does not restore into the new one", () => {
    const world = setUp();
    expect(() => World.restore(after, world.snapshot())).toThrow(/scene/);
  });

  it("refuses a change of name or clock as a whole, the world unchanged", () => {
    const world = setUp();
    const renamed = { ...after, name: "other" };
    const result = world.step([redefineInput(renamed)]).results[0]!;
    expect(result.ok).toBe(false);
    expect(world.definition.sceneHash).toBe(before.sceneHash);
    expect(world.roomIds()).toEqual(["a", "b"]);
  });

  it("only the host may send it", () => {
    const world = setUp();
    const r = one(world, { ...redefineInput(after), entityId: "agt_ada" } as Input);
    expect(r.ok).toBe(false);
    expect(world.definition.sceneHash).toBe(before.sceneHash);
  });
});

describe("creatures under a new definition", () => {
  /** A 16x10 room: a cat in region "home", a fish in the water of `pond` rows 2..5 (x from
   * `waterFrom` to 12). */
  function yard(home: { tx: number; ty: number; w: number; h: number }, waterFrom = 8): FixtureRoom {
    const rows = openRoom(16, 10).map((row, y) =>
      y >= 2 && y <= 5 ? `${row.slice(0, waterFrom)}${"~".repeat(13 - waterFrom)}${row.slice(13)}` : row,
    );
    return {
      id: "a",
      rows,
      objects: [
        { type: "spawn", name: "s1", tx: 2, ty: 8 },
        { type: "creature", name: "tom", tx: 2, ty: 2, props: { species: "cat", region: "home" } },
        { type: "creature", name: "koi", tx: 12, ty: 3, props: { species: "fish" } },
      ],
      regions: [{ id: "home", label: "Home", ...home }],
    };
  }
  const tileOf = (world: World, id: string) => {
    const s = world.objectView(id)!.state;
    return { tx: Number(s.tx), ty: Number(s.ty) };
  };

  it("a creature its region or its water no longer holds goes to the nearest tile that does; the rest as they were", () => {
    const old = fixtureWorld([yard({ tx: 1, ty: 1, w: 4, h: 4 }, 8)]);
    const world = World.create(old);
    // Put them where the new map will not have them: the cat at the corner's far side, the fish in
    // the water's west end.
    const snap = JSON.parse(JSON.stringify(world.snapshot())) as WorldSnapshot & { state: WorldState };
    for (const o of snap.state.objects) {
      if (o.id === "obj_tom") Object.assign(o.state, { tx: 1, ty: 4, next: 10 ** 9, until: 10 ** 9 });
      if (o.id === "obj_koi") Object.assign(o.state, { tx: 8, ty: 4, next: 10 ** 9 });
    }
    const placed = World.restore(old, snap);
    // The region moves east (x 3..6) and the pond shrinks to x 10..12.
    const moved = fixtureWorld([yard({ tx: 3, ty: 1, w: 4, h: 4 }, 10)]);
    expect(placed.step([redefineInput(moved)]).results[0]!.ok).toBe(true);
    expect(tileOf(placed, "obj_tom")).toEqual({ tx: 3, ty: 4 });
    expect(tileOf(placed, "obj_koi")).toEqual({ tx: 10, ty: 4 });
    // What it was doing stays (only where it is changed).
    expect(placed.objectView("obj_tom")!.state).toMatchObject({ next: 10 ** 9, species: "cat" });
    // A creature the new map still holds stays put.
    const same = World.restore(old, JSON.parse(JSON.stringify(snap)));
    expect(
      same.step([redefineInput(fixtureWorld([yard({ tx: 1, ty: 1, w: 4, h: 5 }, 7)]))]).results[0]!.ok,
    ).toBe(true);
    expect(tileOf(same, "obj_tom")).toEqual({ tx: 1, ty: 4 });
    expect(tileOf(same, "obj_koi")).toEqual({ tx: 8, ty: 4 });
    expect(() => validateSnapshot(moved, JSON.parse(JSON.stringify(placed.snapshot())))).not.toThrow();
  });

  it("a replay through the change refits them alike: the same hash at every tick, the fish swimming on", () => {
    const old = fixtureWorld([yard({ tx: 1, ty: 1, w: 4, h: 4 }, 8)]);
    const moved = fixtureWorld([yard({ tx: 3, ty: 1, w: 4, h: 4 }, 10)]);
    const world = World.create(old);
    run(world, 100);
    const base = JSON.parse(JSON.stringify(world.snapshot()));
    const log: Input[][] = [[], JSON.parse(JSON.stringify([redefineInput(moved)])), ...Array(400).fill([])];
    const hashes = log.map((inputs) => {
      world.step(inputs);
      return world.snapshotHash();
    });
    const replayed = World.restore(old, base);
    const again = log.map((inputs) => {
      replayed.step(JSON.parse(JSON.stringify(inputs)));
      return replayed.snapshotHash();
    });
    expect(again).toEqual(hashes);
    const koi = tileOf(replayed, "obj_koi");
    expect(koi.tx >= 10 && koi.tx <= 12 && koi.ty >= 2 && koi.ty <= 5, `(${koi.tx}, ${koi.ty})`).toBe(true);
  });

  it("a creature its new map has no ground for starts afresh; one the map no longer names is gone", () => {
    const old = fixtureWorld([yard({ tx: 1, ty: 1, w: 4, h: 4 })]);
    const world = World.create(old);
    run(world, 40);
    // The home region now lies all under water: no tile for the cat, which starts afresh.
    const flooded = yard({ tx: 8, ty: 2, w: 2, h: 2 });
    flooded.objects = flooded.objects.map((o) => (o.name === "tom" ? { ...o, tx: 8, ty: 2 } : o));
    const fitted = fitSnapshot(
      world.snapshot() as WorldSnapshot & { state: WorldState },
      old,
      fixtureWorld([flooded]),
    ).snapshot.state.objects;
    expect(fitted.find((o) => o.id === "obj_tom")).toBeUndefined();
    expect(fitted.find((o) => o.id === "obj_koi")).toBeDefined();
    const withoutFish = yard({ tx: 1, ty: 1, w: 4, h: 4 });
    withoutFish.objects = withoutFish.objects.filter((o) => o.name !== "koi");
    expect(world.step([redefineInput(fixtureWorld([withoutFish]))]).results[0]!.ok).toBe(true);
    expect(world.objectView("obj_koi")).toBeUndefined();
    expect(world.objectView("obj_tom")).toBeDefined();
  });
});
