// A resident whose turns fail cannot answer now: the actor's "unwell" mark browsers show (a tag and a
// tooltip), so a person sees it before speaking to it, not only silence after.
import { fail } from "../core.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** A resident's turns started failing or it answered again: shown to browsers as a mark. */
    unwell: { unwell: boolean };
  }
  interface ActionValues {
    unwell: { unwell: boolean };
  }
}

export const unwell = defineAction({
  kind: "unwell",
  rateClass: "presence",
  check: (i) => (typeof i.unwell === "boolean" ? undefined : bad("unwell must be a boolean")),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    actor.unwell = input.unwell;
    return { ok: true, value: { kind: "unwell", unwell: input.unwell } };
  },
});
