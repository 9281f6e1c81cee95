// The bird's rule: it hops about and pecks, now and then flies off to another spot of its region,
// and flies off at once when a person comes near, to land well away from them. Pure: the state it
// is given, the world's seeded draws and simulation time.
import type { Noticed, ObjectState, RoamContext } from "./object-type.ts";
import { type Roamer, roamerOf, settler } from "./roamer.ts";

/** How near a person may come (tiles) before it flies off, and how far from them it lands. */
export const SHY_TILES = 2;
export const LANDS_TILES = 5;
/** A flight, start to landing (the page glides it over this long). */
export const FLIGHT_MS = 1000;
/** One hop in this many flies off for no reason. */
const RESTLESS = 30;

export const BIRD_MODES = ["hop", "fly"] as const;
export type Bird = Roamer<(typeof BIRD_MODES)[number]>;

export const birdOf = (s: Readonly<ObjectState>): Bird => roamerOf(s, BIRD_MODES);

export function birdDoing(b: Bird): string {
  if (b.mode === "fly") return b.withName ? `flying off from ${b.withName}` : "flying off";
  return "hopping about";
}

export function roamBird(ctx: RoamContext): void {
  const bird = birdOf(ctx.state);
  const now = ctx.nowMs;
  if (now < bird.next) return;
  const set = settler(ctx, bird, birdDoing);
  const someone = ctx.nearestPerson(SHY_TILES);
  if (someone || ctx.int(1, RESTLESS) === 1) {
    const spot = landing(ctx, bird, someone);
    if (spot) {
      const facing = spot.tx < bird.tx ? "left" : "right";
      set({
        ...spot,
        facing,
        mode: "fly",
        with: someone?.id ?? "",
        withName: someone?.name ?? "",
        next: now + FLIGHT_MS,
      });
      return;
    }
  }
  const dx = ctx.int(-1, 1);
  const dy = ctx.int(-1, 1);
  const hop = ctx.mayStand(bird.tx + dx, bird.ty + dy) ? { tx: bird.tx + dx, ty: bird.ty + dy } : {};
  const facing = dx < 0 ? "left" : dx > 0 ? "right" : bird.facing;
  set({ ...hop, facing, mode: "hop", with: "", withName: "", next: now + ctx.int(300, 1500) });
}

/** A spot of its home to land on, at least LANDS_TILES from whoever scared it (a few tries). */
function landing(
  ctx: RoamContext,
  bird: Bird,
  from: Noticed | undefined,
): { tx: number; ty: number } | undefined {
  const { home } = ctx;
  const away = from ?? { tx: bird.tx, ty: bird.ty };
  for (let i = 0; i < 8; i++) {
    const tx = home.tx + ctx.int(0, home.widthTiles - 1);
    const ty = home.ty + ctx.int(0, home.heightTiles - 1);
    if (ctx.mayStand(tx, ty) && Math.max(Math.abs(tx - away.tx), Math.abs(ty - away.ty)) >= LANDS_TILES)
      return { tx, ty };
  }
  return undefined;
}
