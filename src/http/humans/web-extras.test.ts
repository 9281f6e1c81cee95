// Pure pieces the web client needs from the server: unique names, the radar feed.
import { describe, expect, it } from "vitest";
import { isNameFor, uniqueName } from "./names.ts";
import { RADAR_BYTES_PER_SEC, type RadarDot, RadarFeeds, RadarView } from "./radar.ts";

describe("uniqueName", () => {
  it("suffixes a taken name, ignoring case and spaces, and keeps within 32 characters", () => {
    expect(uniqueName("Ada", ["Ben"])).toBe("Ada");
    expect(uniqueName(" ada ", ["Ada"])).toBe("ada (2)");
    expect(uniqueName("Ada", ["Ada", "ada (2)"])).toBe("Ada (3)");
    const long = "x".repeat(32);
    const next = uniqueName(long, [long]);
    expect(next.length).toBeLessThanOrEqual(32);
    expect(next.endsWith(" (2)")).toBe(true);
  });
});

describe("isNameFor (is a resume asking for the name it already has?)", () => {
  it("the name itself, or it suffixed because it was taken, in any case; never another name", () => {
    expect(isNameFor("Ada", "Ada")).toBe(true);
    expect(isNameFor(" ada ", "Ada (2)")).toBe(true);
    expect(isNameFor("Ada", "Ada (13)")).toBe(true);
    expect(isNameFor("Ada", "Bea")).toBe(false);
    expect(isNameFor("Ad", "Ada (2)")).toBe(false);
    expect(isNameFor("Ada (2)", "Ada (2)")).toBe(true);
    const long = "x".repeat(32);
    expect(isNameFor(long, uniqueName(long, [long]))).toBe(true);
    expect(isNameFor("x".repeat(20), uniqueName(long, [long]))).toBe(false);
  });
});

describe("radar feed", () => {
  it("is made once per room per period, re-versioned only when the dots changed, sent once per change", () => {
    const feeds = new RadarFeeds();
    let made = 0;
    let dots: RadarDot[] = [
      ["hum_a", "h", 1, 1],
      ["agt_b", "a", 30, 20],
    ];
    const make = () => {
      made += 1;
      return dots;
    };
    const first = feeds.feed("lobby", 0, make);
    expect(first.message.message).toEqual({ type: "radar", dots });
    expect(JSON.parse(first.message.bytes.toString("utf8"))).toEqual({ type: "radar", dots });
    expect(feeds.feed("lobby", 0, make)).toBe(first);
    expect(made).toBe(1);
    const view = new RadarView();
    expect(view.next(first)).toBe(first.message);
    expect(view.next(first)).toBeUndefined();
    // The next period with the same dots: the same version, nothing to send.
    const same = feeds.feed("lobby", 1, make);
    expect(same.version).toBe(first.version);
    expect(view.next(same)).toBeUndefined();
    dots = [dots[0]!, ["agt_b", "a", 31, 20]];
    const moved = feeds.feed("lobby", 2, make);
    expect(moved.version).not.toBe(first.version);
    expect(view.next(moved)?.message).toEqual({ type: "radar", dots });
    // A room entry (reset) gets it again; another room has its own feed.
    view.reset();
    expect(view.next(moved)).toBeDefined();
    expect(feeds.feed("garden", 2, () => []).version).not.toBe(moved.version);
    feeds.retain(new Set(["garden"]));
    expect(feeds.feed("lobby", 2, make)).not.toBe(moved);
  });

  it("remakes a crowded room's feed less often, so a browser gets at most about RADAR_BYTES_PER_SEC", () => {
    const feeds = new RadarFeeds();
    const crowd = (dx: number) =>
      Array.from(
        { length: 1000 },
        (_, i): RadarDot => [`hum_crowd${String(i).padStart(5, "0")}`, "h", i % 40, dx],
      );
    const first = feeds.feed("lobby", 10, () => crowd(0));
    const every = Math.ceil(first.message.bytes.length / RADAR_BYTES_PER_SEC);
    expect(every).toBeGreaterThan(1);
    const view = new RadarView();
    let bytes = view.next(first)!.bytes.length;
    // Everyone moves every period; the feed is remade only every `every` periods.
    for (let period = 11; period < 10 + 4 * every; period++) {
      const feed = feeds.feed("lobby", period, () => crowd(period % 20));
      expect(feed === first).toBe(period < 10 + every);
      bytes += view.next(feed)?.bytes.length ?? 0;
    }
    expect(bytes / (4 * every)).toBeLessThanOrEqual(RADAR_BYTES_PER_SEC);
    // A small room's feed is remade every period.
    const small = feeds.feed("garden", 10, () => crowd(0).slice(0, 5));
    expect(feeds.feed("garden", 11, () => crowd(1).slice(0, 5))).not.toBe(small);
  });
});
