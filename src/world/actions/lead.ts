// Walk somewhere with someone: a move to a tile (as moveTo) that keeps within a few tiles of the one
// it leads, waits at portals and doors until they are near, and ends with a typed outcome
// (`arrived_together`, `left_behind`, `blocked`) the walker's entity shows until its next move. The
// rule is leading.ts, applied each tick before walking (movement.ts). A resident asked "take me to
// the café" sends it (ocw_lead); the follower need not be in the room yet (one coming through a
// portal after it, or not yet in the world, is waited for).
import * as z from "zod";
import { fail } from "../core.ts";
import { ACTOR_ID_PATTERN } from "../ids.ts";
import type { TileCoord } from "../types.ts";
import { defineAction, fieldsProblem } from "./action.ts";
import { TileCoordField } from "./field-shapes.ts";
import { walkTo } from "./move-to.ts";

declare module "../types.ts" {
  interface ActionFields {
    lead: { dest: TileCoord; with: string };
  }
  interface ActionAnswers {
    lead: { result: "accepted" | "no_op"; pathLength: number };
  }
}

/** A person or an agent (not an object): the one led. */
const fields = { dest: TileCoordField, with: z.string().regex(ACTOR_ID_PATTERN) };

export const lead = defineAction({
  kind: "lead",
  rateClass: "action",
  doors: {
    fields,
    answer: { result: z.enum(["accepted", "no_op"]), pathLength: z.int().min(0) },
    summary: "Walk to a tile with someone, waiting for them",
    description:
      "Extension: walk to `dest` (a tile of your room, as moveTo) leading `with` (a person or agent): you wait while they are more than 4 tiles behind, and before a portal or a door until they are within 2; after 60 s of waiting in all you stop (left_behind). Your entity's `lead` shows the state: walking, waiting, arrived_together, left_behind or blocked. One not in your room (or not yet in the world) is waited for. Domain errors: agent_not_in_room, invalid_destination, collision_blocked, bad_request (yourself).",
    tool: {
      label: "Walk with someone",
      description: "Walk to a tile with someone (`with`), waiting for them.",
    },
    example: { dest: { tx: 3, ty: 3 }, with: "hum_example" },
    humans: false,
  },
  check: (input) => fieldsProblem(fields, input),
  apply(w, input) {
    if (input.with === input.entityId) return fail("bad_request", "you cannot lead yourself");
    const walked = walkTo(w, input.entityId, input.dest);
    if (!walked.ok || walked.value.kind !== "moveTo") return walked;
    const actor = w.actors.get(input.entityId)!;
    actor.lead = {
      with: input.with,
      roomId: actor.roomId,
      goal: actor.dest >= 0 ? actor.dest : actor.ty * w.rooms.get(actor.roomId)!.width + actor.tx,
      state: "walking",
      waitedTicks: 0,
    };
    return {
      ok: true,
      value: { kind: "lead", result: walked.value.result, pathLength: walked.value.pathLength },
    };
  },
});
