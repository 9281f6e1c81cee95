// Walk to a tile: checked against the room and its current collision, a path found (A*, grid.ts);
// the walking itself happens tick by tick (movement.ts). A new move replaces any path or held key.

import * as z from "zod";
import { fail, type Outcome, type WorldCore } from "../core.ts";
import { closedNotice } from "../opening-hours.ts";
import { releaseHeld, stop } from "../placement.ts";
import type { TileCoord } from "../types.ts";
import { type ActionWire, bad, defineAction, isInt, isPlainObject } from "./action.ts";
import { TileCoordField } from "./field-shapes.ts";

declare module "../types.ts" {
  interface ActionInputs {
    moveTo: { dest: TileCoord };
  }
  interface ActionValues {
    moveTo: { result: "accepted" | "no_op"; pathLength: number };
  }
}

export function walkTo(w: WorldCore, entityId: string, asked: TileCoord): Outcome {
  const actor = w.actors.get(entityId);
  if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
  const room = w.rooms.get(actor.roomId)!;
  if (!room.inBounds(asked.tx, asked.ty)) {
    return fail(
      "invalid_destination",
      `tile (${asked.tx}, ${asked.ty}) is outside room "${room.def.roomId}"`,
      {
        widthTiles: room.width,
        heightTiles: room.height,
      },
    );
  }
  const closed = room.closedPlaceAt(asked.tx, asked.ty);
  if (closed)
    return fail("collision_blocked", closedNotice(closed.name, closed.hours!), {
      placeId: closed.id,
      opensAt: closed.hours!.opens,
    });
  if (room.blocked[asked.ty * room.width + asked.tx])
    return fail("collision_blocked", `tile (${asked.tx}, ${asked.ty}) is blocked`);
  // A new move replaces a walk with someone (leading.ts).
  actor.lead = undefined;
  // The tile asked for, whoever stands there: the PRD's moveTo ends on its destination (a lead that
  // ends on someone's tile steps aside: movement.ts `stepAside`).
  const dest = asked;
  const goal = dest.ty * room.width + dest.tx;
  if (dest.tx === actor.tx && dest.ty === actor.ty) {
    stop(actor);
    return { ok: true, value: { kind: "moveTo", result: "no_op", pathLength: 0 } };
  }
  const path = room.pathFinder.find(room, actor.ty * room.width + actor.tx, goal);
  if (!path) return fail("collision_blocked", `tile (${dest.tx}, ${dest.ty}) cannot be reached from here`);
  releaseHeld(w, actor);
  actor.path = path;
  actor.pathIndex = 0;
  actor.dest = goal;
  actor.dirX = 0;
  actor.dirY = 0;
  w.remember(actor.id, "moved", `set off for (${dest.tx}, ${dest.ty})`);
  w.signal(actor, "move");
  return { ok: true, value: { kind: "moveTo", result: "accepted", pathLength: path.length - 1 } };
}

export const moveToWire = {
  fields: { dest: TileCoordField },
  // The PRD's request names a walking mode; walking is the only one, so the action has none.
  requestOnly: { mode: z.enum(["walk"]).default("walk") },
  answer: { result: z.enum(["accepted", "rejected", "no_op"]) },
  applied: (value) => value.result === "accepted",
  humans: true,
} as const satisfies ActionWire<"moveTo">;

export const moveTo = defineAction({
  kind: "moveTo",
  rateClass: "action",
  wire: moveToWire,
  check(i) {
    const dest = i.dest as Record<string, unknown>;
    return isPlainObject(dest) && isInt(dest.tx) && isInt(dest.ty)
      ? undefined
      : bad("dest must be {tx, ty} integers");
  },
  apply: (w, input) => walkTo(w, input.entityId, input.dest),
});
