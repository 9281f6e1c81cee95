// The grid's k-nearest query (WorldApi.nearestActors; a browser's interest set) against a sort of
// everyone by (squared distance, id): across cell edges, outside the grid, with ties on shared spots.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor } from "./actor.ts";
import { SpatialGrid } from "./spatial-grid.ts";

const at = (id: string, x: number, y: number) => ({ id, x, y, cell: -1 }) as Actor;

describe("SpatialGrid.nearest", () => {
  it("equals a sort of everyone by (distance, id), limited, without the skipped actor (fast-check)", () => {
    fc.assert(
      fc.property(
        // Coarse coordinates put several actors on one spot: ties, broken by id.
        fc.array(fc.record({ x: fc.integer({ min: 0, max: 90 }), y: fc.integer({ min: 0, max: 90 }) }), {
          maxLength: 300,
        }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 1200 }),
        fc.record({ x: fc.integer({ min: -100, max: 1000 }), y: fc.integer({ min: -100, max: 1000 }) }),
        fc.constantFrom(32, 128, 2000),
        (points, limit, radius, center, cellSize) => {
          const grid = new SpatialGrid(900, 900, cellSize);
          // Ids in scrambled order, so the grid's insertion order is not the id order.
          const actors = points.map((p, i) =>
            at(`a${String((i * 7919) % 10007).padStart(5, "0")}`, p.x * 10, p.y * 10),
          );
          for (const a of actors) grid.insert(a);
          const skip = actors[0];
          const d2: number[] = [];
          const got = grid.nearest(center.x, center.y, radius, limit, skip, d2);
          const want = actors
            .filter((a) => a !== skip)
            .map((a) => ({ id: a.id, d2: (a.x - center.x) ** 2 + (a.y - center.y) ** 2 }))
            .filter((c) => c.d2 <= radius * radius)
            .sort((a, b) => a.d2 - b.d2 || (a.id < b.id ? -1 : 1))
            .slice(0, limit);
          expect(got.map((a) => a.id)).toEqual(want.map((c) => c.id));
          expect(d2).toEqual(want.map((c) => c.d2));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("follows moves: an actor that walked away is no longer the nearest", () => {
    const grid = new SpatialGrid(1000, 1000, 100);
    const a = at("a", 10, 10);
    const b = at("b", 50, 10);
    grid.insert(a);
    grid.insert(b);
    expect(grid.nearest(0, 0, 1000, 1, undefined, []).map((x) => x.id)).toEqual(["a"]);
    a.x = 900;
    grid.update(a);
    expect(grid.nearest(0, 0, 1000, 2, undefined, []).map((x) => x.id)).toEqual(["b", "a"]);
  });
});
