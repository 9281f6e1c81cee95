import { describe, expect, it } from "vitest";
import { type FixtureRoom, fixtureWorld } from "../testing/fixtures.ts";
import { join, run, walkTo } from "../testing/helpers.ts";
import type { WorldDefinition } from "../types.ts";
import { World } from "../world.ts";
import { birdOf, FLIGHT_MS, LANDS_TILES } from "./bird.ts";
import type { ObjectState } from "./object-type.ts";

const BIRD = "obj_wren";
const TICKS_PER_SEC = 20; // the fixture world's tick_rate

/** A 20x10 room; the bird's lawn is the region x 1..14, y 1..6. */
function lawn(): WorldDefinition {
  const rows = Array.from({ length: 10 }, (_, y) =>
    Array.from({ length: 20 }, (_, x) => (x === 0 || y === 0 || x === 19 || y === 9 ? "#" : ".")).join(""),
  );
  const room = {
    id: "yard",
    rows,
    objects: [
      { type: "spawn", name: "s1", tx: 17, ty: 8 },
      { type: "creature", name: "wren", tx: 4, ty: 3, props: { species: "bird", region: "lawn" } },
    ],
    regions: [{ id: "lawn", label: "Lawn", tx: 1, ty: 1, w: 14, h: 6 }],
  } satisfies FixtureRoom;
  return fixtureWorld([room]);
}

const bird = (world: World) => birdOf(world.objectView(BIRD)!.state as ObjectState);

/** Steps until the bird takes off (from `who`, when given); fails after two minutes. */
function untilFlight(world: World, who?: string): void {
  for (let i = 0; i < 120 * TICKS_PER_SEC; i++) {
    world.step([]);
    const b = bird(world);
    if (b.mode === "fly" && (who === undefined || b.with === who)) return;
  }
  throw new Error("the bird never flew");
}

describe("creature: the bird", () => {
  it("is named in words and hops about its region, a tile at a time or in a flight, never out of it", () => {
    const world = World.create(lawn());
    expect(world.objectView(BIRD)!.state).toMatchObject({ called: "a bird", doing: "hopping about" });
    let hops = 0;
    let flights = 0;
    let last = bird(world);
    for (let i = 0; i < 300 * TICKS_PER_SEC; i++) {
      world.step([]);
      const b = bird(world);
      expect(b.tx >= 1 && b.tx <= 14 && b.ty >= 1 && b.ty <= 6, `(${b.tx}, ${b.ty}) on the lawn`).toBe(true);
      const far = Math.max(Math.abs(b.tx - last.tx), Math.abs(b.ty - last.ty));
      if (far === 1) hops += 1;
      if (far > 1) {
        flights += 1;
        expect(b.mode).toBe("fly");
      }
      last = b;
    }
    expect(hops).toBeGreaterThan(50);
    expect(flights).toBeGreaterThan(0);
  });

  it("flies off from a person who comes near and lands well away from her, then hops on", () => {
    const world = World.create(lawn());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 7, 3);
    untilFlight(world, "hum_ann");
    const b = bird(world);
    expect(Math.max(Math.abs(b.tx - 7), Math.abs(b.ty - 3))).toBeGreaterThanOrEqual(LANDS_TILES);
    expect(world.objectView(BIRD)!.state).toMatchObject({ with: "hum_ann", doing: "flying off from ann" });
    run(world, (FLIGHT_MS / 1000) * TICKS_PER_SEC);
    expect(bird(world).mode).toBe("hop");
  });

  it("a snapshot mid-flight restores to the same future", () => {
    const world = World.create(lawn());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 7, 3);
    untilFlight(world);
    const copy = World.restore(lawn(), JSON.parse(JSON.stringify(world.snapshot())));
    for (const w of [world, copy]) run(w, 60 * TICKS_PER_SEC);
    expect(copy.snapshotHash()).toBe(world.snapshotHash());
    expect(bird(copy)).toEqual(bird(world));
  });
});
