// A resident that cannot take turns (no model configured) stands at home asleep: the actor's "asleep"
// mark browsers show (a tag and a dimmed figure), so a world run without a model shows its residents
// and that they sleep, not an empty town.
import { fail } from "../core.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** A resident fell asleep (it has no model) or woke: shown to browsers as an "asleep" mark. */
    asleep: { asleep: boolean };
  }
  interface ActionValues {
    asleep: { asleep: boolean };
  }
}

export const asleep = defineAction({
  kind: "asleep",
  rateClass: "presence",
  check: (i) => (typeof i.asleep === "boolean" ? undefined : bad("asleep must be a boolean")),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    actor.asleep = input.asleep;
    return { ok: true, value: { kind: "asleep", asleep: input.asleep } };
  },
});
