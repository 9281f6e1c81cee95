import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RoomEventLog } from "./events-log.ts";
import type { Audience, EventsPage, WorldEvent } from "./types.ts";

const IDS = ["a", "b", "c", "d"];

/** The page as a scan of every retained event would give it (the log's behaviour before its index). */
function scanPage(log: RoomEventLog, recipientId: string, afterSeq: number, limit: number): EventsPage {
  const after = Math.max(0, Math.floor(afterSeq));
  const first = log.firstRetainedSeq;
  const page: EventsPage = { events: [], nextSeq: Math.min(after, log.lastSeq) };
  let from = after + 1;
  if (from < first) {
    page.expired = { oldestRetainedSeq: first, droppedCount: first - from };
    from = first;
    page.nextSeq = first - 1;
  }
  if (limit <= 0) return page;
  const retained = log.retained();
  for (let seq = from; seq <= log.lastSeq; seq++) {
    const event = retained[seq - first]!;
    page.nextSeq = seq;
    if (!log.canSee(recipientId, event)) continue;
    page.events.push(event);
    if (page.events.length >= limit) break;
  }
  return page;
}

type Op =
  | { op: "append"; audience: Audience }
  | { op: "enter" | "exit"; id: string }
  | { op: "prune" }
  | { op: "restore" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Op>({ op: "append", audience: { kind: "room" } }) },
  {
    weight: 10,
    arbitrary: fc
      .array(fc.constantFrom(...IDS), { minLength: 1, maxLength: 3 })
      .map((ids): Op => ({ op: "append", audience: { kind: "entities", ids } })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...IDS).map((id): Op => ({ op: "enter", id })) },
  { weight: 2, arbitrary: fc.constantFrom(...IDS).map((id): Op => ({ op: "exit", id })) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: "prune" }) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: "restore" }) },
);

function play(retention: number, ops: Op[], check: (log: RoomEventLog) => void): void {
  let log = new RoomEventLog("r", retention);
  for (const o of ops) {
    if (o.op === "append") log.append("chat.message", {}, o.audience, 1, 0);
    else if (o.op === "enter") log.enter(o.id, log.lastSeq + 1);
    else if (o.op === "exit") log.exit(o.id, log.lastSeq);
    else if (o.op === "prune") log.pruneAll();
    else {
      // What a snapshot keeps: the retained events and the membership; the index is rebuilt.
      const restored = new RoomEventLog("r", retention);
      restored.restore(
        log.lastSeq,
        log.retained().map((e) => ({ ...e })),
        [...log.membership].map(([id, list]) => [id, [...list]]),
      );
      log = restored;
    }
    check(log);
  }
}

describe("RoomEventLog pages", () => {
  it("equal a scan of every retained event, across retention, pruning and restore", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(opArb, { maxLength: 80 }),
        fc.constantFrom(...IDS, "stranger"),
        fc.integer({ min: -2, max: 90 }),
        fc.integer({ min: 0, max: 6 }),
        (retention, ops, recipient, afterSeq, limit) => {
          play(retention, ops, (log) => {
            const got = log.eventsFor(recipient, afterSeq, limit);
            const want = scanPage(log, recipient, afterSeq, limit);
            expect(got.nextSeq).toBe(want.nextSeq);
            expect(got.expired).toEqual(want.expired);
            expect(got.events.map((e: WorldEvent) => e.seq)).toEqual(want.events.map((e) => e.seq));
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it("reads only the events that could be the recipient's, not the whole log", () => {
    const log = new RoomEventLog("r", 100_000);
    log.enter("a", 1);
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

  it("holds at most the retained events in its index", () => {
    const log = new RoomEventLog("r", 10);
    for (let i = 0; i < 10_000; i++)
      log.append("proximity.enter", {}, { kind: "entities", ids: ["a"] }, 1, 0);
    const page = log.eventsFor("a", 0, 100);
    expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 9_991 + i));
    // The index is private: its bound shows in memory, checked here through its size.
    const sizes = (log as unknown as { addressed: Map<string, { size: number }> }).addressed;
    expect(sizes.get("a")!.size).toBeLessThanOrEqual(11);
  });
});
