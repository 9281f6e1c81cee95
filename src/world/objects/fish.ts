// The fish's rule: it swims about its water a tile at a time, now and then holding still; a person
// standing near the water draws it to them (fish gather where someone might feed them), and it
// swims off again once they go. Pure: the state it is given, the world's seeded draws and
// simulation time.
import type { ObjectState, RoamContext } from "./object-type.ts";
import { type Roamer, roamerOf, settler } from "./roamer.ts";

/** How near a person (tiles) draws it. */
export const DRAWS_TILES = 5;
/** A drawn fish swims a tile this often to reach them. */
export const DART_MS = 400;
/** An idle swim's stroke comes within these bounds (ms). */
export const STROKE_MS = [600, 1800] as const;

export const FISH_MODES = ["swim", "gather"] as const;
export type Fish = Roamer<(typeof FISH_MODES)[number]>;

export const fishOf = (s: Readonly<ObjectState>): Fish => roamerOf(s, FISH_MODES);

export function fishDoing(f: Fish): string {
  return f.mode === "gather" ? `gathering by ${f.withName}` : "swimming about";
}

export function roamFish(ctx: RoamContext): void {
  const fish = fishOf(ctx.state);
  const now = ctx.nowMs;
  if (now < fish.next) return;
  const set = settler(ctx, fish, fishDoing);
  const someone = ctx.nearestOnShore(DRAWS_TILES);
  if (someone) {
    set({
      ...swimToward(ctx, fish, someone.tx, someone.ty),
      mode: "gather",
      with: someone.id,
      withName: someone.name,
      next: now + DART_MS,
    });
    return;
  }
  const dx = ctx.int(-1, 1);
  const dy = ctx.int(-1, 1);
  const moved = ctx.maySwim(fish.tx + dx, fish.ty + dy) ? { tx: fish.tx + dx, ty: fish.ty + dy } : {};
  const facing = dx < 0 ? "left" : dx > 0 ? "right" : fish.facing;
  set({ ...moved, facing, mode: "swim", with: "", withName: "", next: now + ctx.int(...STROKE_MS) });
}

/** One stroke (eight ways) over water nearer a tile, holding still beside it or where the water
 * ends: straight at it first, then along either axis. */
function swimToward(ctx: RoamContext, fish: Fish, tx: number, ty: number): Partial<Fish> {
  const sx = Math.sign(tx - fish.tx);
  const sy = Math.sign(ty - fish.ty);
  if (Math.max(Math.abs(tx - fish.tx), Math.abs(ty - fish.ty)) <= 1) return {};
  const facing = sx < 0 ? "left" : sx > 0 ? "right" : fish.facing;
  for (const [dx, dy] of [
    [sx, sy],
    [sx, 0],
    [0, sy],
  ] as const) {
    if ((dx !== 0 || dy !== 0) && ctx.maySwim(fish.tx + dx, fish.ty + dy))
      return { tx: fish.tx + dx, ty: fish.ty + dy, facing };
  }
  return { facing };
}
