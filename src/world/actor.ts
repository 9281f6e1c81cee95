// The mutable state of one human or agent. Plain fields only: snapshot.ts serializes them.
import type { Lead } from "./lead-state.ts";
import type { ActorKind, Audience, Facing } from "./types.ts";

export interface Actor {
  id: string;
  kind: ActorKind;
  name: string;
  roomId: string;
  x: number;
  y: number;
  tx: number;
  ty: number;
  facing: Facing;
  /** Small integer unique per join, used to key proximity pairs without string building. */
  handle: number;
  /** Tile indices being walked (moveTo), from the start tile; empty when not path-walking. */
  path: readonly number[];
  pathIndex: number;
  /** Destination tile index of the current moveTo (-1 when none), for re-pathing. */
  dest: number;
  /** A walk with a follower (the `lead` action, leading.ts): while it walks or waits, and its
   * outcome until the next move; absent otherwise. */
  lead?: Lead;
  /** Held direction (moveDir), each in -1..1. */
  dirX: number;
  dirY: number;
  /** Whether the actor moved during the last tick. */
  moving: boolean;
  /** A resident whose agent turn is running (set by a `thinking` input; browsers show a mark). */
  thinking: boolean;
  /** A resident that cannot take turns (no model): set by an `asleep` input; browsers show it. */
  asleep: boolean;
  /** A resident whose turns fail (it cannot answer now): set by an `unwell` input; browsers show it. */
  unwell: boolean;
  /** An agent quiet for a while (src/plugin/quiet-agents.ts): set by an `away` input; browsers show it. */
  away: boolean;
  /** Position in the world's (room id, actor id) order, refreshed every tick before proximity is
   * settled, so changes sort by integers instead of id strings (not serialized). */
  rank: number;
  /** The regions of the actor's tile (RoomSignals.maskAt), kept so crossing a region border is one
   * comparison per moving actor (not serialized: derived from the tile on restore). */
  regionMask: number;
  /** How many others it is reported in proximity with (ProximityTracker; not serialized: counted
   * from the snapshot's pairs on restore). */
  proximityCount: number;
  /** Spatial grid bookkeeping (not serialized; rebuilt on restore). */
  cell: number;
  /** Shared, never mutated audience naming only this actor (saves allocations per proximity event). */
  audience: Audience;
}

/** The path of every actor that is not path-walking. Shared so stopping allocates nothing and the
 * tick's "is it walking a path?" check reads one hot array instead of one array per actor, which
 * were scattered over the heap and missed the cache more the more actors there were. */
export const NO_PATH: readonly number[] = Object.freeze([]);

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first actor whose id is not below `id` in an id-sorted array. */
function lowerBound(list: Actor[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts into an id-sorted array. */
export function insertSorted(list: Actor[], actor: Actor): void {
  list.splice(lowerBound(list, actor.id), 0, actor);
}

export function removeSorted(list: Actor[], actor: Actor): void {
  const at = lowerBound(list, actor.id);
  if (list[at] === actor) list.splice(at, 1);
}
