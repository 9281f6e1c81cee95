// An actor leaves the world (its page closed, it was kicked, its room closed).
import { fail } from "../core.ts";
import { removeActor } from "../placement.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    leave: { reason: "disconnect" | "kicked" | "room_closed" };
  }
  interface ActionValues {
    leave: { entityId: string };
  }
}

export const leave = defineAction({
  kind: "leave",
  rateClass: "session",
  check: (i) =>
    i.reason === "disconnect" || i.reason === "kicked" || i.reason === "room_closed"
      ? undefined
      : bad('reason must be "disconnect", "kicked" or "room_closed"'),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    removeActor(w, actor, input.reason);
    return { ok: true, value: { kind: "leave", entityId: input.entityId } };
  },
});
