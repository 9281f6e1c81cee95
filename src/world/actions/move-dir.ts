// A held direction (WASD): dx, dy in -1..1; (0, 0) stops. Replaces any path.

import * as z from "zod";
import { NO_PATH } from "../actor.ts";
import { tellIfPressedIntoClosed } from "../closed-edge.ts";
import { fail } from "../core.ts";
import { facingFor } from "../movement.ts";
import { releaseHeld } from "../placement.ts";
import { type ActionWire, bad, defineAction, isInt } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** Held-direction movement (WASD): dx, dy in {-1, 0, 1}; (0, 0) stops. Replaces any path. */
    moveDir: { dx: number; dy: number };
  }
  interface ActionValues {
    moveDir: Record<never, never>;
  }
}

const step = () => z.int().min(-1).max(1);

export const moveDirWire = {
  fields: { dx: step(), dy: step() },
  answer: {},
} as const satisfies ActionWire<"moveDir">;

export const moveDir = defineAction({
  kind: "moveDir",
  rateClass: "moveDir",
  // The browser's held key (`move_intent`); no AIC endpoint.
  wire: moveDirWire,
  check: (i) =>
    isInt(i.dx) && isInt(i.dy) && Math.abs(i.dx) <= 1 && Math.abs(i.dy) <= 1
      ? undefined
      : bad("dx and dy must be integers in -1..1"),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    actor.path = NO_PATH;
    actor.lead = undefined;
    actor.pathIndex = 0;
    actor.dest = -1;
    actor.dirX = input.dx + 0; // + 0 turns -0 into 0 so snapshots stay canonical
    actor.dirY = input.dy + 0;
    if (input.dx !== 0 || input.dy !== 0) {
      releaseHeld(w, actor);
      actor.facing = facingFor(input.dx, input.dy, actor.facing);
      w.signal(actor, "move");
      tellIfPressedIntoClosed(w, actor);
    }
    return { ok: true, value: { kind: "moveDir" } };
  },
});
