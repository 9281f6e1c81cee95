// Interest management: which actors a browser is streamed. Two bounds, each with hysteresis so an actor
// on the edge does not flicker in and out:
// - distance: an actor enters within `enterRadius` and stays until beyond `exitRadius`;
// - count (the "visible entity limit"): at most `maxVisible` actors, the viewer's own included. A
//   newcomer must be among the nearest `admitRank` others; a member stays while among the nearest
//   `keepRank` = maxVisible - 1 others, where keepRank is HYSTERESIS times admitRank. So ranks
//   reshuffling within the margin (a crowd milling about) change nothing, and the nearest `admitRank`
//   are always shown.
// Ranks are by distance, ties by id (the crowd's index order). Those left out still appear on the
// minimap through the room-wide radar (radar.ts).
import { DEFAULT_MAX_VISIBLE } from "../../config/config.ts";
import type { RoomCrowd } from "./crowd.ts";
import { HandleMarks } from "./handle-marks.ts";

export { DEFAULT_MAX_VISIBLE };

/** Exit radius over enter radius, and kept rank over admitted rank. */
export const HYSTERESIS = 1.25;

/** Last patch's members while one viewer's set is chosen (one at a time: a single thread). */
const scratch = new HandleMarks();

export class InterestSet {
  readonly enterRadius: number;
  readonly exitRadius: number;
  readonly maxVisible: number;
  /** Others a member may rank among and stay. */
  readonly keepRank: number;
  /** Others a newcomer must rank among to enter. */
  readonly admitRank: number;
  /** Members by wire handle (never reused for another entity): the first `memberCount`. */
  private members: Int32Array;
  private memberCount = 0;
  private readonly order: Int32Array;
  private readonly orderD2: Float64Array;

  constructor(enterRadius: number, exitRadius: number, maxVisible: number = DEFAULT_MAX_VISIBLE) {
    if (!(exitRadius >= enterRadius)) throw new Error("exitRadius must be at least enterRadius");
    if (!(Number.isInteger(maxVisible) && maxVisible >= 1))
      throw new Error("maxVisible must be an integer >= 1");
    this.enterRadius = enterRadius;
    this.exitRadius = exitRadius;
    this.maxVisible = maxVisible;
    this.keepRank = maxVisible - 1;
    this.admitRank = this.keepRank === 0 ? 0 : Math.max(1, Math.floor(this.keepRank / HYSTERESIS));
    this.order = new Int32Array(this.keepRank);
    this.orderD2 = new Float64Array(this.keepRank);
    this.members = new Int32Array(this.keepRank);
  }

  /**
   * The actors to show now, as indices into `crowd` (the viewer's own `self` first, when it is in
   * the crowd), written to `out` (at least maxVisible long); returns how many. Remembers them as the
   * members for the next call.
   */
  select(crowd: RoomCrowd, self: number, x: number, y: number, out: Int32Array): number {
    const found = crowd.nearest(
      x,
      y,
      this.exitRadius,
      this.keepRank,
      self,
      this.order,
      this.orderD2,
      this.admitRank,
    );
    scratch.begin();
    for (let k = 0; k < this.memberCount; k++) scratch.add(this.members[k]!);
    let count = 0;
    if (self >= 0) out[count++] = self;
    let kept = 0;
    const enter2 = this.enterRadius * this.enterRadius;
    for (let rank = 0; rank < found; rank++) {
      const i = this.order[rank]!;
      const h = crowd.handles[i]!;
      if ((rank < this.admitRank && this.orderD2[rank]! <= enter2) || scratch.has(h)) {
        out[count++] = i;
        this.members[kept++] = h;
      }
    }
    this.memberCount = kept;
    return count;
  }

  clear(): void {
    this.memberCount = 0;
  }
}
