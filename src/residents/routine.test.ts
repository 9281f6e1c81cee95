import { describe, expect, it } from "vitest";
import { routineStop } from "./routine.ts";

const home = { tx: 5, ty: 6 };
const routine = {
  everySec: 60,
  stops: [
    { tx: 9, ty: 9 },
    { tx: 1, ty: 2 },
  ],
};

describe("a resident's routine", () => {
  it("is home, then each stop for everySec of simulation time, around and around", () => {
    expect(routineStop(routine, home, 0)).toEqual({ index: 0, tile: home });
    expect(routineStop(routine, home, 59_999)).toEqual({ index: 0, tile: home });
    expect(routineStop(routine, home, 60_000)).toEqual({ index: 1, tile: { tx: 9, ty: 9 } });
    expect(routineStop(routine, home, 120_000)).toEqual({ index: 2, tile: { tx: 1, ty: 2 } });
    expect(routineStop(routine, home, 180_000)).toEqual({ index: 0, tile: home });
  });

  it("depends on the simulation time alone: the same time, the same place", () => {
    const epoch = Date.parse("2026-02-10T00:00:00Z");
    const a = routineStop(routine, home, epoch + 123_456_789);
    expect(routineStop(routine, home, epoch + 123_456_789)).toEqual(a);
  });

  it("without a routine it stays home", () => {
    expect(routineStop(undefined, home, 9e12)).toEqual({ index: 0, tile: home });
  });
});
