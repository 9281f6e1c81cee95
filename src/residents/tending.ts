// What a resident that tends objects (its config's `tends`: "garden_plot") does next between turns:
// the object of a tended type in its room that needs something now (the world's `needs`, from the
// type's own `care` rule), nearest first. The scheduler walks it there (`approach`, as a person's
// click would) and does it (`interact`, as ocw_interact would): through the same doors as anyone.
import type { WorldReads } from "../aic/reads.ts";

export interface Chore {
  objectId: string;
  action: string;
}

/** A tended object given up on (it could not be reached or used) waits this long before another try. */
export const CHORE_RETRY_MS = 10 * 60_000;

/** The chore nearest to `self` in its room, or undefined when nothing it tends needs anything (or
 * only objects given up on until later: `skipUntil` by object id, simulation ms). */
export function nextChore(
  reads: Pick<WorldReads, "definition" | "objectView">,
  self: { roomId: string; tile: { tx: number; ty: number } },
  tends: readonly string[],
  simulationMs: number,
  skipUntil: ReadonlyMap<string, number> = new Map(),
): Chore | undefined {
  const room = reads.definition.rooms[self.roomId];
  if (!room || tends.length === 0) return undefined;
  let best: (Chore & { distance: number }) | undefined;
  for (const object of room.objects) {
    if (!tends.includes(object.objectType) || (skipUntil.get(object.id) ?? 0) > simulationMs) continue;
    const action = reads.objectView(object.id)?.needs;
    if (!action) continue;
    const distance = Math.hypot(object.tile.tx - self.tile.tx, object.tile.ty - self.tile.ty);
    // Ties by map order (room.objects), so every run picks the same one.
    if (!best || distance < best.distance) best = { objectId: object.id, action, distance };
  }
  return best && { objectId: best.objectId, action: best.action };
}
