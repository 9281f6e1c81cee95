import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Occupancy } from "./occupancy.ts";

describe("Occupancy (parked polls, open streams)", () => {
  it("any sequence of takes and releases stays within both bounds and frees every slot", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom("a", "b", "c"), fc.nat(20)), { maxLength: 200 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        (steps, perAgent, total) => {
          const occupancy = new Occupancy({ perAgent, total });
          const held: { agent: string; release(): void }[] = [];
          for (const [take, agent, pick] of steps) {
            if (take) {
              const slot = occupancy.take(agent);
              const mine = held.filter((h) => h.agent === agent).length;
              expect(slot.ok).toBe(mine < perAgent && held.length < total);
              if (slot.ok) held.push({ agent, release: slot.release });
            } else if (held.length > 0) {
              const [gone] = held.splice(pick % held.length, 1);
              gone!.release();
              gone!.release();
            }
            expect(occupancy.stats().held).toBe(held.length);
          }
          for (const h of held.splice(0)) h.release();
          expect(occupancy.stats()).toEqual({ held: 0, agents: 0 });
        },
      ),
    );
  });
});
