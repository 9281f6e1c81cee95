import { describe, expect, it } from "vitest";
import { definitionFromWire, definitionToWire } from "../definition-wire.ts";
import { type FixtureRoom, fixtureFiles, fixtureWorld, worldLoadError } from "../testing/fixtures.ts";
import { join, run, walkTo } from "../testing/helpers.ts";
import type { WorldDefinition } from "../types.ts";
import { World } from "../world.ts";
import { fishOf } from "./fish.ts";
import type { ObjectState } from "./object-type.ts";

const FISH = "obj_koi";
const TICKS_PER_SEC = 20; // the fixture world's tick_rate

/** A 20x12 room with a round pond (x 3..14, y 2..9), its sand in the region "pond" (x 1..16, y 1..10),
 * and a dry spit (x 8..9, y 5) that cuts into the water. */
const POND_ROWS = [
  "####################",
  "#..................#",
  "#.....~~~~~~.......#",
  "#...~~~~~~~~~~.....#",
  "#..~~~~~~~~~~~~....#",
  "#..~~~~~..~~~~~....#",
  "#..~~~~~~~~~~~~....#",
  "#...~~~~~~~~~~.....#",
  "#.....~~~~~~.......#",
  "#..................#",
  "#..................#",
  "####################",
];

function pondRoom(fishAt = { tx: 6, ty: 4 }): FixtureRoom {
  return {
    id: "park",
    rows: POND_ROWS,
    objects: [
      { type: "spawn", name: "s1", tx: 18, ty: 10 },
      { type: "creature", name: "koi", ...fishAt, props: { species: "fish", region: "pond" } },
    ],
    regions: [{ id: "pond", label: "Pond", tx: 1, ty: 1, w: 16, h: 10 }],
  };
}

const park = (): WorldDefinition => fixtureWorld([pondRoom()]);
const fish = (world: World) => fishOf(world.objectView(FISH)!.state as ObjectState);
const isWater = (tx: number, ty: number) => POND_ROWS[ty]?.[tx] === "~";

describe("creature: the fish", () => {
  it("the map's water is the ground its tileset marks water, and rides the wire form", () => {
    const def = park();
    const room = def.rooms.park!;
    for (let ty = 0; ty < 12; ty++)
      for (let tx = 0; tx < 20; tx++) expect(room.water[ty * 20 + tx] === 1).toBe(isWater(tx, ty));
    const wire = JSON.parse(JSON.stringify(definitionToWire(def)));
    expect(definitionFromWire(wire)).toEqual(def);
    // A definition written before worlds had water reads as one without any.
    delete wire.rooms.park.water;
    const dry = definitionFromWire(wire) as WorldDefinition;
    expect(dry.rooms.park!.water).toEqual(new Uint8Array(240));
  });

  it("is named in words and swims a tile at a time over water only, all about the pond", () => {
    const world = World.create(park());
    expect(world.objectView(FISH)!.state).toMatchObject({ called: "a fish", doing: "swimming about" });
    const visited = new Set<string>();
    let last = fish(world);
    for (let i = 0; i < 600 * TICKS_PER_SEC; i++) {
      world.step([]);
      const f = fish(world);
      expect(isWater(f.tx, f.ty), `(${f.tx}, ${f.ty}) in the water`).toBe(true);
      expect(Math.max(Math.abs(f.tx - last.tx), Math.abs(f.ty - last.ty))).toBeLessThanOrEqual(1);
      visited.add(`${f.tx},${f.ty}`);
      last = f;
    }
    expect(visited.size).toBeGreaterThan(20);
  });

  it("gathers by a person standing at the water's edge, and swims off once she goes", () => {
    const world = World.create(park());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 2, 5);
    const gathered = () => {
      const f = fish(world);
      return f.mode === "gather" && Math.max(Math.abs(f.tx - 2), Math.abs(f.ty - 5)) <= 1;
    };
    for (let i = 0; i < 120 * TICKS_PER_SEC && !gathered(); i++) world.step([]);
    expect(gathered()).toBe(true);
    expect(world.objectView(FISH)!.state).toMatchObject({ with: "hum_ann", doing: "gathering by ann" });
    // Off past the pond's sand, out of its region: she is no longer noticed.
    walkTo(world, "hum_ann", 18, 10);
    run(world, 3 * TICKS_PER_SEC);
    expect(fish(world)).toMatchObject({ mode: "swim", with: "" });
  });

  it("two worlds of the same seed swim it alike; another seed, differently", () => {
    const path = (def: WorldDefinition) => {
      const world = World.create(def);
      return Array.from({ length: 120 * TICKS_PER_SEC }, () => {
        world.step([]);
        return `${fish(world).tx},${fish(world).ty}`;
      }).join("|");
    };
    expect(path(park())).toBe(path(park()));
    expect(path({ ...park(), seed: park().seed + 1 })).not.toBe(path(park()));
  });

  it("a snapshot taken while it gathers restores to the same future", () => {
    const world = World.create(park());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 2, 5);
    run(world, 2 * TICKS_PER_SEC);
    expect(fish(world).mode).toBe("gather");
    const copy = World.restore(park(), JSON.parse(JSON.stringify(world.snapshot())));
    for (const w of [world, copy]) {
      w.step([{ kind: "moveTo", entityId: "hum_ann", dest: { tx: 2, ty: 10 } }]);
      run(w, 60 * TICKS_PER_SEC);
    }
    expect(copy.snapshotHash()).toBe(world.snapshotHash());
    expect(fish(copy)).toEqual(fish(world));
  });

  it("a map putting a fish on dry land does not load", () => {
    expect(worldLoadError(fixtureFiles([pondRoom({ tx: 17, ty: 5 })])).message).toMatch(
      /species.*a fish starts on water: tile \(17, 5\)/,
    );
  });
});
