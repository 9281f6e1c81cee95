// Shape checks for inputs arriving from outside (the AIC layer validates too, but the world never
// trusts its callers: bad input becomes a bad_request result, never an exception).
import {
  ACTOR_ID_PATTERN,
  AGENT_ENTITY_PREFIX,
  HUMAN_ENTITY_PREFIX,
  nameProblem,
  OPERATOR_ENTITY_ID,
  ROOM_ID_PATTERN,
} from "./ids.ts";
import { MEMORY_LIMITS, TOPIC_PATTERN } from "./memory.ts";
import type { Guard, Input, WorldError } from "./types.ts";

function bad(message: string, details?: Record<string, unknown>): WorldError {
  return details ? { code: "bad_request", message, details } : { code: "bad_request", message };
}

function isInt(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

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

/** A reflection's shape and bounds (memory.ts); whether its sources exist is the world's to check. */
function checkReflect(i: Record<string, unknown>): WorldError | undefined {
  if (typeof i.entityId !== "string" || !i.entityId.startsWith(AGENT_ENTITY_PREFIX))
    return bad(`only agents (${AGENT_ENTITY_PREFIX}...) have a memory to reflect into`);
  if (typeof i.content !== "string" || i.content.trim().length === 0)
    return bad("content must be a non-blank string");
  if (i.content.length > MEMORY_LIMITS.contentChars)
    return bad(`content is longer than ${MEMORY_LIMITS.contentChars} characters`, {
      length: i.content.length,
      max: MEMORY_LIMITS.contentChars,
    });
  if (!Array.isArray(i.topics) || i.topics.length > MEMORY_LIMITS.topics)
    return bad(`topics must be an array of at most ${MEMORY_LIMITS.topics} topics`);
  for (const topic of i.topics) {
    if (typeof topic !== "string" || !TOPIC_PATTERN.test(topic))
      return bad(`topic ${JSON.stringify(topic)} must match ${TOPIC_PATTERN.source}`);
  }
  if (new Set(i.topics).size !== i.topics.length) return bad("topics must be unique");
  if (!Array.isArray(i.sources) || i.sources.length > MEMORY_LIMITS.sources)
    return bad(`sources must be an array of at most ${MEMORY_LIMITS.sources} sources`);
  for (const source of i.sources) {
    if (!isPlainObject(source) || typeof source.roomId !== "string" || !isInt(source.seq) || source.seq < 1)
      return bad("a source is {roomId, seq} with seq >= 1");
  }
  const importance = i.importance;
  if (typeof importance !== "number" || !(importance >= 0 && importance <= 1))
    return bad("importance must be a number from 0 to 1");
  return undefined;
}

/** The operator's action on an object: no room, no guards, no idempotency key (the admin route
 * is the only caller). */
function checkModerate(i: Record<string, unknown>): WorldError | undefined {
  if (i.entityId !== OPERATOR_ENTITY_ID) return bad(`only the operator (${OPERATOR_ENTITY_ID}) moderates`);
  if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
    return bad("a moderation names no room, tx or guards");
  if (typeof i.targetId !== "string" || i.targetId.length === 0) return bad("targetId must be a string");
  if (typeof i.action !== "string" || i.action.length === 0 || i.action.length > 64)
    return bad("action must be a 1..64 char string");
  return i.params === undefined || isPlainObject(i.params) ? undefined : bad("params must be an object");
}

/** The host's mark that it delivered outgoing transfers (transfers.ts): names only their ids. */
function checkTransfersSent(i: Record<string, unknown>): WorldError | undefined {
  if (i.entityId !== OPERATOR_ENTITY_ID)
    return bad(`only the host (${OPERATOR_ENTITY_ID}) marks transfers sent`);
  if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
    return bad("a transfers mark names no room, tx or guards");
  if (!Array.isArray(i.ids) || i.ids.length === 0 || i.ids.length > 1024)
    return bad("ids must be an array of 1..1024 transfer ids");
  return i.ids.every((id) => typeof id === "string" && id.length > 0 && id.length <= 256)
    ? undefined
    : bad("a transfer id is a 1..256 char string");
}

/** A traveller from another world: the record its world made (transfers.ts), for its own entity. */
function checkArrive(i: Record<string, unknown>): WorldError | undefined {
  const t = i.transfer as Record<string, unknown>;
  if (!isPlainObject(t)) return bad("transfer must be an object");
  if (t.entityId !== i.entityId) return bad("transfer.entityId must be the input's entityId");
  if (typeof t.id !== "string" || t.id.length === 0 || t.id.length > 256)
    return bad("transfer.id must be a 1..256 char string");
  for (const field of ["fromWorld", "toWorld", "roomId"] as const) {
    const v = t[field];
    if (typeof v !== "string" || !ROOM_ID_PATTERN.test(v))
      return bad(`transfer.${field} must match ${ROOM_ID_PATTERN.source}`);
  }
  const tile = t.tile as Record<string, unknown>;
  if (!isPlainObject(tile) || !isInt(tile.tx) || !isInt(tile.ty) || tile.tx < 0 || tile.ty < 0)
    return bad("transfer.tile must be {tx, ty} non-negative integers");
  if (!isInt(t.tick) || t.tick < 0) return bad("transfer.tick must be a non-negative integer");
  const prefix = t.actorKind === "human" ? HUMAN_ENTITY_PREFIX : AGENT_ENTITY_PREFIX;
  if ((t.actorKind !== "human" && t.actorKind !== "agent") || !String(i.entityId).startsWith(prefix))
    return bad('transfer.actorKind must be "human" or "agent", matching the entityId');
  if (typeof t.name !== "string" || t.name.length < 1 || t.name.length > 64)
    return bad("transfer.name must be 1..64 chars");
  return undefined;
}

/** Returns the problem with an input's shape, or undefined when it is well formed. */
export function checkInput(input: unknown): WorldError | undefined {
  if (!isPlainObject(input)) return bad("input must be an object");
  const i = input as Record<string, unknown>;
  if (i.kind === "moderate") return checkModerate(i);
  if (i.kind === "transfersSent") return checkTransfersSent(i);
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
  switch (i.kind) {
    case "join": {
      if (i.actorKind !== "human" && i.actorKind !== "agent")
        return bad('actorKind must be "human" or "agent"');
      const prefix = i.actorKind === "human" ? HUMAN_ENTITY_PREFIX : AGENT_ENTITY_PREFIX;
      if (!i.entityId.startsWith(prefix)) return bad(`a ${i.actorKind} entityId starts with ${prefix}`);
      if (typeof i.name !== "string" || i.name.length < 1 || i.name.length > 64)
        return bad("name must be 1..64 chars");
      const refused = nameProblem(i.name, i.actorKind);
      if (refused) return bad(refused);
      if (
        i.joinRoomId !== undefined &&
        (typeof i.joinRoomId !== "string" || !ROOM_ID_PATTERN.test(i.joinRoomId))
      ) {
        return bad(`joinRoomId must match ${ROOM_ID_PATTERN.source}`);
      }
      if (i.at !== undefined) {
        const at = i.at as Record<string, unknown>;
        if (!isPlainObject(at) || !isInt(at.tx) || !isInt(at.ty)) return bad("at must be {tx, ty} integers");
      }
      return undefined;
    }
    case "thinking":
      return typeof i.thinking === "boolean" ? undefined : bad("thinking must be a boolean");
    case "leave":
      return i.reason === "disconnect" || i.reason === "kicked" || i.reason === "room_closed"
        ? undefined
        : bad('reason must be "disconnect", "kicked" or "room_closed"');
    case "moveTo": {
      const dest = i.dest as Record<string, unknown>;
      return isPlainObject(dest) && isInt(dest.tx) && isInt(dest.ty)
        ? undefined
        : bad("dest must be {tx, ty} integers");
    }
    case "approach":
      return typeof i.targetId === "string" && i.targetId.length > 0
        ? undefined
        : bad("targetId must be a string");
    case "moveDir":
      return isInt(i.dx) && isInt(i.dy) && Math.abs(i.dx) <= 1 && Math.abs(i.dy) <= 1
        ? undefined
        : bad("dx and dy must be integers in -1..1");
    case "interact":
      if (typeof i.targetId !== "string" || i.targetId.length === 0) return bad("targetId must be a string");
      if (typeof i.action !== "string" || i.action.length === 0 || i.action.length > 64) {
        return bad("action must be a 1..64 char string");
      }
      return i.params === undefined || isPlainObject(i.params) ? undefined : bad("params must be an object");
    case "chat":
      if (i.channel !== "proximity" && i.channel !== "global")
        return bad('channel must be "proximity" or "global"');
      return typeof i.message === "string" ? undefined : bad("message must be a string");
    case "reflect":
      return checkReflect(i);
    case "arrive":
      return i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined
        ? bad("an arrival names no room, tx or guards")
        : checkArrive(i);
    default:
      return bad(`unknown input kind ${JSON.stringify(i.kind)}`);
  }
}

export type { Guard, Input };
