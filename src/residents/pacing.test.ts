import { describe, expect, it } from "vitest";
import {
  chargePeople,
  chargeTalk,
  mayTalk,
  nextStart,
  type PersonLedger,
  pairWaitMs,
  pruneLedger,
  type TalkBudget,
  type TurnLedger,
  talkingPairs,
  talkWaitMs,
  withinShare,
} from "./pacing.ts";

const pacing = { minIntervalMs: 3000, maxTurnsPerHour: 2 };

describe("when a resident's next turn may start", () => {
  it("nothing pending: idle; a turn in flight: busy (its events wait for the next turn)", () => {
    expect(nextStart({ inFlight: false, starts: [] }, 0, 0, pacing)).toEqual({ kind: "idle" });
    expect(nextStart({ inFlight: true, starts: [0] }, 3, 10_000, pacing)).toEqual({ kind: "busy" });
  });

  it("starts now when free, or waits out the least interval", () => {
    expect(nextStart({ inFlight: false, starts: [] }, 1, 0, pacing)).toEqual({ kind: "now" });
    expect(nextStart({ inFlight: false, starts: [1000] }, 1, 2000, pacing)).toEqual({
      kind: "wait",
      ms: 2000,
      cause: "interval",
    });
    expect(nextStart({ inFlight: false, starts: [1000] }, 1, 4000, pacing)).toEqual({ kind: "now" });
  });

  it("at the hourly cap it waits until the oldest counted start is an hour old", () => {
    const ledger: TurnLedger = { inFlight: false, starts: [0, 10_000] };
    expect(nextStart(ledger, 1, 20_000, pacing)).toEqual({
      kind: "wait",
      ms: 3_580_000,
      cause: "hourly_cap",
    });
    expect(nextStart(ledger, 1, 3_600_001, pacing)).toEqual({ kind: "now" });
    pruneLedger(ledger, 3_600_001);
    expect(ledger.starts).toEqual([10_000]);
  });

  it("the world-wide budget: a free resident waits while all residents' turns fill the hour", () => {
    const world = { starts: [0, 5000], maxTurnsPerHour: 2 };
    const free: TurnLedger = { inFlight: false, starts: [] };
    expect(nextStart(free, 1, 10_000, pacing, world)).toEqual({
      kind: "wait",
      ms: 3_590_000,
      cause: "world_budget",
    });
    expect(nextStart(free, 1, 3_600_001, pacing, world)).toEqual({ kind: "now" });
  });

  it("a person's share: counted once per turn that answers them, forgotten after an hour", () => {
    const people: PersonLedger = new Map();
    chargePeople(people, ["ann", "ann", "bob"], 0);
    chargePeople(people, ["ann"], 1000);
    expect(withinShare(people, "ann", 2000, 2)).toBe(false);
    expect(withinShare(people, "bob", 2000, 2)).toBe(true);
    expect(withinShare(people, "cy", 2000, 2)).toBe(true);
    chargePeople(people, [], 3_600_500);
    expect(withinShare(people, "ann", 3_600_500, 2)).toBe(true);
    expect([...people.keys()]).toEqual(["ann"]);
  });
});

describe("the residents' talk over the hour", () => {
  const MIN = 60_000;
  const budget = (maxTurnsPerHour: number, pairIntervalMs?: number): TalkBudget => ({
    starts: [],
    maxTurnsPerHour,
    replying: new Set(),
    ...(pairIntervalMs === undefined ? {} : { pairIntervalMs }),
  });

  it("the hour's turns come back gradually: 6 an hour is one exchange per 20 minutes, not all six in five", () => {
    const talk = budget(6);
    expect(talkWaitMs(talk, 0)).toBe(0);
    chargeTalk(talk, "agt_a", ["agt_b"], 0);
    expect(talkWaitMs(talk, MIN)).toBe(0);
    chargeTalk(talk, "agt_b", ["agt_a"], MIN);
    // The exchange is spent: the next may start 20 minutes after it began.
    expect(talkWaitMs(talk, 2 * MIN)).toBe(18 * MIN);
    expect(mayTalk(talk, "agt_c", "agt_d", 19 * MIN)).toBe(false);
    expect(mayTalk(talk, "agt_c", "agt_d", 20 * MIN)).toBe(true);
    // Over the hour: three exchanges, spread.
    let exchanges = 1;
    for (let t = 20 * MIN; t < 60 * MIN; t += MIN)
      if (talkWaitMs(talk, t) === 0) {
        chargeTalk(talk, "agt_c", ["agt_d"], t);
        chargeTalk(talk, "agt_d", ["agt_c"], t);
        exchanges += 1;
      }
    expect(exchanges).toBe(3);
    expect(talk.starts).toEqual([0, MIN, 20 * MIN, 20 * MIN, 40 * MIN, 40 * MIN]);
  });

  it("a most of 0 lets none out; 1 or 2 an hour stay within the hour as before", () => {
    expect(talkWaitMs(budget(0), 0)).toBe(Number.POSITIVE_INFINITY);
    const one = budget(1);
    chargeTalk(one, "agt_a", ["agt_b"], 0);
    expect(talkWaitMs(one, 10 * MIN)).toBe(50 * MIN);
    const two = budget(2);
    chargeTalk(two, "agt_a", ["agt_b"], 0);
    chargeTalk(two, "agt_b", ["agt_a"], MIN);
    expect(talkWaitMs(two, 2 * MIN)).toBe(58 * MIN);
  });

  it("one pair talks at most once per pairIntervalMs; the reply belongs to its exchange; others may talk meanwhile", () => {
    const talk = budget(60, 30 * MIN);
    chargeTalk(talk, "agt_a", ["agt_b"], 0);
    // B's reply to A is part of the exchange A opened.
    expect(pairWaitMs(talk, "agt_b", "agt_a", MIN)).toBe(0);
    chargeTalk(talk, "agt_b", ["agt_a"], MIN);
    expect(pairWaitMs(talk, "agt_a", "agt_b", 2 * MIN)).toBe(28 * MIN);
    expect(mayTalk(talk, "agt_a", "agt_b", 2 * MIN)).toBe(false);
    expect(mayTalk(talk, "agt_a", "agt_c", 2 * MIN)).toBe(true);
    expect(talkingPairs(talk, 2 * MIN)).toEqual([{ between: ["agt_a", "agt_b"], nextAtMs: 30 * MIN }]);
    expect(mayTalk(talk, "agt_b", "agt_a", 30 * MIN)).toBe(true);
    // An opener left unanswered for longer than the interval does not make the next one a reply.
    chargeTalk(talk, "agt_a", ["agt_b"], 30 * MIN);
    chargeTalk(talk, "agt_a", ["agt_b"], 61 * MIN);
    expect(talk.pairs?.get("agt_a agt_b")).toEqual({ atMs: 61 * MIN, turns: 1 });
  });
});
