// A resident's agent turn started or ended: the actor's "thinking" mark browsers show.
import { fail } from "../core.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** A resident's agent turn started or ended: shown to browsers as a "thinking" mark. */
    thinking: { thinking: boolean };
  }
  interface ActionValues {
    thinking: { thinking: boolean };
  }
}

export const thinking = defineAction({
  kind: "thinking",
  rateClass: "presence",
  check: (i) => (typeof i.thinking === "boolean" ? undefined : bad("thinking must be a boolean")),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    actor.thinking = input.thinking;
    return { ok: true, value: { kind: "thinking", thinking: input.thinking } };
  },
});
