// Interest management: which actors a browser is streamed. Two bounds, each with hysteresis so an actor
// on the edge does not flicker in and out:
// - distance: an actor enters within `enterRadius` and stays until beyond `exitRadius`;
// - count (the "visible entity limit"): at most `maxVisible` actors, the viewer's own included. A
//   newcomer must be among the nearest `admitRank` others; a member stays while among the nearest
//   `keepRank` = maxVisible - 1 others, where keepRank is HYSTERESIS times admitRank. So ranks
//   reshuffling within the margin (a crowd milling about) change nothing, and the nearest `admitRank`
//   are always shown.
// Ranks are by distance, ties by id: the room's spatial grid answers them (WorldReads.nearestActors).
// Those left out still appear on the minimap through the room-wide radar (radar.ts).
import type { Nearby } from "../../aic/reads.ts";
import { DEFAULT_MAX_VISIBLE } from "../../config/config.ts";

export { DEFAULT_MAX_VISIBLE };

/** Exit radius over enter radius, and kept rank over admitted rank. */
export const HYSTERESIS = 1.25;

export class InterestSet {
  readonly enterRadius: number;
  readonly exitRadius: number;
  readonly maxVisible: number;
  /** Others a member may rank among and stay. */
  readonly keepRank: number;
  /** Others a newcomer must rank among to enter. */
  readonly admitRank: number;
  /** The call (a count) at which each id was last a member: one map updated in place, since a
   * set emptied and refilled per call was most of the cost of choosing. */
  private readonly memberAt = new Map<string, number>();
  private calls = 1;

  constructor(enterRadius: number, exitRadius: number, maxVisible: number = DEFAULT_MAX_VISIBLE) {
    if (!(exitRadius >= enterRadius)) throw new Error("exitRadius must be at least enterRadius");
    if (!(Number.isInteger(maxVisible) && maxVisible >= 1))
      throw new Error("maxVisible must be an integer >= 1");
    this.enterRadius = enterRadius;
    this.exitRadius = exitRadius;
    this.maxVisible = maxVisible;
    this.keepRank = maxVisible - 1;
    this.admitRank = this.keepRank === 0 ? 0 : Math.max(1, Math.floor(this.keepRank / HYSTERESIS));
  }

  /**
   * The others to show now, given the viewer's nearest `keepRank` others within `exitRadius`
   * (nearest first, ties by id: WorldReads.nearestActors), in that order. Remembers them as the
   * members for the next call.
   */
  select(nearest: readonly Nearby[]): Nearby[] {
    const shown: Nearby[] = [];
    const { memberAt } = this;
    const last = this.calls++;
    const found = Math.min(nearest.length, this.keepRank);
    for (let rank = 0; rank < found; rank++) {
      const near = nearest[rank]!;
      if ((rank < this.admitRank && near.distance <= this.enterRadius) || memberAt.get(near.id) === last) {
        shown.push(near);
        memberAt.set(near.id, last + 1);
      }
    }
    // Those who left stay as stale entries until they outnumber the members: bounded.
    if (memberAt.size > 4 * (this.keepRank + 1))
      for (const [id, at] of memberAt) if (at !== last + 1) memberAt.delete(id);
    return shown;
  }

  clear(): void {
    this.memberAt.clear();
  }
}
