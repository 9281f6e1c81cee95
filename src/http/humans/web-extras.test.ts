// Pure pieces the web client needs from the server: unique names, recent room chat, the radar feed.
import { describe, expect, it } from "vitest";
import { ChatHistory, HISTORY_MAX } from "./chat-history.ts";
import { uniqueName } from "./names.ts";
import { type RadarDot, RadarFeeds, RadarView } from "./radar.ts";

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

describe("ChatHistory", () => {
  const line = (seq: number, channel: string, tsMs = 1000) => ({
    type: "chat.message",
    seq,
    tsMs,
    payload: { channel, message: `m${seq}`, fromEntityId: "hum_a", fromName: "A" },
  });

  it("keeps only room-wide lines, the most recent HISTORY_MAX, and drops stale ones", () => {
    const h = new ChatHistory();
    h.add("lobby", line(1, "proximity"));
    for (let i = 2; i < HISTORY_MAX + 5; i++) h.add("lobby", line(i, "global"));
    const recent = h.recent("lobby", 1000);
    expect(recent.length).toBe(HISTORY_MAX);
    expect(recent.every((e) => e.payload.channel === "global")).toBe(true);
    expect(recent.at(-1)!.seq).toBe(HISTORY_MAX + 4);
    expect(h.recent("lobby", 1000 + 16 * 60_000)).toEqual([]);
    expect(h.recent("garden", 1000)).toEqual([]);
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
});
