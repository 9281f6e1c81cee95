// World signals: counts per region and kind over the recent window of simulation time. The properties
// compare the world's incremental counters with a brute-force recount from what an outside observer
// sees (input results and where each actor stands after every tick, with regions from the definition's
// rectangles), and check that replay and snapshot/restore give the same counts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SIGNAL_BUCKET_SEC,
  SIGNAL_KINDS,
  SIGNAL_WINDOW_BUCKETS,
  type SignalCounts,
  type SignalKind,
  zeroCounts,
} from "./signals.ts";
import { fixtureWorld, openRoom } from "./testing/fixtures.ts";
import { join, one, run } from "./testing/helpers.ts";
import type { Input, TileCoord, WorldDefinition, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

const TICK_RATE = 10; // the slowest rate: fewest ticks per window, so scripts cross it cheaply
const BUCKET_TICKS = SIGNAL_BUCKET_SEC * TICK_RATE;

/** Room "a" (20x12, a wall at x=10 with a door gap on row 9, a sign, a portal to "b") with regions
 * "west" and a nested "nook" around the spawn, "east" beyond the wall; room "b" with one region. */
function signalWorld(): WorldDefinition {
  const rows = openRoom(20, 12).map((row, y) =>
    y >= 1 && y <= 10 && y !== 9 ? `${row.slice(0, 10)}#${row.slice(11)}` : row,
  );
  const def = fixtureWorld([
    {
      id: "a",
      rows,
      objects: [
        { type: "spawn", name: "s1", tx: 2, ty: 2 },
        { type: "spawn", name: "s3", tx: 8, ty: 8 },
        { type: "sign", name: "sign_hello", tx: 4, ty: 2, props: { text: "Hello there" } },
        { type: "door", name: "door_a", tx: 10, ty: 9, props: { open: true } },
        {
          type: "portal",
          name: "portal_ab",
          tx: 12,
          ty: 5,
          props: { targetRoom: "b", targetTx: 3, targetTy: 3 },
        },
      ],
      regions: [
        { id: "west", label: "West", tx: 1, ty: 1, w: 9, h: 10 },
        { id: "nook", label: "Nook", tx: 1, ty: 1, w: 4, h: 3 },
        { id: "east", label: "East", tx: 11, ty: 1, w: 8, h: 10 },
      ],
    },
    {
      id: "b",
      rows: openRoom(12, 10),
      objects: [
        { type: "spawn", name: "s2", tx: 2, ty: 2 },
        {
          type: "portal",
          name: "portal_ba",
          tx: 5,
          ty: 5,
          props: { targetRoom: "a", targetTx: 12, targetTy: 6 },
        },
      ],
      regions: [{ id: "b_hall", label: "Hall B", tx: 1, ty: 1, w: 6, h: 6 }],
    },
  ]);
  return { ...def, tickRate: TICK_RATE };
}
const def = signalWorld();

/** The brute-force side: regions straight from the definition's rectangles. */
function regionIdsAt(roomId: string, tile: TileCoord): string[] {
  return def.rooms[roomId]!.regions.filter(
    (r) =>
      tile.tx >= r.tile.tx &&
      tile.tx < r.tile.tx + r.widthTiles &&
      tile.ty >= r.tile.ty &&
      tile.ty < r.tile.ty + r.heightTiles,
  ).map((r) => r.id);
}

interface Entry {
  tick: number;
  roomId: string;
  /** "*" for the room as a whole, else a region id. */
  scope: string;
  kind: SignalKind;
}
type Place = { roomId: string; tile: TileCoord } | undefined;

/** Runs steps and records, from outside the world, every count the signals should hold. */
class Recount {
  readonly entries: Entry[] = [];
  private readonly places = new Map<string, Place>();
  readonly world: World;
  readonly ids: readonly string[];
  constructor(world: World, ids: readonly string[]) {
    this.world = world;
    this.ids = ids;
    for (const id of ids) this.places.set(id, this.placeOf(id));
  }

  private placeOf(id: string): Place {
    const e = this.world.getEntity(id);
    return e ? { roomId: e.roomId, tile: { ...e.tile } } : undefined;
  }

  private add(tick: number, place: NonNullable<Place>, kind: SignalKind, room: boolean, regions: string[]) {
    if (room) this.entries.push({ tick, roomId: place.roomId, scope: "*", kind });
    for (const scope of regions) this.entries.push({ tick, roomId: place.roomId, scope, kind });
  }

  step(inputs: Input[]): void {
    const result = this.world.step(inputs);
    const tick = result.tick;
    /** Actors whose room change this tick an input explains (a join, a portal used); any other
     * room change is a walk onto a portal, which counts as using it, where it stood (the portal's
     * neighbours share its regions in this map). */
    const explained = new Set<string>();
    inputs.forEach((input, i) => {
      const r = result.results[i]!;
      const usedPortal =
        input.kind === "interact" &&
        input.targetId.startsWith("obj_portal") &&
        r.ok &&
        r.value.kind === "interact" &&
        r.value.outcome.type === "ok";
      if (r.ok && (r.value.kind === "join" || usedPortal)) explained.add(input.entityId);
    });
    for (const id of this.ids) {
      const before = this.places.get(id);
      const after = this.placeOf(id);
      if (before && after && before.roomId !== after.roomId && !explained.has(id))
        this.add(tick, before, "interact", true, regionIdsAt(before.roomId, before.tile));
    }
    inputs.forEach((input, i) => {
      const r = result.results[i]!;
      const before = this.places.get(input.entityId);
      if (!r.ok || !before) return;
      const regions = regionIdsAt(before.roomId, before.tile);
      const v = r.value;
      const acted =
        (v.kind === "moveTo" && v.result === "accepted") ||
        (input.kind === "moveDir" && (input.dx !== 0 || input.dy !== 0)) ||
        (v.kind === "interact" && v.outcome.type === "ok") ||
        v.kind === "chat";
      const kind: SignalKind = v.kind === "chat" ? "chat" : v.kind === "interact" ? "interact" : "move";
      if (acted) this.add(tick, before, kind, true, regions);
    });
    for (const id of this.ids) {
      const before = this.places.get(id);
      const after = this.placeOf(id);
      this.places.set(id, after);
      const sameRoom = before && after && before.roomId === after.roomId;
      const was = before ? regionIdsAt(before.roomId, before.tile) : [];
      const is = after ? regionIdsAt(after.roomId, after.tile) : [];
      if (before && !sameRoom) this.add(tick, before, "depart", true, was);
      if (after && !sameRoom) this.add(tick, after, "arrive", true, is);
      if (sameRoom) {
        this.add(
          tick,
          before,
          "depart",
          false,
          was.filter((r) => !is.includes(r)),
        );
        this.add(
          tick,
          after,
          "arrive",
          false,
          is.filter((r) => !was.includes(r)),
        );
      }
    }
  }

  /** The counts over the window that ends with the world's current tick. */
  expected(roomId: string, scope: string): SignalCounts {
    const current = Math.floor(this.world.tick / BUCKET_TICKS);
    const counts = zeroCounts();
    for (const e of this.entries) {
      if (e.roomId !== roomId || e.scope !== scope) continue;
      if (Math.floor(e.tick / BUCKET_TICKS) <= current - SIGNAL_WINDOW_BUCKETS) continue;
      counts[e.kind]++;
    }
    return counts;
  }

  check(): void {
    for (const roomId of Object.keys(def.rooms)) {
      const view = this.world.signals(roomId)!;
      expect(view.room, `${roomId} @${this.world.tick}`).toEqual(this.expected(roomId, "*"));
      for (const region of view.regions) {
        expect(region.counts, `${roomId}/${region.id} @${this.world.tick}`).toEqual(
          this.expected(roomId, region.id),
        );
      }
    }
  }
}

const ACTORS = ["agt_a", "agt_b", "hum_c"] as const;
const TARGETS = ["obj_sign_hello", "obj_door_a", "obj_portal_ab", "obj_portal_ba"] as const;

/** One actor's input for a tick, from small numbers (at most one input per actor and tick). */
const inputArb: fc.Arbitrary<(id: string) => Input> = fc.oneof(
  fc.constant((id: string): Input => join(id)),
  fc.constant((id: string): Input => ({ kind: "leave", entityId: id, reason: "disconnect" })),
  fc.record({ tx: fc.nat(19), ty: fc.nat(11) }).map(
    (dest) =>
      (id: string): Input => ({ kind: "moveTo", entityId: id, dest }),
  ),
  fc.record({ dx: fc.integer({ min: -1, max: 1 }), dy: fc.integer({ min: -1, max: 1 }) }).map(
    ({ dx, dy }) =>
      (id: string): Input => ({ kind: "moveDir", entityId: id, dx, dy }),
  ),
  fc
    .record({ target: fc.constantFrom(...TARGETS), action: fc.constantFrom("read", "open", "close", "use") })
    .map(
      ({ target, action }) =>
        (id: string): Input => ({ kind: "interact", entityId: id, targetId: target, action }),
    ),
  fc.constantFrom("proximity", "global").map(
    (channel) =>
      (id: string): Input => ({ kind: "chat", entityId: id, channel: channel as "global", message: "hi" }),
  ),
);
/** A script: per step, optional inputs for each actor, then some idle ticks (crossing buckets). */
const scriptArb = fc.array(
  fc.record({
    inputs: fc.array(fc.option(inputArb, { nil: undefined }), {
      minLength: ACTORS.length,
      maxLength: ACTORS.length,
    }),
    idle: fc.nat(70),
  }),
  { minLength: 5, maxLength: 40 },
);
type ScriptT = typeof scriptArb extends fc.Arbitrary<infer T> ? T : never;

function inputsOf(step: ScriptT[number]): Input[] {
  const inputs: Input[] = [];
  step.inputs.forEach((make, i) => {
    if (make) inputs.push(make(ACTORS[i]!));
  });
  return inputs;
}

describe("world signals", () => {
  it("count a room's actions in the regions where the actor stands, never elsewhere", () => {
    const world = World.create(def);
    one(world, join("agt_a")); // spawns at s1 (2,2) or s3 (8,8): both in "west"
    const where = regionIdsAt("a", world.getEntity("agt_a")!.tile);
    one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "hello" });
    const view = world.signals("a")!;
    expect(view.windowSec).toBe(60);
    expect(view.room).toEqual({ ...zeroCounts(), arrive: 1, chat: 1 });
    for (const region of view.regions) {
      const inside = where.includes(region.id);
      expect(region.counts, region.id).toEqual(
        inside ? { ...zeroCounts(), arrive: 1, chat: 1 } : zeroCounts(),
      );
    }
    expect(world.signals("b")!.room).toEqual(zeroCounts());
    expect(world.signals("nowhere")).toBeUndefined();
  });

  it("forget what is older than the window; sinceTsMs is the window's exact start", () => {
    const world = World.create(def);
    one(world, join("agt_a"));
    expect(world.signals("a")!.room.arrive).toBe(1);
    expect(world.signals("a")!.sinceTsMs).toBe(def.epochMs);
    // The join was in bucket 0; the window drops it once bucket 12 begins.
    run(world, SIGNAL_WINDOW_BUCKETS * BUCKET_TICKS - 2);
    expect(world.tick).toBe(SIGNAL_WINDOW_BUCKETS * BUCKET_TICKS - 1);
    expect(world.signals("a")!.room.arrive).toBe(1);
    run(world, 1);
    expect(world.signals("a")!.room.arrive).toBe(0);
    expect(world.signals("a")!.sinceTsMs).toBe(def.epochMs + SIGNAL_BUCKET_SEC * 1000);
  });

  it("a portal trip departs one room and its regions and arrives in the other's", () => {
    const world = World.create(def);
    one(world, join("agt_a"));
    one(world, { kind: "moveTo", entityId: "agt_a", dest: { tx: 12, ty: 6 } });
    run(world, 200);
    expect(world.getEntity("agt_a")!.tile).toEqual({ tx: 12, ty: 6 });
    const used = one(world, {
      kind: "interact",
      entityId: "agt_a",
      targetId: "obj_portal_ab",
      action: "use",
    });
    expect(used.ok && used.value).toMatchObject({ outcome: { type: "ok" } });
    const a = world.signals("a")!;
    const region = (id: string) => a.regions.find((r) => r.id === id)!.counts;
    expect(a.room).toMatchObject({ arrive: 1, depart: 1, move: 1, interact: 1 });
    expect(region("east")).toMatchObject({ arrive: 1, depart: 1, interact: 1, move: 0 });
    expect(region("west")).toMatchObject({ depart: 1, move: 1, interact: 0 });
    const b = world.signals("b")!;
    expect(b.room).toEqual({ ...zeroCounts(), arrive: 1 });
    expect(b.regions[0]!.counts).toEqual({ ...zeroCounts(), arrive: 1 });
  });

  it("property: the counts equal a brute-force recount over the window at every step (so no region counts what happened outside it)", () => {
    fc.assert(
      fc.property(scriptArb, (script) => {
        const recount = new Recount(World.create(def), ACTORS);
        for (const step of script) {
          recount.step(inputsOf(step));
          recount.check();
          for (let i = 0; i < step.idle; i++) recount.step([]);
          recount.check();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("property: replay and snapshot/restore give the same signals at every tick", () => {
    fc.assert(
      fc.property(scriptArb, fc.nat(1000), (script, cut) => {
        const ticks: Input[][] = [];
        for (const step of script) {
          ticks.push(inputsOf(step));
          for (let i = 0; i < step.idle; i++) ticks.push([]);
        }
        const k = cut % ticks.length;
        const full = World.create(def);
        const replay = World.create(def);
        let restored: World | undefined;
        ticks.forEach((inputs, t) => {
          full.step(inputs);
          replay.step(inputs);
          if (t === k) {
            const saved = JSON.parse(JSON.stringify(full.snapshot())) as WorldSnapshot;
            restored = World.restore(def, saved);
            expect(restored.snapshotHash()).toBe(full.snapshotHash());
          } else restored?.step(inputs);
          for (const roomId of ["a", "b"]) {
            expect(replay.signals(roomId)).toEqual(full.signals(roomId));
            if (restored) expect(restored.signals(roomId)).toEqual(full.signals(roomId));
          }
        });
        expect(restored!.snapshotHash()).toBe(full.snapshotHash());
      }),
      { numRuns: 25 },
    );
  });

  describe("in snapshots", () => {
    function busyWorld(): World {
      const world = World.create(def);
      one(world, join("agt_a"));
      one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "hello" });
      return world;
    }
    const edited = (edit: (room: Record<string, unknown>) => void): WorldSnapshot => {
      const snapshot = JSON.parse(JSON.stringify(busyWorld().snapshot())) as WorldSnapshot;
      edit((snapshot.state.rooms as Record<string, Record<string, unknown>>).a!);
      return snapshot;
    };
    const refusal = (snapshot: WorldSnapshot): string => {
      try {
        World.restore(def, snapshot);
      } catch (error) {
        expect(error).toBeInstanceOf(SnapshotMismatchError);
        return (error as Error).message;
      }
      throw new Error("expected a refusal");
    };
    type Bucket = { bucket: number; room: number[]; regions: Record<string, number[]> };
    const first = (room: Record<string, unknown>) => (room.signals as Bucket[])[0]!;

    it("are saved per bucket and restored exactly", () => {
      const world = busyWorld();
      const saved = world.snapshot();
      const rooms = saved.state.rooms as Record<string, { signals: Bucket[] }>;
      expect(rooms.a!.signals).toHaveLength(1);
      expect(rooms.a!.signals[0]!.room).toEqual(
        SIGNAL_KINDS.map((k) => (k === "arrive" || k === "chat" ? 1 : 0)),
      );
      const restored = World.restore(def, JSON.parse(JSON.stringify(saved)));
      expect(restored.signals("a")).toEqual(world.signals("a"));
    });

    it("refuse unknown regions, wrong lengths, unordered buckets and buckets outside the window", () => {
      expect(refusal(edited((room) => (first(room).regions.plaza = [1, 0, 0, 0, 0])))).toContain(
        "unknown region plaza",
      );
      expect(refusal(edited((room) => (first(room).room = [1, 2])))).toContain("malformed");
      expect(refusal(edited((room) => (first(room).room = [-1, 0, 0, 0, 0])))).toContain("malformed");
      expect(refusal(edited((room) => (first(room).bucket = 5)))).toContain("outside the window");
      expect(refusal(edited((room) => (room.signals = [first(room), first(room)])))).toContain(
        "signal buckets must increase",
      );
      expect(
        refusal(edited((room) => ((first(room) as unknown as Record<string, number>).extra = 1))),
      ).toContain("malformed");
    });

    it("a snapshot from before world signals (no `signals`) restores with no recent activity", () => {
      const old = edited((room) => delete room.signals);
      const restored = World.restore(def, old);
      expect(restored.signals("a")!.room).toEqual(zeroCounts());
      expect(restored.getEntity("agt_a")).toBeDefined();
    });
  });
});
