// Shape checks for inputs arriving from outside (the AIC layer validates too, but the world never
// trusts its callers: bad input becomes a bad_request result, never an exception).
// The common fields are checked here, each kind's own by its action (actions/<kind>.ts `check`).
import { bad, isInt, isPlainObject } from "./actions/action.ts";
import { actionOf } from "./actions/registry.ts";
import { ACTOR_ID_PATTERN, ROOM_ID_PATTERN } from "./ids.ts";
import type { Guard, Input, WorldError } from "./types.ts";

function checkGuard(g: unknown, i: number): WorldError | undefined {
  if (!isPlainObject(g)) return bad(`guards[${i}] must be an object`);
  switch (g.kind) {
    case "tick_is":
      return isInt(g.tick) ? undefined : bad(`guards[${i}].tick must be an integer`);
    case "snapshot_hash_is":
      return typeof g.hash === "string" ? undefined : bad(`guards[${i}].hash must be a string`);
    case "entity_near":
      return typeof g.entityId === "string" &&
        typeof g.withinTiles === "number" &&
        Number.isFinite(g.withinTiles)
        ? undefined
        : bad(`guards[${i}] needs entityId (string) and withinTiles (number)`);
    case "object_state_is": {
      const eq = g.equals;
      const okEq = eq === null || typeof eq === "string" || typeof eq === "number" || typeof eq === "boolean";
      return typeof g.objectId === "string" && typeof g.field === "string" && okEq
        ? undefined
        : bad(`guards[${i}] needs objectId, field and a scalar equals`);
    }
    case "view_is":
      return typeof g.view === "string" ? undefined : bad(`guards[${i}].view must be a string`);
    default:
      return bad(`guards[${i}].kind ${JSON.stringify(g.kind)} is unknown`);
  }
}

/** Returns the problem with an input's shape, or undefined when it is well formed. */
export function checkInput(input: unknown): WorldError | undefined {
  if (!isPlainObject(input)) return bad("input must be an object");
  const i = input as Record<string, unknown>;
  const hostInput = actionOf(i.kind);
  if (hostInput?.host) return hostInput.check(i as typeof i & { entityId: string });
  if (typeof i.entityId !== "string" || !ACTOR_ID_PATTERN.test(i.entityId)) {
    return bad(`entityId must match ${ACTOR_ID_PATTERN.source}`, { entityId: i.entityId });
  }
  if (i.roomId !== undefined && (typeof i.roomId !== "string" || !ROOM_ID_PATTERN.test(i.roomId))) {
    return bad(`roomId must match ${ROOM_ID_PATTERN.source}`);
  }
  if (i.tx !== undefined) {
    const tx = i.tx as Record<string, unknown>;
    if (!isPlainObject(tx) || typeof tx.key !== "string" || tx.key.length === 0 || tx.key.length > 512) {
      return bad("tx.key must be a non-empty string");
    }
    if (typeof tx.payloadHash !== "string") return bad("tx.payloadHash must be a string");
  }
  if (i.guards !== undefined) {
    if (!Array.isArray(i.guards) || i.guards.length > 16)
      return bad("guards must be an array of at most 16 guards");
    for (let k = 0; k < i.guards.length; k++) {
      const problem = checkGuard(i.guards[k], k);
      if (problem) return problem;
    }
  }
  const action = actionOf(i.kind);
  return action
    ? action.check(i as typeof i & { entityId: string })
    : bad(`unknown input kind ${JSON.stringify(i.kind)}`);
}

export type { Guard, Input };
