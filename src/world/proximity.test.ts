// biome-ignore-all lint/style/noRestrictedImports: the crowd tests run on the bundled lobby world, loaded from its directory (as determinism.test.ts does).
// Proximity bounded per actor (proximity_max_neighbors): the tracker against a brute-force model of
// the rule, equivalence with plain radius membership while nobody is crowded, bounded events in a
// dense crowd through the World, and determinism across snapshot/restore while the cap binds.
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import type { Actor } from "./actor.ts";
import { type ProximityChange, ProximityTracker, tieKey } from "./proximity.ts";
import { SpatialGrid } from "./spatial-grid.ts";
import { join } from "./testing/helpers.ts";
import { Crowd } from "./testing/plaza-crowd.ts";
import type { Input, WorldEvent, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";

const lobby = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));

// ---------------------------------------------------------------------------------------------
// The model: the rule written the obvious way (sort everyone, per tick), no grid, no heap.
// ---------------------------------------------------------------------------------------------

interface ModelPair {
  lo: Actor;
  hi: Actor;
  inside: boolean;
  counter: number;
}

const keyOf = (x: Actor, y: Actor) =>
  x.handle < y.handle ? `${x.handle}:${y.handle}` : `${y.handle}:${x.handle}`;
const dist2 = (x: Actor, y: Actor) => {
  const dx = y.x - x.x;
  const dy = y.y - x.y;
  return dx * dx + dy * dy;
};

class Model {
  readonly pairs = new Map<string, ModelPair>();
  private readonly radius: number;
  private readonly max: number;
  private readonly debounce: number;
  /** max = Infinity is plain radius membership (the rule before the cap). */
  constructor(radius: number, max: number, debounce: number) {
    this.radius = radius;
    this.max = max;
    this.debounce = debounce;
  }

  count(a: Actor): number {
    let n = 0;
    for (const p of this.pairs.values()) if (p.inside && (p.lo === a || p.hi === a)) n++;
    return n;
  }

  step(actors: readonly Actor[]): [string, string, boolean][] {
    const r2 = this.radius * this.radius;
    const open = actors.filter((a) => this.count(a) < this.max);
    const candidates = new Map<string, number>();
    for (const a of open) {
      // Someone alone looks at everyone (it may take a full one's place), the others at the open.
      const near = (this.count(a) === 0 ? actors : open)
        .filter((b) => b !== a && dist2(a, b) <= r2)
        .sort((p, q) => (nearer(a, p, q) ? -1 : 1))
        .slice(0, this.max);
      for (const b of near) {
        candidates.set(keyOf(a, b), dist2(a, b));
        if (!this.pairs.has(keyOf(a, b))) {
          const [lo, hi] = a.handle < b.handle ? [a, b] : [b, a];
          this.pairs.set(keyOf(a, b), { lo, hi, inside: false, counter: 0 });
        }
      }
    }
    const changes: [Actor, Actor, boolean][] = [];
    const ready: [string, ModelPair][] = [];
    for (const [key, p] of this.pairs) {
      if (p.inside) {
        if (dist2(p.lo, p.hi) <= r2) p.counter = 0;
        else if (++p.counter >= this.debounce) {
          p.inside = false;
          p.counter = 0;
          changes.push([p.lo, p.hi, false]);
        }
      } else if (!candidates.has(key)) p.counter = 0;
      else if (p.counter + 1 >= this.debounce) {
        p.counter = this.debounce;
        ready.push([key, p]);
      } else p.counter++;
    }
    const admissible = ready.filter(
      ([, p]) =>
        (this.count(p.lo) < this.max && this.count(p.hi) < this.max) ||
        this.count(p.lo) === 0 ||
        this.count(p.hi) === 0,
    );
    // Each actor's farthest partner before the entries.
    const farthest = new Map<Actor, ModelPair>();
    for (const p of this.pairs.values()) {
      if (!p.inside) continue;
      for (const [self, other] of [
        [p.lo, p.hi],
        [p.hi, p.lo],
      ] as const) {
        const best = farthest.get(self);
        if (!best || nearer(self, best.lo === self ? best.hi : best.lo, other)) farthest.set(self, p);
      }
    }
    admissible.sort(
      ([k1, p], [k2, q]) =>
        candidates.get(k1)! - candidates.get(k2)! ||
        tieKey(p.lo.handle, p.hi.handle) - tieKey(q.lo.handle, q.hi.handle) ||
        p.lo.handle - q.lo.handle ||
        p.hi.handle - q.hi.handle,
    );
    const swapped = new Set<Actor>();
    for (const [, p] of admissible) {
      if (this.count(p.lo) >= this.max || this.count(p.hi) >= this.max) {
        const full = this.count(p.lo) >= this.max ? p.lo : p.hi;
        const alone = full === p.lo ? p.hi : p.lo;
        if (this.count(alone) !== 0 || swapped.has(full)) continue;
        const f = farthest.get(full);
        if (!f?.inside) continue;
        const partner = f.lo === full ? f.hi : f.lo;
        if (this.count(partner) < 2) continue;
        f.inside = false;
        f.counter = 0;
        changes.push([f.lo, f.hi, false]);
        swapped.add(full);
      }
      p.inside = true;
      p.counter = 0;
      changes.push([p.lo, p.hi, true]);
    }
    for (const [key, p] of this.pairs) if (!p.inside && p.counter === 0) this.pairs.delete(key);
    return sortChanges(changes.map(([x, y, inside]) => [x.id, y.id, inside]));
  }

  remove(a: Actor): [string, string, boolean][] {
    const out: [string, string, boolean][] = [];
    for (const [key, p] of this.pairs) {
      if (p.lo !== a && p.hi !== a) continue;
      if (p.inside) out.push([p.lo.id, p.hi.id, false]);
      this.pairs.delete(key);
    }
    return sortChanges(out);
  }
}

/** Whether p ranks before q among self's neighbours: distance, then the pair's tie key, then handle. */
function nearer(self: Actor, p: Actor, q: Actor): boolean {
  const dp = dist2(self, p);
  const dq = dist2(self, q);
  if (dp !== dq) return dp < dq;
  const tp = tieKey(self.handle, p.handle);
  const tq = tieKey(self.handle, q.handle);
  return tp !== tq ? tp < tq : p.handle < q.handle;
}

function sortChanges(list: [string, string, boolean][]): [string, string, boolean][] {
  return list
    .map(([x, y, inside]): [string, string, boolean] => (x < y ? [x, y, inside] : [y, x, inside]))
    .sort(([a1, b1], [a2, b2]) => (a1 < a2 ? -1 : a1 > a2 ? 1 : b1 < b2 ? -1 : b1 > b2 ? 1 : 0));
}

const asTuples = (list: ProximityChange[]) =>
  list.map((c): [string, string, boolean] => [c.a.id, c.b.id, c.inside]);

// ---------------------------------------------------------------------------------------------
// Random walks of a small crowd on a 16 x 12 tile area (32 px tiles): steps on a 4 px lattice and
// jumps to tile centres, so equal distances and actors on one spot are common. The map around it is
// 1, 4 or 10 times as wide and high: with the smallest radius the scan then uses coarser cells.
// ---------------------------------------------------------------------------------------------

const WIDTH = 16 * 32;
const HEIGHT = 12 * 32;

const walkArb = fc.record({
  actors: fc.integer({ min: 2, max: 24 }),
  max: fc.integer({ min: 1, max: 6 }),
  debounce: fc.integer({ min: 1, max: 3 }),
  radius: fc.constantFrom(20, 48, 64, 100, 128),
  spread: fc.constantFrom(2, 4, 16), // tiles: how far apart the crowd starts
  map: fc.constantFrom(1, 1, 4, 10),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

/** Runs the tracker and the model side by side for `ticks`; calls `check` after every tick. */
function walk(
  params: {
    actors: number;
    max: number;
    debounce: number;
    radius: number;
    spread: number;
    map: number;
    seed: number;
  },
  ticks: number,
  modelMax: number,
  check: (tracker: [string, string, boolean][], model: [string, string, boolean][], actors: Actor[]) => void,
): void {
  const { max, debounce, radius } = params;
  let state = params.seed;
  const rand = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state % n;
  };
  let nextHandle = 1;
  const spawn = (i: number): Actor =>
    ({
      id: `agt_${String(i).padStart(2, "0")}`,
      handle: nextHandle++ * 7, // sparse handles, not in id order after a rejoin
      x: 16 + rand(params.spread * 32),
      y: 16 + rand(params.spread * 32),
      rank: i,
      proximityCount: 0,
      roomId: "r",
    }) as Actor;
  const actors = Array.from({ length: params.actors }, (_, i) => spawn(i));
  const grid = new SpatialGrid(WIDTH * params.map, HEIGHT * params.map, radius);
  const tracker = new ProximityTracker();
  const model = new Model(radius, modelMax, debounce);
  for (let tick = 0; tick < ticks; tick++) {
    const r = rand(100);
    if (r < 3) {
      // One actor leaves and rejoins (a new handle, no places taken).
      const i = rand(actors.length);
      check(asTuples(tracker.removeActor(actors[i]!)), model.remove(actors[i]!), actors);
      actors[i] = spawn(i);
    }
    for (const a of actors) {
      const move = rand(10);
      if (move < 4) continue;
      if (move === 9) {
        a.x = (rand(WIDTH / 32) + 0.5) * 32;
        a.y = (rand(HEIGHT / 32) + 0.5) * 32;
      } else {
        a.x = Math.min(WIDTH - 1, Math.max(0, a.x + (rand(9) - 4) * 4));
        a.y = Math.min(HEIGHT - 1, Math.max(0, a.y + (rand(9) - 4) * 4));
      }
    }
    tracker.scanRoom(actors, grid, radius, max, tick);
    check(asTuples(tracker.settle(tick, debounce, radius, max)), model.step(actors), actors);
  }
}

describe("proximity bounded per actor", () => {
  it("the tracker (grid, ring search, top-k heap) reports exactly the brute-force model's changes", () => {
    fc.assert(
      fc.property(walkArb, (params) => {
        walk(params, 120, params.max, (tracker, model, actors) => {
          expect(tracker).toEqual(model);
          for (const a of actors) expect(a.proximityCount).toBeLessThanOrEqual(params.max);
        });
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    // A swap took the place of a pair already on its way out (exit debounce running) and left it
    // half-reset: a pending pair nobody had found.
    [{ actors: 22, max: 2, debounce: 3, radius: 100, spread: 2, map: 1, seed: 687346937 }],
    // An actor outside the map (clamped into an edge cell) has a negative ring bound; squared, it
    // stopped the search before a nearer neighbour two rings away.
    [{ actors: 20, max: 1, debounce: 2, radius: 128, spread: 16, map: 1, seed: 1165777233 }],
  ])("agrees with the model on a found counterexample (%j)", (params) => {
    walk(params, 120, params.max, (tracker, model) => expect(tracker).toEqual(model));
  });

  it("while nobody has max others around, it is plain radius membership; in a crowd it is not", () => {
    // Crowds of at most max + 1 actors: nobody can have more than max others within the radius.
    fc.assert(
      fc.property(walkArb, (params) => {
        const sparse = { ...params, actors: Math.min(params.actors, params.max + 1) };
        walk(sparse, 120, Number.POSITIVE_INFINITY, (tracker, radiusOnly) =>
          expect(tracker).toEqual(radiusOnly),
        );
      }),
      { numRuns: 150 },
    );
    // 12 actors packed within 2 tiles, at most 3 each: radius membership would give each up to 11.
    let differed = false;
    walk(
      { actors: 12, max: 3, debounce: 2, radius: 128, spread: 2, map: 1, seed: 7 },
      60,
      Number.POSITIVE_INFINITY,
      (t, m) => {
        if (JSON.stringify(t) !== JSON.stringify(m)) differed = true;
      },
    );
    expect(differed).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the World: the load harness's crowd in the lobby plaza.
// ---------------------------------------------------------------------------------------------

/** Partners per actor as the events tell them (enter +1, exit -1), checked after every tick. */
function partnersFrom(events: readonly WorldEvent[], partners: Map<string, Set<string>>): void {
  for (const e of events) {
    if (e.type !== "proximity.enter" && e.type !== "proximity.exit") continue;
    const subject = e.payload.subjectId as string;
    const set = partners.get(subject) ?? new Set<string>();
    partners.set(subject, set);
    if (e.type === "proximity.enter") set.add(e.payload.otherId as string);
    else set.delete(e.payload.otherId as string);
  }
}

describe("proximity in the lobby crowd", () => {
  it("300 walkers: at most max partners each, at most 2 x max proximity events per actor per tick", () => {
    const max = lobby.proximityMaxNeighbors;
    expect(max).toBe(12);
    const radius = lobby.proximityRadiusTiles * 32;
    const world = World.create(lobby);
    const crowd = new Crowd(world, 300);
    const partners = new Map<string, Set<string>>();
    partnersFrom(crowd.joinEvents, partners);
    let total = 0;
    let crowded = 0;
    for (let t = 0; t < 160; t++) {
      const events = world.step(crowd.inputs()).events;
      partnersFrom(events, partners);
      const perSubject = new Map<string, number>();
      for (const e of events) {
        if (!e.type.startsWith("proximity.")) continue;
        total++;
        const s = e.payload.subjectId as string;
        perSubject.set(s, (perSubject.get(s) ?? 0) + 1);
      }
      for (const n of perSubject.values()) expect(n).toBeLessThanOrEqual(2 * max);
      for (const set of partners.values()) expect(set.size).toBeLessThanOrEqual(max);
      // The cap binds: actors have more than max others within the radius.
      if (t % 20 === 0) {
        for (const id of crowd.ids) {
          const self = world.getEntity(id)!;
          if (world.queryRadius(self.roomId, self.pos, radius).length - 1 > max) crowded++;
        }
      }
    }
    expect(crowded).toBeGreaterThan(0);
    // Without the cap this crowd appends ~1,150 proximity events a tick (bench:crowd before the cap).
    expect(total / 160).toBeLessThan(400);
  });

  it("queryRadius with a limit answers the nearest `limit` of the full answer, in the same order", () => {
    const world = World.create(lobby);
    const crowd = new Crowd(world, 300);
    for (let t = 0; t < 40; t++) world.step(crowd.inputs());
    for (const id of crowd.ids.slice(0, 20)) {
      const self = world.getEntity(id)!;
      const all = world.queryRadius(self.roomId, self.pos, 400);
      expect(all.length).toBeGreaterThan(50);
      for (const limit of [0, 1, 17, 50, all.length + 5]) {
        expect(world.queryRadius(self.roomId, self.pos, 400, limit)).toEqual(all.slice(0, limit));
      }
    }
  });

  it("a pile on one tile: everyone gets partners, none more than max", () => {
    const max = 5;
    const world = World.create({ ...lobby, proximityMaxNeighbors: max });
    // A walk never ends on another's tile (free-tile.ts): the pile joins there, as residents
    // sharing a home tile would.
    const crowd = { ids: Array.from({ length: 60 }, (_, i) => `agt_pile_${i}`) };
    const partners = new Map<string, Set<string>>();
    const joins = world.step(crowd.ids.map((entityId) => pileJoin(entityId, { tx: 20, ty: 14 })));
    expect(joins.results.every((r) => r.ok)).toBe(true);
    partnersFrom(joins.events, partners);
    for (let t = 0; t < 300; t++) {
      partnersFrom(world.step([]).events, partners);
      for (const set of partners.values()) expect(set.size).toBeLessThanOrEqual(max);
    }
    for (const id of crowd.ids) expect(world.getEntity(id)!.tile).toEqual({ tx: 20, ty: 14 });
    const sizes = crowd.ids.map((id) => partners.get(id)?.size ?? 0);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    // Symmetric: every partner names the other back.
    for (const [id, set] of partners)
      for (const other of set) expect(partners.get(other)?.has(id)).toBe(true);
  });

  it("someone arriving at an idle crowd whose places are all taken still gets a partner", () => {
    const max = 3;
    const world = World.create({ ...lobby, proximityMaxNeighbors: max });
    const crowd = { ids: Array.from({ length: 20 }, (_, i) => `agt_pile_${i}`) };
    const partners = new Map<string, Set<string>>();
    const here = { tx: 20, ty: 14 };
    // They come one by one, as walkers into a pile would.
    for (const entityId of crowd.ids) partnersFrom(world.step([pileJoin(entityId, here)]).events, partners);
    for (let t = 0; t < 200; t++) partnersFrom(world.step([]).events, partners);
    for (const id of crowd.ids) expect(partners.get(id)?.size).toBe(max); // all full
    partnersFrom(world.step([join("agt_late")]).events, partners);
    partnersFrom(
      world.step([{ kind: "moveTo", entityId: "agt_late", dest: { tx: 21, ty: 14 } }]).events,
      partners,
    );
    for (let t = 0; t < 300; t++) partnersFrom(world.step([]).events, partners);
    expect(world.getEntity("agt_late")!.tile).toEqual({ tx: 21, ty: 14 });
    expect(partners.get("agt_late")?.size).toBeGreaterThan(0);
    for (const set of partners.values()) expect(set.size).toBeLessThanOrEqual(max);
  });

  it("a snapshot from a larger cap restores: those over the new cap only lose partners", () => {
    const wide = { ...lobby, eventRetention: 200, proximityMaxNeighbors: 256 };
    const world = World.create(wide);
    const crowd = new Crowd(world, 40);
    for (let t = 0; t < 60; t++) world.step(crowd.inputs());
    const max = 3;
    const restored = World.restore({ ...wide, proximityMaxNeighbors: max }, world.snapshot());
    const counts = () => {
      const out = new Map<string, number>(crowd.ids.map((id) => [id, 0]));
      for (const p of restored.snapshot().state.proximity as { a: string; b: string; inside: boolean }[]) {
        if (!p.inside) continue;
        out.set(p.a, out.get(p.a)! + 1);
        out.set(p.b, out.get(p.b)! + 1);
      }
      return out;
    };
    let before = counts();
    expect(Math.max(...before.values())).toBeGreaterThan(max);
    for (let t = 0; t < 200; t++) {
      restored.step(crowd.inputs());
      const after = counts();
      for (const [id, n] of after) expect(n).toBeLessThanOrEqual(Math.max(max, before.get(id)!));
      before = after;
    }
    expect(Math.max(...before.values())).toBeLessThanOrEqual(max);
  });

  it("snapshot at tick k, restore, run on == the uninterrupted run while the cap binds", () => {
    const def = { ...lobby, eventRetention: 200, proximityMaxNeighbors: 3 };
    const ticks = 160;
    // The crowd's inputs, recorded once: both runs replay the same script.
    const script: Input[][] = [];
    const full = World.create(def);
    const crowd = new Crowd(full, 40);
    const hashes: string[] = [];
    const events: WorldEvent[][] = [];
    let waiting = 0; // ticks where some pair held its debounce but found no place
    for (let t = 0; t < ticks; t++) {
      const inputs = crowd.inputs();
      script.push(inputs);
      events.push(full.step(inputs).events);
      hashes.push(full.snapshotHash());
      const pairs = full.snapshot().state.proximity as { inside: boolean; counter: number }[];
      if (pairs.some((p) => !p.inside && p.counter >= def.proximityDebounceTicks)) waiting++;
    }
    expect(waiting).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.nat(ticks - 1), (k) => {
        const head = World.create(def);
        new Crowd(head, 40); // the same joins
        for (let t = 0; t < k; t++) head.step(script[t]!);
        const restored = World.restore(def, JSON.parse(JSON.stringify(head.snapshot())) as WorldSnapshot);
        expect(restored.snapshotHash()).toBe(head.snapshotHash());
        for (let t = k; t < ticks; t++) {
          expect(restored.step(script[t]!).events).toEqual(events[t]);
          expect(restored.snapshotHash()).toBe(hashes[t]);
        }
      }),
      { numRuns: 4 },
    );
  });
});

/** An agent joining at `at` (a shared home tile makes a pile: walks end beside one another). */
function pileJoin(entityId: string, at: { tx: number; ty: number }): Input {
  return { kind: "join", entityId, actorKind: "agent", name: entityId, at };
}
