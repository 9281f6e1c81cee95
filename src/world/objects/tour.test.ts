import { describe, expect, it } from "vitest";
import {
  type FixtureRoom,
  fixtureFiles,
  fixtureWorld,
  openRoom,
  worldLoadError,
} from "../testing/fixtures.ts";
import { join, one, run, walkTo } from "../testing/helpers.ts";
import type { InputResult, WorldDefinition } from "../types.ts";
import { World } from "../world.ts";

const TOUR = "obj_tour";
const ANN = "hum_ann";

function rooms(stops = "north east south far"): FixtureRoom[] {
  return [
    {
      id: "a",
      rows: openRoom(20, 12),
      objects: [
        { type: "spawn", name: "s1", tx: 2, ty: 5 },
        { type: "tour", name: "tour", tx: 2, ty: 2, props: { stops, guide: "Guide", offerTiles: 2 } },
      ],
      regions: [
        { id: "north", label: "North", tx: 10, ty: 1, w: 3, h: 3 },
        { id: "east", label: "East", tx: 16, ty: 6, w: 3, h: 3 },
        { id: "south", label: "South", tx: 6, ty: 8, w: 3, h: 3 },
      ],
    },
    {
      id: "b",
      rows: openRoom(12, 8),
      objects: [{ type: "spawn", name: "s2", tx: 2, ty: 2 }],
      regions: [{ id: "far", label: "Far Corner", tx: 7, ty: 4, w: 3, h: 3 }],
    },
  ];
}

const world = (def: WorldDefinition = fixtureWorld(rooms())) => World.create(def);

function outcome(r: InputResult) {
  if (!r.ok || r.value.kind !== "interact") throw new Error(`unexpected ${JSON.stringify(r)}`);
  return r.value.outcome;
}

const use = (w: World, who: string, action: string) =>
  outcome(one(w, { kind: "interact", entityId: who, targetId: TOUR, action }));
/** The Guide's lines to `who` in a room, oldest first. */
const guideLines = (w: World, who: string, roomId = "a") =>
  w
    .chatFor(who, roomId, 0)
    .filter((m) => m.fromEntityId === TOUR)
    .map((m) => `${m.fromName}: ${m.message}`);
const progress = (w: World, who = ANN) => w.recordsOf(who).find((r) => r.objectId === TOUR);

/** Ann in room a, next to the board, tour started. */
function started(w = world()): World {
  w.step([join(ANN, "a")]);
  walkTo(w, ANN, 3, 3);
  expect(use(w, ANN, "start").type).toBe("ok");
  return w;
}

/** Ann leaves room a and comes back in room b (a person closing the page and returning). */
function toRoom(w: World, roomId: string): void {
  expect(one(w, { kind: "leave", entityId: ANN, reason: "disconnect" }).ok).toBe(true);
  expect(one(w, join(ANN, roomId)).ok).toBe(true);
}

describe("tour: offered once to a newcomer near the board", () => {
  it("a person walking near is told once, in the Guide's name; an agent is not", () => {
    const w = world();
    w.step([join(ANN, "a"), join("agt_bo", "a")]);
    expect(guideLines(w, ANN)).toEqual([]);
    walkTo(w, ANN, 3, 3);
    walkTo(w, "agt_bo", 2, 3);
    const offer = guideLines(w, ANN);
    expect(offer).toEqual([
      "Guide: Welcome! I offer a short tour of 4 places: the North, the East, the South and the Far Corner. Start it at my tour board whenever you like.",
    ]);
    expect(guideLines(w, "agt_bo")).toEqual([]);
    walkTo(w, ANN, 12, 6);
    walkTo(w, ANN, 3, 3);
    expect(guideLines(w, ANN)).toEqual(offer);
    expect(progress(w)).toMatchObject({
      text: "Tour: not started - 4 places to see",
      active: false,
      done: false,
    });
  });
});

describe("tour: start, each stop, finish", () => {
  it("start tells the stops; read says where you stand; a second start while under way does nothing", () => {
    const w = started();
    expect(w.objectView(TOUR)!.state).toMatchObject({ started: 1, finished: 0 });
    expect(use(w, ANN, "read")).toEqual({
      type: "ok",
      message:
        "Tour: 0 of 4 - next: the North. The tour: the North, the East, the South and the Far Corner, in any order.",
    });
    expect(use(w, ANN, "start")).toEqual({
      type: "no_effect",
      message: "Your tour is under way. Tour: 0 of 4 - next: the North.",
    });
    expect(w.objectView(TOUR)!.state.started).toBe(1);
  });

  it("stops count in any order, across rooms, and the finish is congratulated once", () => {
    const w = started();
    walkTo(w, ANN, 7, 9); // the South first
    expect(progress(w)!.text).toBe("Tour: 1 of 4 - next: the North");
    expect(w.objectView(TOUR)!.state.reached).toBe("South");
    walkTo(w, ANN, 17, 7);
    walkTo(w, ANN, 11, 2);
    expect(guideLines(w, ANN).slice(-3)).toEqual([
      "Guide: South: 1 of 4 - next: the North.",
      "Guide: East: 2 of 4 - next: the North.",
      "Guide: North: 3 of 4 - next: the Far Corner.",
    ]);
    toRoom(w, "b");
    walkTo(w, ANN, 8, 5);
    expect(guideLines(w, ANN, "b")).toEqual([
      "Guide: Well done, ann: you have seen all 4 places of the tour, the North, the East, the South and the Far Corner. Congratulations, and welcome to the world!",
    ]);
    expect(progress(w)).toMatchObject({ text: "Tour: done, all 4 places seen", active: false, done: true });
    expect(w.objectView(TOUR)!.state).toMatchObject({ started: 1, finished: 1, reached: "Far Corner" });
    // Walking the stops again after finishing changes nothing.
    walkTo(w, ANN, 2, 2);
    walkTo(w, ANN, 8, 5);
    expect(guideLines(w, ANN, "b")).toHaveLength(1);
    expect(w.objectView(TOUR)!.state.finished).toBe(1);
  });

  it("a second start after finishing starts afresh and is congratulated again", () => {
    const w = started();
    const stopsOfA = [
      [11, 2],
      [17, 7],
      [7, 9],
    ] as const;
    for (const [tx, ty] of stopsOfA) walkTo(w, ANN, tx, ty);
    toRoom(w, "b");
    walkTo(w, ANN, 8, 5);
    expect(progress(w)!.done).toBe(true);
    toRoom(w, "a");
    walkTo(w, ANN, 3, 3);
    const again = use(w, ANN, "start");
    expect(again.message).toMatch(
      /^You start the tour once more of the North, .*Tour: 0 of 4 - next: the North\.$/,
    );
    expect(progress(w)).toMatchObject({ active: true, done: true, text: "Tour: 0 of 4 - next: the North" });
    for (const [tx, ty] of stopsOfA) walkTo(w, ANN, tx, ty);
    toRoom(w, "b");
    walkTo(w, ANN, 8, 5);
    expect(w.objectView(TOUR)!.state).toMatchObject({ started: 2, finished: 2 });
    expect(guideLines(w, ANN, "b").at(-1)).toMatch(/^Guide: Well done, ann/);
  });

  it("progress is kept while the person is away, and with the board for nobody else", () => {
    const w = started();
    walkTo(w, ANN, 7, 9);
    one(w, { kind: "leave", entityId: ANN, reason: "disconnect" });
    run(w, 100);
    expect(w.getEntity(ANN)).toBeUndefined();
    expect(progress(w)!.text).toBe("Tour: 1 of 4 - next: the North");
    w.step([join(ANN, "a"), join("hum_cy", "a")]);
    expect(progress(w)!.text).toBe("Tour: 1 of 4 - next: the North");
    expect(progress(w, "hum_cy")).toBeUndefined();
  });
});

describe("tour: durable and replayable", () => {
  it("survives a snapshot restore, and a restored world goes on exactly as the original", () => {
    const def = fixtureWorld(rooms());
    const w = started(world(def));
    walkTo(w, ANN, 7, 9);
    const snap = w.snapshot();
    expect(snap.state.records).toEqual([
      { objectId: TOUR, entityId: ANN, record: { seen: "south", active: 1, finishes: 0 } },
    ]);
    const restored = World.restore(def, snap);
    expect(restored.snapshotHash()).toBe(w.snapshotHash());
    expect(restored.recordsOf(ANN)).toEqual(w.recordsOf(ANN));
    for (const x of [w, restored]) {
      walkTo(x, ANN, 17, 7);
      walkTo(x, ANN, 11, 2);
    }
    expect(restored.snapshotHash()).toBe(w.snapshotHash());
    expect(guideLines(restored, ANN)).toEqual(guideLines(w, ANN));
  });

  it("the same inputs by tick give the same tour, event for event", () => {
    const runOnce = () => {
      const w = started();
      const events: string[] = [];
      const inputs = [
        { kind: "moveTo", entityId: ANN, dest: { tx: 17, ty: 7 } },
        { kind: "moveTo", entityId: ANN, dest: { tx: 11, ty: 2 } },
      ] as const;
      for (const input of inputs) {
        events.push(...w.step([input]).events.map((e) => `${e.tick}:${e.type}:${JSON.stringify(e.payload)}`));
        for (let i = 0; i < 200; i++) events.push(...w.step([]).events.map((e) => `${e.tick}:${e.type}`));
      }
      return { events, hash: w.snapshotHash() };
    };
    const first = runOnce();
    expect(first.events.some((e) => e.includes("object.state_changed"))).toBe(true);
    expect(runOnce()).toEqual(first);
  });

  it("a snapshot's records are checked: an unknown object, a stop not on the tour, an empty list", () => {
    const def = fixtureWorld(rooms());
    const w = started(world(def));
    const snap = w.snapshot();
    const withRecords = (records: unknown) => ({ ...snap, state: { ...snap.state, records } });
    const bad = (records: unknown) => () => World.restore(def, withRecords(records) as typeof snap);
    expect(
      bad([{ objectId: "obj_nope", entityId: ANN, record: { seen: "", active: 1, finishes: 0 } }]),
    ).toThrow(/obj_nope keeps none/);
    expect(
      bad([{ objectId: TOUR, entityId: ANN, record: { seen: "west", active: 1, finishes: 0 } }]),
    ).toThrow(/seen must list stops of this tour/);
    expect(bad([])).toThrow(/an empty record list/);
  });
});

describe("tour: a world's files reloaded live", () => {
  it("keeps progress while the stops fit; a record the new stops refuse starts afresh", () => {
    const w = started();
    walkTo(w, ANN, 7, 9);
    w.redefine(fixtureWorld(rooms("south north east far")));
    expect(progress(w)!.text).toBe("Tour: 1 of 4 - next: the North");
    w.redefine(fixtureWorld(rooms("north east")));
    expect(progress(w)).toBeUndefined();
    expect(World.restore(w.definition, w.snapshot()).snapshotHash()).toBe(w.snapshotHash());
  });
});

describe("tour: the board in a world's files", () => {
  it("refuses stops that are no region, a stop listed twice, and too few stops", () => {
    const load = (stops: string) => worldLoadError(fixtureFiles(rooms(stops))).message;
    expect(load("north west")).toMatch(/tour\)\.properties\.stops: region "west" does not exist/);
    expect(load("north north")).toMatch(/stops: a stop is listed twice/);
    expect(load("north")).toMatch(/stops: expected 2 to 10 region ids/);
  });
});
