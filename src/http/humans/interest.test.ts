// The visible entity limit: a browser is streamed at most maxVisible actors, the nearest (by distance,
// ties by id), with hysteresis on both distance and rank. Checked against a brute-force reference
// (sort everyone, apply the rule) over random crowds that move, shrink and reshuffle.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EntityView } from "../../world/types.ts";
import { RoomCrowd } from "./crowd.ts";
import { HYSTERESIS, InterestSet } from "./interest.ts";

const ENTER = 100;
const EXIT = ENTER * HYSTERESIS;
const CELL = 32;

interface Spot {
  id: string;
  x: number;
  y: number;
}

const view = ({ id, x, y }: Spot): EntityView => ({
  id,
  kind: id.startsWith("agt_") ? "agent" : "human",
  name: id,
  roomId: "lobby",
  pos: { x, y },
  tile: { tx: Math.floor(x / CELL), ty: Math.floor(y / CELL) },
  facing: "down",
});

/** Handles as the view sync's PatchFragments gives them: one per id, never reused. */
function handles() {
  const byId = new Map<string, number>();
  return (id: string) => {
    let h = byId.get(id);
    if (h === undefined) {
      h = byId.size + 1;
      byId.set(id, h);
    }
    return h;
  };
}

const byId = (a: Spot, b: Spot) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What `interest.select` shows, as ids (the viewer's own first when present). */
function shown(
  interest: InterestSet,
  spots: readonly Spot[],
  selfId: string,
  handleOf: (id: string) => number,
) {
  const sorted = [...spots].sort(byId);
  const crowd = new RoomCrowd(sorted.map(view), handleOf, CELL);
  const me = crowd.indexOf(selfId);
  const self = sorted[me]!;
  const out = new Int32Array(interest.maxVisible);
  const count = interest.select(crowd, me, self.x, self.y, out);
  return [...out.subarray(0, count)].map((i) => sorted[i]!.id);
}

/** The rule, by brute force: rank every other actor by (squared distance, id); a newcomer needs rank
 * < admitRank and the enter radius, a member rank < keepRank and the exit radius. */
function reference(
  rule: { keepRank: number; admitRank: number },
  members: ReadonlySet<string>,
  spots: readonly Spot[],
  selfId: string,
): Set<string> {
  const self = spots.find((s) => s.id === selfId)!;
  const ranked = spots
    .filter((s) => s.id !== selfId)
    .map((s) => ({ id: s.id, d2: (s.x - self.x) ** 2 + (s.y - self.y) ** 2 }))
    .sort((a, b) => a.d2 - b.d2 || (a.id < b.id ? -1 : 1));
  const next = new Set<string>([selfId]);
  ranked.forEach((a, rank) => {
    const newcomer = rank < rule.admitRank && a.d2 <= ENTER * ENTER;
    const stays = members.has(a.id) && rank < rule.keepRank && a.d2 <= EXIT * EXIT;
    if (newcomer || stays) next.add(a.id);
  });
  return next;
}

const crowdArb = fc
  .record({
    size: fc.integer({ min: 1, max: 160 }),
    maxVisible: fc.integer({ min: 1, max: 24 }),
    // A small square packs a crowd (ties and dense ranks); a big one spreads it past the radii.
    span: fc.constantFrom(40, 120, 400),
    seed: fc.integer(),
    steps: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ size, maxVisible, span, seed, steps }) => {
    let state = seed | 1;
    const rand = (n: number) => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    const ids = Array.from(
      { length: size },
      (_, i) => `${i % 3 ? "agt" : "hum"}_${String(rand(1e6)).padStart(6, "0")}_${i}`,
    );
    const frames: Spot[][] = [];
    let spots = ids.map((id) => ({ id, x: rand(span), y: rand(span) }));
    for (let s = 0; s < steps; s++) {
      frames.push(spots);
      // Walk a little (often onto the same integer spots: ties), and sometimes someone leaves.
      spots = spots
        .filter((_, i) => i === 0 || rand(20) !== 0)
        .map((p) => ({ id: p.id, x: p.x + rand(9) - 4, y: p.y + rand(9) - 4 }));
    }
    return { maxVisible, frames, selfId: ids[0]! };
  });

describe("visible entity limit", () => {
  it("shows at most maxVisible actors, its own first, exactly the reference rule's (fast-check)", () => {
    fc.assert(
      fc.property(crowdArb, ({ maxVisible, frames, selfId }) => {
        const interest = new InterestSet(ENTER, EXIT, maxVisible);
        const handleOf = handles();
        let members = new Set<string>();
        for (const spots of frames) {
          const got = shown(interest, spots, selfId, handleOf);
          expect(got.length).toBeLessThanOrEqual(maxVisible);
          expect(got[0]).toBe(selfId);
          expect(new Set(got).size).toBe(got.length);
          const want = reference(interest, members, spots, selfId);
          expect(new Set(got)).toEqual(want);
          members = want;
          members.delete(selfId);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("always includes the nearest admitRank within the enter radius, and nobody beyond the nearest keepRank", () => {
    fc.assert(
      fc.property(crowdArb, ({ maxVisible, frames, selfId }) => {
        const interest = new InterestSet(ENTER, EXIT, maxVisible);
        const handleOf = handles();
        for (const spots of frames) {
          const got = new Set(shown(interest, spots, selfId, handleOf));
          const self = spots.find((s) => s.id === selfId)!;
          const ranked = spots
            .filter((s) => s.id !== selfId)
            .map((s) => ({ id: s.id, d2: (s.x - self.x) ** 2 + (s.y - self.y) ** 2 }))
            .sort((a, b) => a.d2 - b.d2 || (a.id < b.id ? -1 : 1));
          ranked.forEach((a, rank) => {
            if (rank < interest.admitRank && a.d2 <= ENTER * ENTER) expect(got.has(a.id)).toBe(true);
            if (rank >= interest.keepRank) expect(got.has(a.id)).toBe(false);
          });
        }
      }),
      { numRuns: 200 },
    );
  });

  it("a crowd of N > K: a viewer gets K at most; removing the cap would show all N", () => {
    const spots: Spot[] = Array.from({ length: 200 }, (_, i) => ({
      id: `agt_${String(i).padStart(4, "0")}`,
      x: 200 + (i % 20) * 3,
      y: 200 + Math.floor(i / 20) * 3,
    }));
    const interest = new InterestSet(ENTER, EXIT, 64);
    // A fresh view: the viewer and the nearest admitRank (50) others; members may stay to 63.
    expect(shown(interest, spots, "agt_0000", handles())).toHaveLength(1 + interest.admitRank);
    const handleOf = handles();
    for (let step = 0; step < 10; step++) {
      const moved = spots.map((s, i) => ({ ...s, x: s.x + ((i * 7 + step * 13) % 11) - 5 }));
      expect(shown(interest, moved, "agt_0000", handleOf).length).toBeLessThanOrEqual(64);
    }
    const uncapped = shown(new InterestSet(ENTER, EXIT, 10_000), spots, "agt_0000", handles());
    expect(uncapped).toHaveLength(200);
  });

  it("does not churn while ranks reshuffle within the margin (ties and swaps)", () => {
    // 30 others at distinct distances; K = 21: keep the nearest 20, admit among the nearest 16.
    const interest = new InterestSet(ENTER, EXIT, 21);
    expect([interest.keepRank, interest.admitRank]).toEqual([20, 16]);
    const handleOf = handles();
    const others = Array.from({ length: 30 }, (_, i) => `hum_${String(i).padStart(3, "0")}`);
    const at = (order: readonly string[]) => [
      { id: "hum_me", x: 500, y: 500 },
      ...order.map((id, rank) => ({ id, x: 500 + 2 * (rank + 1), y: 500 })),
    ];
    const first = new Set(shown(interest, at(others), "hum_me", handleOf));
    expect(first.size).toBe(1 + 16);
    // The members drift to ranks 16..19 while four outsiders move into ranks 12..15: everyone shown
    // stays (still within the nearest 20), the outsiders wait (not among the nearest 16 ... yet).
    let churn = 0;
    let before = first;
    for (let round = 0; round < 20; round++) {
      const order = [...others];
      // Rotate the nearest 20 among themselves: every rank in 0..19 changes hands.
      const head = order.splice(0, 20);
      head.push(...head.splice(0, (round * 7) % 20));
      const now = new Set(shown(interest, at([...head, ...order]), "hum_me", handleOf));
      for (const id of now) if (!before.has(id)) churn += 1;
      for (const id of before) if (!now.has(id)) churn += 1;
      before = now;
    }
    // Entries happen (a non-member reaching the nearest 16 is admitted), leaves never: no member
    // falls out while within the nearest 20, so once all 20 are in, nothing changes any more.
    const last = new Set(shown(interest, at(others), "hum_me", handleOf));
    expect(last.size).toBe(21);
    expect(churn).toBeLessThanOrEqual(4);
    for (const id of first) expect(last.has(id)).toBe(true);
    // Ties: 40 others at exactly the same distance rank by id, the same way every time.
    const tie = new InterestSet(ENTER, EXIT, 21);
    const ring = [
      { id: "hum_me", x: 500, y: 500 },
      ...Array.from({ length: 40 }, (_, i) => ({
        id: `hum_t${String(i).padStart(2, "0")}`,
        x: 500 + [50, -50, 0, 0][i % 4]!,
        y: 500 + [0, 0, 50, -50][i % 4]!,
      })),
    ];
    const tieHandles = handles();
    const a = shown(tie, ring, "hum_me", tieHandles);
    const b = shown(tie, [...ring].reverse(), "hum_me", tieHandles);
    expect(new Set(b)).toEqual(new Set(a));
    expect(a.slice(1).sort()).toEqual(ring.slice(1, 17).map((s) => s.id));
  });

  it("an actor dropped by the cap comes back when it comes near", () => {
    const interest = new InterestSet(ENTER, EXIT, 9); // keep 8, admit 6
    const handleOf = handles();
    const crowd = Array.from({ length: 12 }, (_, i) => ({
      id: `hum_${String(i).padStart(2, "0")}`,
      x: 500 + 3 * (i + 1),
      y: 500,
    }));
    const far = { id: "agt_far", x: 510, y: 500 };
    const me = { id: "hum_me", x: 500, y: 500 };
    expect(shown(interest, [me, far, ...crowd], "hum_me", handleOf)).toContain("agt_far");
    // It walks away behind the crowd (still within the radius): beyond the nearest 8, it is dropped.
    const away = { ...far, x: 560 };
    expect(shown(interest, [me, away, ...crowd], "hum_me", handleOf)).not.toContain("agt_far");
    // Back among the nearest 6: shown again.
    expect(shown(interest, [me, { ...far, x: 502 }, ...crowd], "hum_me", handleOf)).toContain("agt_far");
  });

  it("keeps the distance hysteresis: enters within the enter radius, stays to the exit radius", () => {
    const interest = new InterestSet(ENTER, EXIT, 64);
    const handleOf = handles();
    const me = { id: "hum_me", x: 0, y: 0 };
    const at = (x: number) => shown(interest, [me, { id: "agt_x", x, y: 0 }], "hum_me", handleOf);
    expect(at(110)).toEqual(["hum_me"]);
    expect(at(90)).toEqual(["hum_me", "agt_x"]);
    expect(at(120)).toEqual(["hum_me", "agt_x"]);
    expect(at(130)).toEqual(["hum_me"]);
  });
});

describe("RoomCrowd.nearest", () => {
  it("equals a sort of everyone by (distance, index), in a small room and through the grid, split or not (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ x: fc.integer({ min: 0, max: 900 }), y: fc.integer({ min: 0, max: 900 }) }), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 1200 }),
        fc.record({ x: fc.integer({ min: -100, max: 1000 }), y: fc.integer({ min: -100, max: 1000 }) }),
        fc.integer({ min: 0, max: 40 }),
        (points, limit, radius, at, split) => {
          const spots = points.map((p, i) => ({ id: `a${String(i).padStart(4, "0")}`, ...p }));
          const crowd = new RoomCrowd(spots.map(view), handles(), CELL);
          const out = new Int32Array(limit);
          const d2 = new Float64Array(limit);
          const skip = spots.length ? 0 : -1;
          const count = crowd.nearest(at.x, at.y, radius, limit, skip, out, d2, split);
          const want = spots
            .map((s, i) => ({ i, d2: (s.x - at.x) ** 2 + (s.y - at.y) ** 2 }))
            .filter((c) => c.i !== skip && c.d2 <= radius * radius)
            .sort((a, b) => a.d2 - b.d2 || a.i - b.i)
            .slice(0, limit);
          // The nearest `split` as a set, the rest in order.
          const head = Math.min(split, count);
          expect(count).toBe(want.length);
          expect([...out.subarray(0, head)].sort((a, b) => a - b)).toEqual(
            want
              .slice(0, head)
              .map((c) => c.i)
              .sort((a, b) => a - b),
          );
          expect([...out.subarray(head, count)]).toEqual(want.slice(head).map((c) => c.i));
        },
      ),
      { numRuns: 300 },
    );
  });
});
