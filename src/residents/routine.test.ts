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

  it("by the clock: a stop with from/to is due only then, so a day plan ends at home for the night", () => {
    const at = (clock: string) => Date.parse(`2026-02-10T${clock}:00Z`);
    const day = {
      everySec: 600,
      stops: [
        { tx: 9, ty: 9, from: "07:00", to: "19:00" },
        { tx: 1, ty: 2, from: "22:00", to: "02:00" },
      ],
    };
    // 08:00 is slot 48 of the day: home and the café stop alternate, 48 % 2 = 0 (home).
    expect(routineStop(day, home, at("08:00")).index).toBe(0);
    expect(routineStop(day, home, at("08:10"))).toEqual({ index: 1, tile: { tx: 9, ty: 9 } });
    // 19:00 to 22:00 nothing is due: home all evening.
    for (const clock of ["19:00", "19:10", "20:30", "21:50"])
      expect(routineStop(day, home, at(clock)).index).toBe(0);
    // Across midnight the late stop is due.
    expect(routineStop(day, home, at("23:10")).index).toBe(2);
    expect(routineStop(day, home, at("01:10")).index).toBe(2);
    expect(routineStop(day, home, at("03:10")).index).toBe(0);
  });

  it("never a stop the world says is closed now: the next due one, or home", () => {
    const closedCafe = (tile: { tx: number; ty: number }) => tile.tx === 9 && tile.ty === 9;
    expect(routineStop(routine, home, 60_000)).toEqual({ index: 1, tile: { tx: 9, ty: 9 } });
    for (let ms = 0; ms < 600_000; ms += 10_000)
      expect(routineStop(routine, home, ms, closedCafe).tile).not.toEqual({ tx: 9, ty: 9 });
  });
});
