import { describe, expect, it } from "vitest";
import {
  chargePeople,
  nextStart,
  type PersonLedger,
  pruneLedger,
  type TurnLedger,
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
