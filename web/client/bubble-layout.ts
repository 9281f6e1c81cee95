// Where chat bubbles go: each as close as possible to the spot above its speaker, never over another
// bubble or the viewer's own avatar, and always inside the visible view. Pure (world coordinates in,
// rectangles out) so it is unit tested without a browser; the scene calls it every frame.

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface BubbleBox {
  id: string;
  /** The bubble's preferred bottom-centre point (above the speaker's name tag). */
  anchorX: number;
  anchorY: number;
  width: number;
  height: number;
  /** When it appeared: older bubbles keep their place, newer ones move around them. */
  since: number;
}

const GAP = 3;

export const overlaps = (a: Rect, b: Rect, gap = 0) =>
  a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;

function clampInto(r: Rect, view: Rect): Rect {
  const x = r.w >= view.w ? view.x : Math.min(Math.max(r.x, view.x), view.x + view.w - r.w);
  const y = r.h >= view.h ? view.y : Math.min(Math.max(r.y, view.y), view.y + view.h - r.h);
  return { ...r, x, y };
}

const overlapArea = (a: Rect, b: Rect) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

export function layoutBubbles(
  boxes: readonly BubbleBox[],
  avoid: readonly Rect[],
  view: Rect,
): { id: string; rect: Rect }[] {
  const order = [...boxes].sort((a, b) => a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const obstacles: Rect[] = [...avoid];
  const placed: { id: string; rect: Rect }[] = [];
  for (const box of order) {
    const want = clampInto(
      { x: box.anchorX - box.width / 2, y: box.anchorY - box.height, w: box.width, h: box.height },
      view,
    );
    // Candidates: where it wants to be, and beside each obstacle (above, below, left, right), plus
    // above or below everything that shares its column; the nearest free one wins.
    const candidates: Rect[] = [want];
    const column = obstacles.filter((o) => o.x < want.x + want.w && want.x < o.x + o.w);
    if (column.length) {
      candidates.push({ ...want, y: Math.min(...column.map((o) => o.y)) - want.h - GAP });
      candidates.push({ ...want, y: Math.max(...column.map((o) => o.y + o.h)) + GAP });
    }
    for (const o of obstacles) {
      candidates.push({ ...want, y: o.y - want.h - GAP });
      candidates.push({ ...want, y: o.y + o.h + GAP });
      candidates.push({ ...want, x: o.x + o.w + GAP });
      candidates.push({ ...want, x: o.x - want.w - GAP });
    }
    let best: Rect | undefined;
    let bestCost = Number.POSITIVE_INFINITY;
    let fallback = want;
    let fallbackOverlap = Number.POSITIVE_INFINITY;
    for (const raw of candidates) {
      const c = clampInto(raw, view);
      const hit = obstacles.reduce(
        (sum, o) => sum + (overlaps(c, o, GAP - 1) ? overlapArea(c, o) + 1 : 0),
        0,
      );
      const cost = Math.abs(c.x - want.x) + Math.abs(c.y - want.y) * 1.2;
      if (hit === 0 && cost < bestCost) {
        best = c;
        bestCost = cost;
      } else if (hit > 0 && hit < fallbackOverlap) {
        fallback = c;
        fallbackOverlap = hit;
      }
    }
    const rect = best ?? fallback;
    placed.push({ id: box.id, rect });
    obstacles.push(rect);
  }
  return placed;
}

/** Name tags of people standing close together: each tag keeps its place unless it would overlap a
 * tag already placed, then it moves up just above it. Placed in order: the viewer's own (`firstId`,
 * it never moves), then by row (lower on screen first), column and id, in whole pixels, so someone a
 * fraction of a pixel from where they walk to stacks as they will there (and as the replay draws
 * them). Returns how far up each tag moved. Cheaper than layoutBubbles (tags are many and change
 * every frame). */
export function stackTags(tags: readonly (Rect & { id: string })[], firstId?: string): Map<string, number> {
  const placed: Rect[] = [];
  const lifts = new Map<string, number>();
  const row = (t: Rect) => Math.round(t.y);
  const ordered = [...tags].sort((p, q) =>
    p.id === firstId
      ? -1
      : q.id === firstId
        ? 1
        : row(q) - row(p) || Math.round(p.x) - Math.round(q.x) || (p.id < q.id ? -1 : p.id > q.id ? 1 : 0),
  );
  for (const tag of ordered) {
    const r = { ...tag };
    for (let guard = 0; guard < 8; guard++) {
      const hit = placed.find((p) => overlaps(r, p));
      if (!hit) break;
      r.y = hit.y - r.h - 1;
    }
    placed.push(r);
    lifts.set(tag.id, tag.y - r.y);
  }
  return lifts;
}
