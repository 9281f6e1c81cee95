import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BubbleBox, layoutBubbles, overlaps, type Rect, stackTags } from "./bubble-layout.ts";

const view: Rect = { x: 0, y: 0, w: 400, h: 300 };
const inside = (r: Rect, v: Rect) =>
  r.x >= v.x && r.y >= v.y && r.x + r.w <= v.x + v.w && r.y + r.h <= v.y + v.h;
const box = (id: string, anchorX: number, anchorY: number, since = 0): BubbleBox => ({
  id,
  anchorX,
  anchorY,
  width: 120,
  height: 40,
  since,
});

describe("layoutBubbles", () => {
  it("keeps a lone bubble where it wants to be", () => {
    const [p] = layoutBubbles([box("a", 200, 150)], [], view);
    expect(p!.rect).toEqual({ x: 140, y: 110, w: 120, h: 40 });
  });

  it("separates two speakers standing side by side; the older bubble keeps its place", () => {
    const placed = layoutBubbles([box("new", 215, 150, 2), box("old", 200, 150, 1)], [], view);
    const old = placed.find((p) => p.id === "old")!.rect;
    const young = placed.find((p) => p.id === "new")!.rect;
    expect(old).toEqual({ x: 140, y: 110, w: 120, h: 40 });
    expect(overlaps(old, young)).toBe(false);
  });

  it("never covers the viewer's avatar", () => {
    const me: Rect = { x: 180, y: 100, w: 28, h: 44 };
    const [p] = layoutBubbles([box("a", 200, 140)], [me], view);
    expect(overlaps(p!.rect, me)).toBe(false);
  });

  it("pulls a bubble at the screen edge back inside", () => {
    const [p] = layoutBubbles([box("a", 395, 20)], [], view);
    expect(inside(p!.rect, view)).toBe(true);
  });

  it("property: up to 4 bubbles in a roomy view never overlap, the avatar or each other, and stay inside", () => {
    const big: Rect = { x: 0, y: 0, w: 900, h: 600 };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ x: fc.integer({ min: 300, max: 600 }), y: fc.integer({ min: 200, max: 400 }) }),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (anchors) => {
          const me: Rect = { x: 436, y: 278, w: 28, h: 44 };
          const placed = layoutBubbles(
            anchors.map((a, i) => box(`b${i}`, a.x, a.y, i)),
            [me],
            big,
          );
          for (const [i, p] of placed.entries()) {
            expect(inside(p.rect, big)).toBe(true);
            expect(overlaps(p.rect, me)).toBe(false);
            for (const q of placed.slice(i + 1)) expect(overlaps(p.rect, q.rect)).toBe(false);
          }
        },
      ),
    );
  });
});

describe("stackTags", () => {
  it("lifts a tag that would overlap its neighbour's, and leaves separate ones alone", () => {
    const lifts = stackTags([
      { id: "a", x: 0, y: 100, w: 80, h: 14 },
      { id: "b", x: 40, y: 100, w: 80, h: 14 },
      { id: "c", x: 300, y: 100, w: 80, h: 14 },
    ]);
    expect(lifts.get("a")).toBe(0);
    expect(lifts.get("b")).toBe(15);
    expect(lifts.get("c")).toBe(0);
  });

  it("stacks in one order whatever order the tags come in and a hair's difference in height: the viewer's first, then lower rows, then left to right", () => {
    const tags = [
      { id: "right", x: 40, y: 100.000001, w: 80, h: 14 },
      { id: "left", x: 0, y: 100, w: 80, h: 14 },
      { id: "me", x: 20, y: 100, w: 80, h: 14 },
    ];
    const lifted = (order: typeof tags, meId?: string) =>
      Object.fromEntries([...stackTags(order, meId)].map(([id, lift]) => [id, Math.round(lift)]));
    expect(lifted(tags)).toEqual({ left: 0, me: 15, right: 30 });
    expect(lifted([...tags].reverse())).toEqual(lifted(tags));
    expect(lifted(tags, "me")).toEqual({ me: 0, left: 15, right: 30 });
  });
});
