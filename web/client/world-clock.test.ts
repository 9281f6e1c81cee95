import { afterEach, describe, expect, it } from "vitest";
import { agoInWords, forgetWorldTime, heardWorldTime, setWorldTime, worldNow } from "./world-clock.ts";

afterEach(() => forgetWorldTime());

describe("the world's time on the page", () => {
  it("runs on from what was heard, and never goes back", () => {
    expect(worldNow(0)).toBeUndefined();
    heardWorldTime(1_000_000, 500);
    expect(worldNow(2_500)).toBe(1_002_000);
    // An older event heard later (a history line) does not set the clock back.
    heardWorldTime(900_000, 3_000);
    expect(worldNow(3_000)).toBe(1_002_500);
    // A newer one moves it on.
    heardWorldTime(1_010_000, 3_000);
    expect(worldNow(4_000)).toBe(1_011_000);
    // A welcome is taken as it is: a world started afresh is earlier.
    setWorldTime(5_000, 4_000);
    expect(worldNow(4_500)).toBe(5_500);
  });

  it("says an age as a reader expects it", () => {
    expect(agoInWords(-5)).toBe("just now");
    expect(agoInWords(59_999)).toBe("just now");
    expect(agoInWords(60_000)).toBe("1 minute ago");
    expect(agoInWords(5 * 60_000 + 30_000)).toBe("5 minutes ago");
    expect(agoInWords(3_600_000)).toBe("1 hour ago");
    expect(agoInWords(23 * 3_600_000)).toBe("23 hours ago");
    expect(agoInWords(30 * 3_600_000)).toBe("yesterday");
    expect(agoInWords(3 * 86_400_000)).toBe("3 days ago");
    expect(agoInWords(40 * 86_400_000)).toBe("5 weeks ago");
  });
});
