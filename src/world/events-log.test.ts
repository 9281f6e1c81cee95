import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEPARTED_FLOORS, type EventRetention, RoomEventLog } from "./events-log.ts";
import type { WorldEvent } from "./types.ts";

const IDS = ["a", "b", "c", "d"];

/** The whole history, kept naively, with the retention rule played over it: each reader (the room,
 * or an entity during one stay) keeps its newest `perRecipient`; older ones join a pool, oldest out
 * once it holds more than `room` of readers still here. */
class Model {
  events: WorldEvent[] = [];
  /** [from, to] per stay; to = Infinity while present. */
  stays = new Map<string, [number, number][]>();
  /** Each reader's seqs (key "room" or "id@stayStart"), and which of them were dropped. */
  lists = new Map<string, { seqs: number[]; pooled: number; dropped: Set<number>; alive: boolean }>();
  pool: { key: string; seq: number }[] = [];
  readonly retention: EventRetention;

  constructor(retention: EventRetention) {
    this.retention = retention;
    this.lists.set("room", { seqs: [], pooled: 0, dropped: new Set(), alive: true });
  }

  present(id: string): boolean {
    return this.stays.get(id)?.at(-1)?.[1] === Number.POSITIVE_INFINITY;
  }

  listKey(id: string): string {
    return `${id}@${this.stays.get(id)!.at(-1)![0]}`;
  }

  file(event: WorldEvent): void {
    this.events.push(event);
    const keys =
      event.audience.kind === "room"
        ? ["room"]
        : [...new Set(event.audience.ids)].filter((id) => this.present(id)).map((id) => this.listKey(id));
    for (const key of keys) {
      const list = this.lists.get(key)!;
      list.seqs.push(event.seq);
      if (list.seqs.length - list.pooled > this.retention.perRecipient) {
        this.pool.push({ key, seq: list.seqs[list.pooled]! });
        list.pooled++;
      }
    }
    this.pool = this.pool.filter((entry) => this.lists.get(entry.key)!.alive);
    while (this.pool.length > this.retention.room) {
      const out = this.pool.shift()!;
      this.lists.get(out.key)!.dropped.add(out.seq);
    }
  }

  enter(id: string, seq: number): void {
    this.stays.set(id, [...(this.stays.get(id) ?? []), [seq, Number.POSITIVE_INFINITY]]);
    this.lists.set(this.listKey(id), { seqs: [], pooled: 0, dropped: new Set(), alive: true });
  }

  exit(id: string, seq: number): void {
    this.lists.get(this.listKey(id))!.alive = false;
    this.stays.get(id)!.at(-1)![1] = seq;
  }

  visible(id: string, e: WorldEvent): boolean {
    if (e.audience.kind === "entities") return e.audience.ids.includes(id);
    return (this.stays.get(id) ?? []).some(([from, to]) => e.seq >= from && e.seq <= to);
  }

  /** What the log must still hold for a present `id`. */
  retainedFor(id: string): Set<number> {
    const kept = new Set<number>();
    const room = this.lists.get("room")!;
    for (const seq of room.seqs) if (!room.dropped.has(seq)) kept.add(seq);
    const mine = this.lists.get(this.listKey(id))!;
    for (const seq of mine.seqs) if (!mine.dropped.has(seq)) kept.add(seq);
    return kept;
  }

  /** The highest seq of an event `id` could see that the log no longer holds for it. */
  lostFloor(id: string): number {
    const kept = this.retainedFor(id);
    let floor = 0;
    for (const e of this.events) if (this.visible(id, e) && !kept.has(e.seq)) floor = e.seq;
    return floor;
  }
}

type Op =
  | { op: "room" }
  | { op: "to"; ids: string[] }
  | { op: "enter" | "exit"; id: string }
  | { op: "prune" }
  | { op: "restore" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Op>({ op: "room" }) },
  {
    weight: 10,
    arbitrary: fc
      .array(fc.constantFrom(...IDS), { minLength: 1, maxLength: 3 })
      .map((ids): Op => ({ op: "to", ids })),
  },
  { weight: 3, arbitrary: fc.constantFrom(...IDS).map((id): Op => ({ op: "enter", id })) },
  { weight: 2, arbitrary: fc.constantFrom(...IDS).map((id): Op => ({ op: "exit", id })) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: "prune" }) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: "restore" }) },
);

/** What a snapshot keeps: retained events, membership and floors; the lists are rebuilt. */
function restored(log: RoomEventLog, retention: EventRetention, withFloors = true): RoomEventLog {
  const copy = new RoomEventLog("r", retention);
  copy.restore(
    log.lastSeq,
    log.retained().map((e) => ({ ...e })),
    [...log.membership].map(([id, list]) => [id, [...list]]),
    withFloors ? structuredClone(log.floors()) : undefined,
  );
  return copy;
}

/** Plays ops the way the world does: a join or leave is a room event, then enter/exit at its seq. */
function play(retention: EventRetention, ops: Op[], check: (log: RoomEventLog, model: Model) => void): void {
  let log = new RoomEventLog("r", retention);
  const model = new Model(retention);
  const append = (audience: WorldEvent["audience"]) => {
    const event = log.append("chat.message", {}, audience, 1, 0);
    model.file(event);
    return event.seq;
  };
  for (const o of ops) {
    if (o.op === "room") append({ kind: "room" });
    else if (o.op === "to") append({ kind: "entities", ids: o.ids });
    else if (o.op === "enter" && !model.present(o.id)) {
      const seq = append({ kind: "room" });
      log.enter(o.id, seq);
      model.enter(o.id, seq);
    } else if (o.op === "exit" && model.present(o.id)) {
      const seq = append({ kind: "room" });
      log.exit(o.id, seq);
      model.exit(o.id, seq);
    } else if (o.op === "prune") log.pruneAll();
    else if (o.op === "restore") log = restored(log, retention);
    check(log, model);
  }
}

const retentionArb = fc.record({
  room: fc.integer({ min: 1, max: 8 }),
  perRecipient: fc.integer({ min: 1, max: 6 }),
});

describe("RoomEventLog pages", () => {
  it("never skip an event silently, and expire a cursor only when its reader lost an event after it", () => {
    fc.assert(
      fc.property(
        retentionArb,
        fc.array(opArb, { maxLength: 80 }),
        fc.integer({ min: -2, max: 90 }),
        fc.integer({ min: 1, max: 6 }),
        (retention, ops, afterSeq, limit) => {
          play(retention, ops, (log, model) => {
            for (const id of IDS) {
              if (!model.present(id)) continue;
              const lost = model.lostFloor(id);
              const floor = log.floorOf(id);
              // Sound: no lost event lies above the floor. Tight while the reader never left (a
              // departure counts its whole stay as lost, a conservative simplification).
              expect(floor).toBeGreaterThanOrEqual(lost);
              if (model.stays.get(id)!.length === 1) expect(floor).toBe(lost);
              const page = log.eventsFor(id, afterSeq, limit);
              const after = Math.max(0, afterSeq);
              expect(page.expired !== undefined).toBe(after < floor);
              const start = page.expired ? page.expired.oldestRetainedSeq - 1 : after;
              const want = model.events
                .filter((e) => e.seq > start && e.seq <= page.nextSeq && model.visible(id, e))
                .map((e) => e.seq);
              expect(page.events.map((e) => e.seq)).toEqual(want);
              if (page.events.length < limit) expect(page.nextSeq).toBe(log.lastSeq);
            }
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it("answer the same after a snapshot round trip", () => {
    fc.assert(
      fc.property(retentionArb, fc.array(opArb, { maxLength: 60 }), (retention, ops) => {
        play(retention, ops, (log) => {
          const copy = restored(log, retention);
          expect(copy.floors()).toEqual(log.floors());
          expect(copy.retained()).toEqual(log.retained());
          for (const id of [...IDS, "stranger"]) {
            for (let after = 0; after <= log.lastSeq; after++)
              expect(copy.eventsFor(id, after, 100)).toEqual(log.eventsFor(id, after, 100));
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it("keep a reader's own events in a crowd whose other events churn past the room's retention", () => {
    const log = new RoomEventLog("r", { room: 100, perRecipient: 50 });
    const ids = Array.from({ length: 500 }, (_, i) => `e${i}`);
    for (const id of ids) log.enter(id, log.append("presence.join", {}, { kind: "room" }, 1, 0).seq);
    const cursor = log.lastSeq;
    // 20 events for every one of the 500, one each in turn: 10,000 events in all.
    for (let round = 0; round < 20; round++) {
      for (const id of ids) log.append("proximity.enter", {}, { kind: "entities", ids: [id] }, 1, 0);
    }
    const page = log.eventsFor("e7", cursor, 100);
    expect(page.expired).toBeUndefined();
    expect(page.events).toHaveLength(20);
    expect(page.events.every((e) => e.audience.kind === "entities" && e.audience.ids[0] === "e7")).toBe(true);
    // Past its own 50 and the room's pool of 100 the reader is told what it lost, and resumes after it.
    for (let i = 0; i < 200; i++) log.append("proximity.enter", {}, { kind: "entities", ids: ["e7"] }, 1, 0);
    const late = log.eventsFor("e7", cursor, 1000);
    // Of its 220, the newest 50 are its own and 100 of the 170 older ones are pooled: the 20 from the
    // crowd and the first 50 of the 200 (seqs 10,501–10,550) went.
    expect(late.expired).toEqual({ oldestRetainedSeq: 10_551, droppedCount: 10_550 - cursor });
    expect(late.events).toHaveLength(150);
  });

  it("remembers a bounded number of departed readers, and treats the forgotten conservatively", () => {
    const log = new RoomEventLog("r", { room: 10, perRecipient: 10 });
    const ids = Array.from({ length: DEPARTED_FLOORS + 5 }, (_, i) => `e${i}`);
    for (const id of ids) {
      log.enter(id, log.append("presence.join", {}, { kind: "room" }, 1, 0).seq);
      log.exit(id, log.append("presence.leave", {}, { kind: "room" }, 1, 0).seq);
    }
    const floors = log.floors();
    expect(floors.departed).toHaveLength(DEPARTED_FLOORS);
    // The five oldest are forgotten: anyone unknown may have lost events up to the fifth's leaving.
    expect(floors.forgotten).toBe(10);
    expect(log.floorOf("e0")).toBeGreaterThanOrEqual(10);
    // A returning reader keeps the floor of its earlier stay.
    log.enter("e1000", log.append("presence.join", {}, { kind: "room" }, 1, 0).seq);
    expect(log.eventsFor("e1000", 0, 10).expired?.oldestRetainedSeq).toBe(2003);
  });

  it("restores a snapshot from before per-recipient retention with its old window", () => {
    const old = new RoomEventLog("r", { room: 100, perRecipient: 100 });
    const events: WorldEvent[] = [31, 32, 33].map((seq) => ({
      seq,
      type: "chat.message",
      roomId: "r",
      tsMs: 0,
      tick: 1,
      payload: {},
      audience: { kind: "entities", ids: ["a"] },
    }));
    old.restore(33, events, [["a", [5, -1]]]);
    const page = old.eventsFor("a", 10, 100);
    expect(page.expired).toEqual({ oldestRetainedSeq: 31, droppedCount: 20 });
    expect(page.events.map((e) => e.seq)).toEqual([31, 32, 33]);
    expect(old.eventsFor("a", 30, 100).expired).toBeUndefined();
  });

  it("reads only the events that could be the recipient's, not the whole log", () => {
    const log = new RoomEventLog("r", { room: 100_000, perRecipient: 100_000 });
    log.enter("a", 1);
    log.enter("b", 1);
    // 50,000 events for others, then one for "a": the page finds it without visiting the rest.
    for (let i = 0; i < 50_000; i++)
      log.append("proximity.enter", {}, { kind: "entities", ids: ["b"] }, 1, 0);
    log.append("proximity.enter", {}, { kind: "entities", ids: ["a"] }, 1, 0);
    let visited = 0;
    const canSee = log.canSee.bind(log);
    log.canSee = (id, e) => {
      visited += 1;
      return canSee(id, e);
    };
    const page = log.eventsFor("a", 0, 10);
    expect(page.events.map((e) => e.seq)).toEqual([50_001]);
    expect(page.nextSeq).toBe(50_001);
    expect(visited).toBe(0);
  });

  it("holds at most its own retention plus the room's pool", () => {
    const log = new RoomEventLog("r", { room: 10, perRecipient: 10 });
    log.enter("a", 1);
    for (let i = 0; i < 10_000; i++)
      log.append("proximity.enter", {}, { kind: "entities", ids: ["a"] }, 1, 0);
    const page = log.eventsFor("a", 9_970, 100);
    expect(page.expired).toEqual({ oldestRetainedSeq: 9_981, droppedCount: 10 });
    expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 9_981 + i));
    expect(log.retainedCount).toBe(20);
  });
});
