// What every creature's state holds, whatever its species (creature.ts): where it is, what it is
// doing, with whom, until when, and when it next does anything (sim ms).
import type { ObjectDefinition } from "../types.ts";
import type { ObjectState, RoamContext } from "./object-type.ts";

export interface Roamer<Mode extends string = string> {
  tx: number;
  ty: number;
  facing: string;
  mode: Mode;
  /** The person its mode is about (the cat follows them, the bird fled them), or "". */
  with: string;
  withName: string;
  until: number;
  next: number;
}

/** A saved state read as a roamer, its mode one of `modes` (the first when it is none of them). */
export function roamerOf<Mode extends string>(
  s: Readonly<ObjectState>,
  modes: readonly Mode[],
): Roamer<Mode> {
  return {
    tx: Number(s.tx),
    ty: Number(s.ty),
    facing: String(s.facing),
    mode: modes.includes(s.mode as Mode) ? (s.mode as Mode) : modes[0]!,
    with: String(s.with),
    withName: String(s.withName),
    until: Number(s.until),
    next: Number(s.next),
  };
}

/** Where a creature starts: on its map tile, with nobody, ready to act on the first tick. */
export function startingAt<Mode extends string>(
  def: ObjectDefinition,
  facing: string,
  mode: Mode,
): Roamer<Mode> {
  return { tx: def.tile.tx, ty: def.tile.ty, facing, mode, with: "", withName: "", until: 0, next: 0 };
}

/** Changes the creature's state quietly, with what it is doing in words. */
export function settler<R extends Roamer>(
  ctx: RoamContext,
  current: R,
  doing: (r: R) => string,
): (fields: Partial<R>) => void {
  return (fields) => {
    const next = { ...current, ...fields };
    ctx.quietly(roamerState(next, doing(next)));
  };
}

/** A roamer as object state, with what it is doing in words. */
export function roamerState(r: Roamer, doing: string): ObjectState {
  const { tx, ty, facing, mode, with: whom, withName, until, next } = r;
  return { tx, ty, facing, mode, with: whom, withName, until, next, doing };
}
