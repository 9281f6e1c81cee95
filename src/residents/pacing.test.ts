import { describe, expect, it } from "vitest";
import { nextStart, pruneLedger, type TurnLedger } from "./pacing.ts";

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
});
