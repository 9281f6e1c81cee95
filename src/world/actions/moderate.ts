// The operator's action on an object (a note taken down): no actor, no range, no signal; no room,
// guards or idempotency key (the admin route is the only caller).
import { fail } from "../core.ts";
import { OPERATOR_ENTITY_ID } from "../ids.ts";
import { outcomeOf } from "../object-use.ts";
import { operatorContext } from "../placement.ts";
import type { InteractOutcomeType } from "../types.ts";
import { bad, defineAction, isPlainObject } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** The operator acts on an object (moderation: a note taken down); `entityId` is OPERATOR_ENTITY_ID. */
    moderate: { targetId: string; action: string; params?: Record<string, unknown> };
  }
  interface ActionValues {
    moderate: { outcome: { type: InteractOutcomeType; message?: string } };
  }
}

export const moderate = defineAction({
  kind: "moderate",
  host: true,
  freeText: true,
  check(i) {
    if (i.entityId !== OPERATOR_ENTITY_ID) return bad(`only the operator (${OPERATOR_ENTITY_ID}) moderates`);
    if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
      return bad("a moderation names no room, tx or guards");
    if (typeof i.targetId !== "string" || i.targetId.length === 0) return bad("targetId must be a string");
    if (typeof i.action !== "string" || i.action.length === 0 || i.action.length > 64)
      return bad("action must be a 1..64 char string");
    return i.params === undefined || isPlainObject(i.params) ? undefined : bad("params must be an object");
  },
  apply(w, { targetId, action, params }) {
    const obj = w.objects.get(targetId);
    if (!obj) return fail("not_found", `no object "${targetId}"`);
    if (!obj.handler.moderate || !obj.handler.operatorActions?.includes(action)) {
      const offered = obj.handler.operatorActions?.join(", ") || "nothing";
      const message = `the operator may do to a ${obj.def.objectType}: ${offered}`;
      return { ok: true, value: { kind: "moderate", outcome: { type: "invalid_action", message } } };
    }
    const outcome = obj.handler.moderate(operatorContext(w, obj, undefined), action, params ?? {});
    return { ok: true, value: { kind: "moderate", outcome: outcomeOf(outcome) } };
  },
});
