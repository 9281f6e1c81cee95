// Pure pieces the web client needs from the server: unique names, recent room chat, the radar feed.
import { describe, expect, it } from "vitest";
import { ChatHistory, HISTORY_MAX } from "./chat-history.ts";
import { uniqueName } from "./names.ts";
import { type RadarDot, RadarView } from "./radar.ts";

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

describe("RadarView", () => {
  it("sends only actors without full detail, and only when that changed", () => {
    const view = new RadarView();
    const dots: RadarDot[] = [
      ["hum_a", "h", 1, 1],
      ["agt_b", "a", 30, 20],
    ];
    expect(view.next(dots, new Set(["hum_a"]))).toEqual([["agt_b", "a", 30, 20]]);
    expect(view.next(dots, new Set(["hum_a"]))).toBeUndefined();
    expect(view.next([dots[0]!, ["agt_b", "a", 31, 20]], new Set(["hum_a"]))).toEqual([
      ["agt_b", "a", 31, 20],
    ]);
    view.reset();
    expect(view.next([dots[0]!, ["agt_b", "a", 31, 20]], new Set(["hum_a"]))).toBeDefined();
  });
});
