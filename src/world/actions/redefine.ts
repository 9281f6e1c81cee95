// The host gives the running world a new definition (a world directory edited and reloaded): the
// definition rides in the input, so the tick log and a replay hold both sides of the change.
// `entityId` is the host, not an actor. What is kept and who is moved: fit-definition.ts.
import { definitionFromWire, type WorldDefinitionWire } from "../definition-wire.ts";
import type { Relocation } from "../fit-definition.ts";
import { OPERATOR_ENTITY_ID } from "../ids.ts";
import { bad, defineAction, isPlainObject } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** The host replaces the world's definition; `entityId` is OPERATOR_ENTITY_ID. */
    redefine: { definition: WorldDefinitionWire };
  }
  interface ActionValues {
    redefine: { sceneHash: string; moved: Relocation[] };
  }
}

export const redefine = defineAction({
  kind: "redefine",
  host: true,
  check(i) {
    if (i.entityId !== OPERATOR_ENTITY_ID)
      return bad(`only the host (${OPERATOR_ENTITY_ID}) redefines the world`);
    if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
      return bad("a redefinition names no room, tx or guards");
    if (!isPlainObject(i.definition)) return bad("definition must be an object");
    return undefined;
  },
  apply(w, input) {
    const definition = definitionFromWire(input.definition);
    if (typeof definition === "string") return { ok: false, error: bad(definition) };
    const moved = w.redefine(definition);
    return { ok: true, value: { kind: "redefine", sceneHash: definition.sceneHash, moved } };
  },
});
