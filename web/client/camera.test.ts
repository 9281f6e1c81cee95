import { describe, expect, it } from "vitest";
import { followLerp } from "./camera.ts";

describe("the camera's follow lerp", () => {
  it("closes the same share of the gap in a second at any frame rate", () => {
    const leftAfterOneSecond = (fps: number) => (1 - followLerp(1000 / fps)) ** fps;
    const at60 = leftAfterOneSecond(60);
    for (const fps of [5, 15, 30, 144]) expect(leftAfterOneSecond(fps)).toBeCloseTo(at60, 10);
    expect(followLerp(1000 / 60)).toBeCloseTo(0.15, 10);
  });

  it("stays within (0, 1] for odd frame lengths", () => {
    for (const delta of [0, -5, Number.NaN, 0.001, 10_000]) {
      const lerp = followLerp(delta);
      expect(lerp).toBeGreaterThan(0);
      expect(lerp).toBeLessThanOrEqual(1);
    }
  });
});
