// Walk into reach of an object. Where an object can be used from is the world's to say (objects sit
// in or against walls, so the tile below one is often blocked): the approach tile over the room's
// current grid (../approach.ts), then a move there like moveTo.

import * as z from "zod";
import { approachTile } from "../approach-spot.ts";
import { fail } from "../core.ts";
import { takenFor } from "../free-tile.ts";
import type { TileCoord } from "../types.ts";
import { type ActionWire, bad, defineAction } from "./action.ts";
import { EntityIdField, TileCoordField } from "./field-shapes.ts";
import { walkTo } from "./move-to.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** Walk into reach of an object: to the reachable tile nearest by walking from which it can be
     * used (approach.ts), then a move there like moveTo. */
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
      "Walk into reach of an object: to the reachable tile nearest by walking from which it can be used (objects often sit in or against walls), then interact.",
    answer: "`dest` is where the walk ends; `no_op` when the object is already within reach.",
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
    const obj = w.objects.get(targetId);
    if (!obj || obj.def.roomId !== actor.roomId)
      return fail("not_found", `no object "${targetId}" in this room`);
    const room = w.rooms.get(actor.roomId)!;
    const from = { tx: actor.tx, ty: actor.ty };
    const dest = approachTile(room, from, obj.def.tile, w.definition.interactRangeTiles, (tx, ty) =>
      takenFor(room, tx, ty, actor),
    );
    if (!dest) return fail("collision_blocked", `${obj.def.name} cannot be reached from here`);
    const moved = walkTo(w, entityId, dest);
    if (!moved.ok || moved.value.kind !== "moveTo") return moved;
    return {
      ok: true,
      value: { kind: "approach", result: moved.value.result, pathLength: moved.value.pathLength, dest },
    };
  },
});
