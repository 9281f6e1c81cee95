import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor } from "./actor.ts";
import { PairTable } from "./pair-table.ts";

const actor = (handle: number) => ({ id: `agt_${handle}`, handle }) as Actor;

/** Checks every pair the model holds is found with its state, and nothing else is. */
function expectSame(table: PairTable, model: Map<string, number>, handles: number): void {
  expect(table.size).toBe(model.size);
  for (let lo = 1; lo <= handles; lo++) {
    for (let hi = lo + 1; hi <= handles; hi++) {
      const d = table.find(lo, hi);
      const want = model.get(`${lo}:${hi}`);
      if (want === undefined) expect(d).toBe(-1);
      else {
        expect(d).toBeGreaterThanOrEqual(0);
        expect(table.counter[d]).toBe(want);
        expect(table.loActor[d]!.handle).toBe(lo);
        expect(table.hiActor[d]!.handle).toBe(hi);
      }
    }
  }
}

describe("PairTable", () => {
  it("add, find and remove agree with a Map through growth and backward-shift deletion", () => {
    const HANDLES = 24; // 276 possible pairs: the index grows several times and probes collide
    const op = fc.record({
      x: fc.integer({ min: 1, max: HANDLES }),
      y: fc.integer({ min: 1, max: HANDLES }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const table = new PairTable();
        const model = new Map<string, number>();
        ops.forEach(({ x, y }, step) => {
          if (x === y) return;
          const lo = Math.min(x, y);
          const hi = Math.max(x, y);
          const d = table.find(lo, hi);
          if (d >= 0) {
            table.removeAt(d); // toggling: a present pair is removed, an absent one added
            model.delete(`${lo}:${hi}`);
          } else {
            table.add(actor(y), actor(x), false, step, 0);
            model.set(`${lo}:${hi}`, step);
          }
        });
        expectSame(table, model, HANDLES);
      }),
      { numRuns: 60 },
    );
  });

  it("removing pairs while iterating down visits every pair once", () => {
    const table = new PairTable();
    for (let lo = 1; lo <= 30; lo++)
      for (let hi = lo + 1; hi <= 30; hi++) table.add(actor(lo), actor(hi), true, 0, 0);
    const visited = new Set<string>();
    for (let d = table.size - 1; d >= 0; d--) {
      visited.add(`${table.lo[d]}:${table.hi[d]}`);
      if ((table.lo[d]! + table.hi[d]!) % 3 === 0) table.removeAt(d);
    }
    expect(visited.size).toBe((30 * 29) / 2);
    const model = new Map<string, number>();
    for (let lo = 1; lo <= 30; lo++)
      for (let hi = lo + 1; hi <= 30; hi++) if ((lo + hi) % 3 !== 0) model.set(`${lo}:${hi}`, 0);
    expectSame(table, model, 30);
  });
});
