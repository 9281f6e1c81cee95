// Use an object: it must be in the actor's room and within reach (`interactRangeTiles`); what it
// does is the object type's (objects/).

import * as z from "zod";
import { fail, type Outcome } from "../core.ts";
import { interactContext, outcomeOf } from "../object-use.ts";
import type { InteractOutcome } from "../objects/object-type.ts";
import type { InteractOutcomeType } from "../types.ts";
import { type ActionWire, bad, defineAction, isPlainObject } from "./action.ts";
import { actionName, EntityIdField } from "./field-shapes.ts";

declare module "../types.ts" {
  interface ActionInputs {
    interact: { targetId: string; action: string; params?: Record<string, unknown> };
  }
  interface ActionValues {
    interact: { outcome: { type: InteractOutcomeType; message?: string } };
  }
}

/** What an interaction came to (named in the documents: InteractOutcomeType, InteractOutcome). */
export const InteractOutcomeTypeField = z.enum(["ok", "no_effect", "invalid_action", "too_far"]);
export const InteractOutcomeField = z.strictObject({
  type: InteractOutcomeTypeField,
  message: z.string().max(2000).optional(),
});

function interactAnswer(outcome: InteractOutcome): Outcome {
  return { ok: true, value: { kind: "interact", outcome: outcomeOf(outcome) } };
}

export const interactWire = {
  fields: {
    targetId: EntityIdField,
    action: actionName(),
    params: z.record(z.string(), z.unknown()).optional(),
  },
  answer: { outcome: InteractOutcomeField },
  applied: (value) => value.outcome.type === "ok" || value.outcome.type === "no_effect",
} as const satisfies ActionWire<"interact">;

export const interact = defineAction({
  kind: "interact",
  rateClass: "action",
  freeText: true,
  wire: interactWire,
  check(i) {
    if (typeof i.targetId !== "string" || i.targetId.length === 0) return bad("targetId must be a string");
    if (typeof i.action !== "string" || i.action.length === 0 || i.action.length > 64) {
      return bad("action must be a 1..64 char string");
    }
    return i.params === undefined || isPlainObject(i.params) ? undefined : bad("params must be an object");
  },
  apply(w, { entityId, targetId, action, params }) {
    const actor = w.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    const obj = w.objects.get(targetId);
    if (!obj || obj.def.roomId !== actor.roomId) {
      if (w.actors.get(targetId)?.roomId === actor.roomId) {
        return interactAnswer({
          type: "invalid_action",
          message: `${targetId} offers no "${action}" action`,
        });
      }
      return fail("not_found", `no object "${targetId}" in room "${actor.roomId}"`);
    }
    if (!obj.handler.actions.includes(action)) {
      return interactAnswer({
        type: "invalid_action",
        message: `a ${obj.def.objectType} supports: ${obj.handler.actions.join(", ")}`,
      });
    }
    const used = (outcome: InteractOutcome) => {
      const said = outcome.message === undefined ? "" : ` — ${outcome.message}`;
      w.remember(actor.id, "used", `${action} ${obj.def.name}: ${outcome.type}${said}`);
      return interactAnswer(outcome);
    };
    const room = w.rooms.get(actor.roomId)!;
    const ts = room.tileSize;
    const distance = Math.hypot(
      (obj.def.tile.tx + 0.5) * ts - actor.x,
      (obj.def.tile.ty + 0.5) * ts - actor.y,
    );
    const range = w.definition.interactRangeTiles;
    if (distance > range * ts) {
      return used({
        type: "too_far",
        message: `${targetId} is ${(distance / ts).toFixed(1)} tiles away; come within ${range}`,
      });
    }
    // Counted where the actor stood when it acted (a portal moves it during the interaction).
    const mask = actor.regionMask;
    const outcome = obj.handler.interact(interactContext(w, actor, obj), action, params ?? {});
    if (outcome.type === "ok") room.signals.count(w.signalBucket(), mask, "interact");
    return used(outcome);
  },
});
