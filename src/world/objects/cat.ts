// The cat's rule: it wanders a step at a time, naps, and follows a person who comes near for a
// while, then loses interest and naps (ignoring that person until it wakes by itself). Pure: the
// state it is given, the world's seeded generator and simulation time.
import type { ObjectState, RoamContext } from "./object-type.ts";
import { type Roamer, roamerOf, settler } from "./roamer.ts";

/** A following cat trots at a walking person's pace (4 tiles a second, walk_speed 128). */
export const TROT_MS = 250;
/** How near a person must come (tiles) to be noticed. */
export const NOTICE_TILES = 3;
/** How long it follows someone before it loses interest. */
export const FOLLOW_MS = 20_000;
/** A nap, and a stretch of wandering, last a while within these bounds (ms). */
export const NAP_MS = [15_000, 40_000] as const;
export const WANDER_MS = [10_000, 30_000] as const;
/** A napping cat still glances up this often: a newcomer wakes it. */
const GLANCE_MS = 500;

export const CAT_MODES = ["wander", "nap", "follow"] as const;
export type Cat = Roamer<(typeof CAT_MODES)[number]>;

export const catOf = (s: Readonly<ObjectState>): Cat => roamerOf(s, CAT_MODES);

/** What it is doing, in words (agents read it; the page shows it on hover). */
export function catDoing(c: Cat): string {
  if (c.mode === "follow") return `following ${c.withName}`;
  return c.mode === "nap" ? "napping" : "wandering about";
}

const STEPS: readonly [number, number, string][] = [
  [0, -1, "up"],
  [0, 1, "down"],
  [-1, 0, "left"],
  [1, 0, "right"],
];

export function roamCat(ctx: RoamContext): void {
  const cat = catOf(ctx.state);
  const now = ctx.nowMs;
  if (now < cat.next) return;
  const set = settler(ctx, cat, catDoing);
  const nap = (snubbed: Cat["with"], name: string) =>
    set({
      mode: "nap",
      with: snubbed,
      withName: name,
      until: now + ctx.int(...NAP_MS),
      next: now + GLANCE_MS,
    });
  const follow = (id: string, name: string) =>
    set({ mode: "follow", with: id, withName: name, until: now + FOLLOW_MS, next: now + TROT_MS });

  if (cat.mode === "follow") {
    const person = ctx.person(cat.with);
    if (!person || now >= cat.until || !ctx.mayStand(person.tx, person.ty)) {
      nap(cat.with, cat.withName);
      return;
    }
    set({ ...stepToward(ctx, cat, person.tx, person.ty), next: now + TROT_MS });
    return;
  }
  // Napping, it ignores the one it lost interest in; anyone else who comes near wakes it.
  const someone = ctx.nearestPerson(NOTICE_TILES, cat.mode === "nap" ? cat.with : undefined);
  if (someone) {
    follow(someone.id, someone.name);
    return;
  }
  if (now >= cat.until) {
    if (cat.mode === "nap")
      set({ mode: "wander", with: "", withName: "", until: now + ctx.int(...WANDER_MS), next: now });
    else nap("", "");
    return;
  }
  if (cat.mode === "nap") {
    set({ next: Math.min(cat.until, now + GLANCE_MS) });
    return;
  }
  const [dx, dy, facing] = STEPS[ctx.int(0, STEPS.length - 1)]!;
  const moved = ctx.mayStand(cat.tx + dx, cat.ty + dy) ? { tx: cat.tx + dx, ty: cat.ty + dy, facing } : {};
  set({ ...moved, next: now + ctx.int(400, 1200) });
}

/** One step nearer a tile, stopping beside it (never onto a person): the longer axis first, the
 * other when that way is closed. */
function stepToward(ctx: RoamContext, cat: Cat, tx: number, ty: number): Partial<Cat> {
  const dx = tx - cat.tx;
  const dy = ty - cat.ty;
  if (Math.max(Math.abs(dx), Math.abs(dy)) <= 1) return {};
  const horizontal: [number, number, string] = [Math.sign(dx), 0, dx > 0 ? "right" : "left"];
  const vertical: [number, number, string] = [0, Math.sign(dy), dy > 0 ? "down" : "up"];
  const order = Math.abs(dx) >= Math.abs(dy) ? [horizontal, vertical] : [vertical, horizontal];
  for (const [sx, sy, facing] of order) {
    if ((sx !== 0 || sy !== 0) && ctx.mayStand(cat.tx + sx, cat.ty + sy))
      return { tx: cat.tx + sx, ty: cat.ty + sy, facing };
  }
  return {};
}
