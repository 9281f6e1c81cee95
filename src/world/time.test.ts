import { describe, expect, it } from "vitest";
import { timeOfDay } from "./time.ts";

describe("timeOfDay", () => {
  const at = (iso: string) => Date.parse(iso);
  it("the clock and the part of the day, in UTC", () => {
    expect(timeOfDay(at("2026-02-10T00:00:00Z"))).toEqual({ clock: "00:00", part: "night" });
    expect(timeOfDay(at("2026-02-10T04:59:59Z"))).toEqual({ clock: "04:59", part: "night" });
    expect(timeOfDay(at("2026-02-10T05:00:00Z"))).toEqual({ clock: "05:00", part: "morning" });
    expect(timeOfDay(at("2026-02-10T11:00:00Z"))).toEqual({ clock: "11:00", part: "day" });
    expect(timeOfDay(at("2026-02-10T17:30:00Z"))).toEqual({ clock: "17:30", part: "evening" });
    expect(timeOfDay(at("2026-02-10T21:00:00Z"))).toEqual({ clock: "21:00", part: "night" });
    expect(timeOfDay(at("2026-02-10T23:59:00Z"))).toEqual({ clock: "23:59", part: "night" });
  });
  it("before 1970 too", () => {
    expect(timeOfDay(at("1969-12-31T22:15:00Z"))).toEqual({ clock: "22:15", part: "night" });
  });
});
