import { describe, expect, it } from "vitest";
import { type FixtureRoom, fixtureFiles, fixtureWorld, worldLoadError } from "../testing/fixtures.ts";
import { join, one, run, walkTo } from "../testing/helpers.ts";
import type { WorldDefinition } from "../types.ts";
import { World } from "../world.ts";
import { catDoing, catOf, FOLLOW_MS, NAP_MS } from "./cat.ts";
import type { ObjectState } from "./object-type.ts";

const CAT = "obj_mochi";
const TICKS_PER_SEC = 20; // the fixture world's tick_rate

/** A 16x10 room; the cat's corner is the region x 1..8, y 1..6; a wall piece at (5, 3). */
function catRoom(props: Record<string, string> = { species: "cat", called: "Mochi", region: "corner" }) {
  const rows = Array.from({ length: 10 }, (_, y) =>
    Array.from({ length: 16 }, (_, x) =>
      x === 0 || y === 0 || x === 15 || y === 9 || (x === 5 && y === 3) ? "#" : ".",
    ).join(""),
  );
  return {
    id: "den",
    rows,
    objects: [
      { type: "spawn", name: "s1", tx: 12, ty: 7 },
      { type: "creature", name: "mochi", tx: 3, ty: 3, props },
      { type: "private_room", name: "nook_privacy", tx: 14, ty: 8, props: { region: "nook", private: true } },
    ],
    regions: [
      { id: "corner", label: "Corner", tx: 1, ty: 1, w: 8, h: 6 },
      { id: "nook", label: "Nook", tx: 6, ty: 1, w: 3, h: 3 },
    ],
  } satisfies FixtureRoom;
}

const den = (): WorldDefinition => fixtureWorld([catRoom()]);
const cat = (world: World) => catOf(world.objectView(CAT)!.state as ObjectState);
const seconds = (world: World, sec: number) => run(world, sec * TICKS_PER_SEC);
const gap = (world: World, who: string) => {
  const c = cat(world);
  const p = world.getEntity(who)!.tile;
  return Math.max(Math.abs(c.tx - p.tx), Math.abs(c.ty - p.ty));
};

describe("creature: the cat", () => {
  it("is an object named in words, at the tile it stands on, offering a look", () => {
    const world = World.create(den());
    const view = world.getEntity(CAT)!;
    expect(view).toMatchObject({ kind: "object", tile: { tx: 3, ty: 3 }, meta: { objectType: "creature" } });
    expect(world.objectView(CAT)!.state).toMatchObject({ species: "cat", called: "Mochi the cat" });
    world.step([join("agt_ann")]);
    walkTo(world, "agt_ann", 12, 2);
    const look = one(world, { kind: "approach", entityId: "agt_ann", targetId: CAT });
    expect(look.ok).toBe(true);
  });

  it("wanders a tile at a time inside its region, never into a wall or a private room", () => {
    const world = World.create(den());
    const seen = new Set<string>();
    for (let i = 0; i < 600 * TICKS_PER_SEC; i++) {
      world.step([]);
      const c = cat(world);
      seen.add(`${c.tx},${c.ty}`);
      expect(c.tx >= 1 && c.tx <= 8 && c.ty >= 1 && c.ty <= 6, `(${c.tx}, ${c.ty}) in the corner`).toBe(true);
      expect(c.tx === 5 && c.ty === 3).toBe(false);
      expect(c.tx >= 6 && c.ty <= 3, `(${c.tx}, ${c.ty}) outside the private nook`).toBe(false);
    }
    expect(seen.size).toBeGreaterThan(5);
    expect(world.getEntity(CAT)!.tile).toEqual({ tx: cat(world).tx, ty: cat(world).ty });
  });

  it("moves without events and without a new state version", () => {
    const world = World.create(den());
    const version = world.objectView(CAT)!.version;
    const events = seconds(world, 60).flatMap((s) => s.events);
    expect(events).toEqual([]);
    expect(world.objectView(CAT)!.version).toBe(version);
  });

  it("follows a person who comes near, stays beside her, then loses interest and naps", () => {
    const world = World.create(den());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 4, 4);
    seconds(world, 1);
    expect(cat(world)).toMatchObject({ mode: "follow", with: "hum_ann", withName: "ann" });
    expect(world.objectView(CAT)!.state.doing).toBe("following ann");
    walkTo(world, "hum_ann", 2, 6);
    seconds(world, 2);
    expect(gap(world, "hum_ann")).toBeLessThanOrEqual(1);
    expect(gap(world, "hum_ann")).toBeGreaterThan(0);
    seconds(world, FOLLOW_MS / 1000);
    expect(cat(world)).toMatchObject({ mode: "nap", with: "hum_ann" });
    expect(catDoing(cat(world))).toBe("napping");
    // Napping beside her, it does not follow her again until it has slept.
    const at = cat(world);
    seconds(world, NAP_MS[0] / 1000 - 1);
    expect(cat(world)).toMatchObject({ mode: "nap", tx: at.tx, ty: at.ty });
  });

  it("lets go of someone who leaves its region", () => {
    const world = World.create(den());
    world.step([join("hum_ann")]);
    walkTo(world, "hum_ann", 4, 4);
    seconds(world, 1);
    expect(cat(world).mode).toBe("follow");
    walkTo(world, "hum_ann", 12, 7);
    seconds(world, 1);
    expect(cat(world)).toMatchObject({ mode: "nap" });
    expect(cat(world).tx).toBeLessThanOrEqual(8);
  });

  it("a snapshot taken mid-follow restores to the same future", () => {
    const world = World.create(den());
    world.step([join("hum_ann"), join("agt_bo")]);
    walkTo(world, "hum_ann", 4, 4);
    seconds(world, 3);
    expect(cat(world).mode).toBe("follow");
    const copy = World.restore(den(), JSON.parse(JSON.stringify(world.snapshot())));
    const script = [
      { kind: "moveTo", entityId: "hum_ann", dest: { tx: 2, ty: 6 } },
      { kind: "moveTo", entityId: "agt_bo", dest: { tx: 3, ty: 2 } },
    ] as const;
    for (const w of [world, copy]) {
      w.step([...script]);
      seconds(w, 60);
    }
    expect(copy.snapshotHash()).toBe(world.snapshotHash());
    expect(cat(copy)).toEqual(cat(world));
  });

  it("two worlds of the same seed move it alike; another seed, differently", () => {
    const positions = (def: WorldDefinition) => {
      const world = World.create(def);
      return Array.from({ length: 120 * TICKS_PER_SEC }, () => {
        world.step([]);
        return `${cat(world).tx},${cat(world).ty},${cat(world).mode}`;
      }).join("|");
    };
    expect(positions(den())).toBe(positions(den()));
    expect(positions({ ...den(), seed: den().seed + 1 })).not.toBe(positions(den()));
  });

  it("a map naming an unknown species, or a region its room lacks, does not load", () => {
    expect(worldLoadError(fixtureFiles([catRoom({ species: "dragon" })])).message).toMatch(
      /species.*expected one of cat/,
    );
    expect(worldLoadError(fixtureFiles([catRoom({ species: "cat", region: "attic" })])).message).toMatch(
      /region.*no region "attic"/,
    );
  });

  it("a saved state that is not a cat's is refused on restore", () => {
    const world = World.create(den());
    const snap = JSON.parse(JSON.stringify(world.snapshot()));
    const obj = snap.state.objects.find((o: { id: string }) => o.id === CAT);
    obj.state.mode = "fly";
    expect(() => World.restore(den(), snap)).toThrow(/mode must be one of/);
  });
});
