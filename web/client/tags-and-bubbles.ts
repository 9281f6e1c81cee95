// What floats over heads: name tags lifted clear of each other, chat bubbles placed clear of people
// and of the screen's edge, and the faint leader lines that say whose each one is.
import type * as Phaser from "phaser";
import { type ActorView, TAG_Y } from "./actor-sprites.ts";
import { type BubbleBox, layoutBubbles, type Rect, stackTags } from "./bubble-layout.ts";
import { toScreen } from "./camera.ts";

const BUBBLE_MS = 5000;
const BUBBLE_MAX_MS = 12_000;

/** A chat bubble over the speaker (Phaser text: message markup is drawn, never interpreted). */
export function showBubble(
  scene: Phaser.Scene,
  a: ActorView,
  message: string,
  worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T,
): void {
  a.bubble?.destroy();
  const text = message.length > 90 ? `${message.slice(0, 89)}…` : message;
  a.bubble = worldOnly(
    scene.add
      .text(a.shown.x, a.shown.y - 40, text, {
        fontFamily: "system-ui, sans-serif",
        fontSize: "11px",
        color: "#111111",
        backgroundColor: "#ffffff",
        padding: { x: 6, y: 3 },
        wordWrap: { width: 150 },
        resolution: 3,
      })
      .setOrigin(0, 0)
      .setDepth(30),
  );
  // Long enough to read: a base time plus a little per character.
  a.bubbleUntil = scene.time.now + Math.min(BUBBLE_MAX_MS, BUBBLE_MS + text.length * 60);
  a.bubbleSince = scene.time.now;
}

/** Name tags of neighbours never print over each other: a tag that would overlap is lifted. Returns
 * the bodies and tags of everyone drawn, in world units, for the bubbles to keep off. */
export function placeTags(
  actors: Map<string, ActorView>,
  meId: string | undefined,
  view: Phaser.Geom.Rectangle,
  leaders: Phaser.GameObjects.Graphics,
): Rect[] {
  const tags: (Rect & { id: string })[] = [];
  const people: Rect[] = [];
  for (const [id, a] of actors) {
    const { x, y } = a.shown;
    if (x < view.x - 100 || x > view.right + 100 || y < view.y - 60 || y > view.bottom + 60) continue;
    tags.push({
      id,
      x: x - a.label.width / 2,
      y: y - TAG_Y - a.label.height,
      w: a.label.width,
      h: a.label.height,
    });
    people.push({ x: x - 13, y: y - 20, w: 26, h: 34 });
  }
  leaders.clear();
  for (const [id, lift] of stackTags(tags, meId)) {
    const a = actors.get(id)!;
    a.label.setY(-TAG_Y - lift);
    const tag = tags.find((t) => t.id === id)!;
    people.push({ x: tag.x - 2, y: tag.y - lift - 1, w: tag.w + 4, h: tag.h + 2 });
    // A lifted tag gets a faint line down to its owner's head, so it is clear whose it is.
    if (lift > 0)
      leaders
        .lineStyle(1, 0xffffff, 0.55)
        .lineBetween(a.shown.x, a.shown.y - TAG_Y - lift, a.shown.x, a.shown.y - 14);
  }
  return people;
}

/** Bubbles never overlap each other or the viewer's own avatar and stay on screen. Returns where
 * each was put, in world units. */
export function placeBubbles(
  actors: Map<string, ActorView>,
  people: Rect[],
  view: Phaser.Geom.Rectangle,
  leaders: Phaser.GameObjects.Graphics,
): { id: string; rect: Rect }[] {
  const boxes: BubbleBox[] = [];
  for (const [id, a] of actors) {
    if (!a.bubble) continue;
    boxes.push({
      id,
      anchorX: a.shown.x,
      anchorY: a.shown.y - 34,
      width: a.bubble.width,
      height: a.bubble.height,
      since: a.bubbleSince,
    });
  }
  if (!boxes.length) return [];
  // Nobody's avatar or name tag is covered: a line over someone reads as theirs.
  const placed = layoutBubbles(boxes, people, {
    x: view.x + 4,
    y: view.y + 4,
    w: view.width - 8,
    h: view.height - 8,
  });
  leaders.lineStyle(1.5, 0xffffff, 0.8);
  for (const p of placed) {
    const a = actors.get(p.id)!;
    a.bubble!.setPosition(p.rect.x, p.rect.y);
    // A leader line from the bubble back to its speaker.
    const bx = Math.min(Math.max(a.shown.x, p.rect.x + 6), p.rect.x + p.rect.w - 6);
    const by = p.rect.y + p.rect.h <= a.shown.y - 14 ? p.rect.y + p.rect.h : p.rect.y;
    leaders.lineBetween(bx, by, a.shown.x, a.shown.y - 16);
  }
  return placed;
}

/** Screen rectangles (CSS pixels) of the shown bubbles and of the viewer's avatar, for tests. */
export function bubbleLayoutOnScreen(
  cam: Phaser.Cameras.Scene2D.Camera,
  bubbleRects: { id: string; rect: Rect }[],
  peopleRects: Rect[],
  me: ActorView | undefined,
): {
  bubbles: { id: string; x: number; y: number; w: number; h: number }[];
  me?: Rect;
  /** Everyone's body and name tag. */
  people: Rect[];
} {
  const zoom = cam.zoom;
  const screen = (r: Rect) => {
    const p = toScreen(cam, r.x, r.y);
    return { x: p.x, y: p.y, w: r.w * zoom, h: r.h * zoom };
  };
  return {
    bubbles: bubbleRects.map((b) => ({ id: b.id, ...screen(b.rect) })),
    ...(me ? { me: screen({ x: me.shown.x - 12, y: me.shown.y - 16, w: 24, h: 28 }) } : {}),
    people: peopleRects.map(screen),
  };
}

/** The name tags' screen rectangles (CSS pixels), for tests. */
export function tagRectsOnScreen(
  cam: Phaser.Cameras.Scene2D.Camera,
  actors: Map<string, ActorView>,
): { text: string; x: number; y: number; w: number; h: number }[] {
  const zoom = cam.zoom;
  return [...actors.values()].map((a) => {
    const p = toScreen(cam, a.shown.x - a.label.width / 2, a.shown.y + a.label.y - a.label.height);
    return { text: a.label.text, x: p.x, y: p.y, w: a.label.width * zoom, h: a.label.height * zoom };
  });
}
