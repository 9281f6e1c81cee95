// The room-wide minimap feed: where everyone in the room is, as tile positions only, at a low rate.
// Full detail (smooth positions, facing, names) still streams only within interest range; this lets a
// player find people beyond it. A viewer is sent only the actors it has no full detail on, and only
// when that list changed, so a quiet room costs nothing.
import type { WorldApi } from "../../world/types.ts";

/** One dot: [entityId, "h" | "a" (human, agent), tx, ty]. */
export type RadarDot = [string, "h" | "a", number, number];

/** How often the feed is refreshed: once per simulated second. */
export const radarEveryTicks = (tickRate: number) => Math.max(1, Math.round(tickRate));

export function roomDots(world: Pick<WorldApi, "actorsInRoom">, roomId: string): RadarDot[] {
  return world
    .actorsInRoom(roomId)
    .map((a): RadarDot => [a.id, a.kind === "agent" ? "a" : "h", a.tile.tx, a.tile.ty]);
}

/** Per viewer: what it was last sent, so an unchanged feed is not sent again. */
export class RadarView {
  private last = "";

  /** The dots to send now (those not in `detailed`), or undefined when nothing changed. */
  next(
    dots: readonly RadarDot[],
    detailed: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  ): RadarDot[] | undefined {
    const mine = dots.filter((d) => !detailed.has(d[0]));
    const key = JSON.stringify(mine);
    if (key === this.last) return undefined;
    this.last = key;
    return mine;
  }

  reset(): void {
    this.last = "";
  }
}
