// An agent that has not called the world for a while is away (src/plugin/quiet-agents.ts decides when):
// the actor's "away" mark, shown like a person whose connection dropped, so nobody talks to a figure
// that stopped listening. Its next call clears it. A world-level mark, not the page's alone, so the
// replay and the follow page show it where it happened.
import { fail } from "../core.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** An agent went quiet, or called again. */
    away: { away: boolean };
  }
  interface ActionValues {
    away: { away: boolean };
  }
}

export const away = defineAction({
  kind: "away",
  rateClass: "presence",
  check: (i) => (typeof i.away === "boolean" ? undefined : bad("away must be a boolean")),
  apply(w, input) {
    const actor = w.actors.get(input.entityId);
    if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    actor.away = input.away;
    return { ok: true, value: { kind: "away", away: input.away } };
  },
});
