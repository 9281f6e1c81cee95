// Walk into reach of an object, or up beside a person. Where an object can be used from is the
// world's to say (objects sit in or against walls, so the tile below one is often blocked): the
// approach tile over the room's current grid (../approach-spot.ts), then a move there like moveTo. A
// person is approached to a free tile beside them (a step away, diagonals too), never onto theirs:
// the page's "talk to" and anyone keeping up with someone who walks ahead.

import * as z from "zod";
import { approachTile } from "../approach-spot.ts";
import { fail, type WorldCore } from "../core.ts";
import { takenFor } from "../free-tile.ts";
import { objectTile } from "../room.ts";
import type { TileCoord } from "../types.ts";
import { type ActionWire, bad, defineAction } from "./action.ts";
import { EntityIdField, TileCoordField } from "./field-shapes.ts";
import { walkTo } from "./move-to.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** Walk into reach of an object (to the reachable tile nearest by walking from which it can be
     * used), or up beside a person in the same room; then a move there like moveTo. */
    approach: { targetId: string };
  }
  interface ActionValues {
    approach: { result: "accepted" | "no_op"; pathLength: number; dest: TileCoord };
  }
}

export const approachWire = {
  fields: { targetId: EntityIdField },
  answer: { result: z.enum(["accepted", "no_op"]), targetId: EntityIdField, dest: TileCoordField },
  describe: {
    request:
      "Walk into reach of an object (to the reachable tile nearest by walking from which it can be used: objects often sit in or against walls), then interact; or, with a person's id, up to a free tile beside them.",
    answer: "`dest` is where the walk ends; `no_op` when the object or person is already within reach.",
  },
  applied: (value) => value.result === "accepted",
} as const satisfies ActionWire<"approach">;

export const approach = defineAction({
  kind: "approach",
  rateClass: "action",
  wire: approachWire,
  check: (i) =>
    typeof i.targetId === "string" && i.targetId.length > 0 ? undefined : bad("targetId must be a string"),
  apply(w, { entityId, targetId }) {
    const actor = w.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    const target = reachOf(w, targetId);
    if (!target || target.roomId !== actor.roomId || targetId === entityId)
      return fail("not_found", `no object or person "${targetId}" in this room`);
    const room = w.rooms.get(actor.roomId)!;
    const from = { tx: actor.tx, ty: actor.ty };
    const dest = approachTile(room, from, target.tile, target.range, (tx, ty) =>
      takenFor(room, tx, ty, actor),
    );
    if (!dest) return fail("collision_blocked", `${target.name} cannot be reached from here`);
    const moved = walkTo(w, entityId, dest);
    if (!moved.ok || moved.value.kind !== "moveTo") return moved;
    return {
      ok: true,
      value: { kind: "approach", result: moved.value.result, pathLength: moved.value.pathLength, dest },
    };
  },
});

/** Where a target stands and how near counts as in reach: an object's interact range, or beside a
 * person (a step away, the diagonals included: √2 tiles, within 1.5). */
function reachOf(
  w: WorldCore,
  targetId: string,
): { roomId: string; tile: TileCoord; range: number; name: string } | undefined {
  const obj = w.objects.get(targetId);
  if (obj)
    return {
      roomId: obj.def.roomId,
      tile: objectTile(obj),
      range: w.definition.interactRangeTiles,
      name: obj.def.name,
    };
  const person = w.actors.get(targetId);
  if (person)
    return { roomId: person.roomId, tile: { tx: person.tx, ty: person.ty }, range: 1.5, name: person.name };
  return undefined;
}
