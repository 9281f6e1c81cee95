// One wake-up: the delta since the context token's position, suggestions, a fresh token,
// and optionally one embedded action. The action goes through the endpoint it stands for (moveTo /
// interact / chatSend) with the body that endpoint would get, so it shares that endpoint's
// validation, rate class and idempotency key; a heartbeat without an action submits nothing.
import { timeOfDay } from "../world/time.ts";
import type { WorldApi } from "../world/types.ts";
import type { Actor } from "./actions.ts";
import { notInRoom } from "./admission.ts";
import { CONTEXT_TOKEN_TTL_MS, type ContextClaims, type ContextTokens } from "./context-token.ts";
import { type AicResult, aicError, ok } from "./errors.ts";
import { workingMemory } from "./observe.ts";
import { closedPlacesOf, computeDelta, placeOf, regionActivity, suggestActions } from "./perception.ts";
import type { EmbeddedActionT, HeartbeatRequestT, HeartbeatResponse, MoveToResponse } from "./schemas.ts";

export interface HeartbeatDeps {
  world(): WorldApi;
  contextTokens: ContextTokens;
  /** The embedded action, as a request to the endpoint of the same name (its whole path). */
  embedded(
    caller: string,
    endpoint: EmbeddedActionT["kind"],
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<AicResult<unknown>>;
}

/** `POST /heartbeat`, admitted. */
export async function heartbeatAnswer(
  deps: HeartbeatDeps,
  request: HeartbeatRequestT,
  actor: Actor,
  signal: AbortSignal | undefined,
): Promise<AicResult<HeartbeatResponse>> {
  const world = deps.world();
  const self = world.getEntity(actor.entityId);
  if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
  let claims: ContextClaims | undefined;
  let reset: "expired" | "invalid" | undefined;
  if (request.contextToken !== undefined) {
    const check = deps.contextTokens.check(
      request.contextToken,
      request.agentId,
      request.roomId,
      world.serverTsMs,
    );
    if (check.ok && check.claims.afterSeq <= world.latestSeq(request.roomId)) claims = check.claims;
    else if (request.action) {
      const reason = check.ok ? "invalid" : check.reason;
      const message = check.ok
        ? "contextToken is from a later world state (the world was restored)"
        : check.message;
      return aicError("conflict", `${message}; the embedded action was not applied`, {
        reason: `context_${reason}`,
        field: "contextToken",
      });
    } else reset = check.ok ? "invalid" : check.reason;
  }
  // No token at all is a first wake-up: the action runs and the answer mints the token. A token is
  // a claim about what the agent last saw, so only a token that is stale refuses the action; an
  // agent without one has claimed nothing that could be stale.
  let moveDest = claims?.moveDest;
  let action: HeartbeatResponse["action"];
  if (request.action) {
    const answered = await deps.embedded(
      request.agentId,
      request.action.kind,
      embeddedBody(request, request.action),
      signal,
    );
    action = answered as HeartbeatResponse["action"];
    if (request.action.kind === "moveTo" && answered.status === "ok") {
      const moved = answered.data as MoveToResponse;
      moveDest = moved.result === "accepted" ? request.action.dest : undefined;
    }
  }
  // The action took a tick: perceive the world as it is now (a swap may have replaced it).
  const now = deps.world();
  const nowMs = now.serverTsMs;
  // An embedded interact may have carried the agent through a portal: perceive where it is now.
  const after = now.getEntity(actor.entityId);
  const roomId = after?.roomId ?? request.roomId;
  const sameRoom = roomId === request.roomId && claims !== undefined;
  const { delta, nextSeq } = sameRoom
    ? computeDelta(now, actor.entityId, roomId, claims!.afterSeq, moveDest)
    : computeDelta(now, actor.entityId, roomId, now.latestSeq(roomId), moveDest);
  const expiresAtMs = nowMs + CONTEXT_TOKEN_TTL_MS;
  const contextToken = deps.contextTokens.issue({
    agentId: request.agentId,
    roomId,
    afterSeq: nextSeq,
    issuedTsMs: nowMs,
    expiresAtMs,
    ...(moveDest && delta.move?.status !== "arrived" ? { moveDest } : {}),
  });
  const tile = after?.tile ?? self.tile;
  const { signals } = regionActivity(now, actor.entityId);
  const place = placeOf(now, after ?? self);
  const closed = closedPlacesOf(now, roomId);
  // Only what is not empty or default (an agent pays for every token): the region is its place's
  // id, standing still and the request's room are the defaults.
  const view = now.viewOf(actor.entityId);
  // The token's expiry is not repeated: it is always serverTsMs + CONTEXT_TOKEN_TTL_MS (10 min).
  const data: HeartbeatResponse = {
    self: {
      ...(roomId !== request.roomId ? { roomId } : {}),
      ...(place ? { place } : {}),
      tile: { tx: tile.tx, ty: tile.ty },
      ...(((after ?? self).speed ?? 0) > 0 ? { moving: true as const } : {}),
      ...(view ? { view } : {}),
    },
    delta,
    ...(signals ? { signals } : {}),
    suggestions: suggestActions(now, actor.entityId, delta),
    contextToken,
    timeOfDay: timeOfDay(nowMs),
    ...(closed ? { closedPlaces: closed } : {}),
    serverTsMs: nowMs,
  };
  if (reset) data.reset = reset;
  if (request.memory !== undefined) data.memory = workingMemory(now, actor.entityId, request.memory);
  if (action) data.action = action;
  return ok(data);
}

/** The embedded action as the request body of the endpoint it stands for. */
function embeddedBody(request: HeartbeatRequestT, action: EmbeddedActionT): Record<string, unknown> {
  const base = {
    agentId: request.agentId,
    roomId: request.roomId,
    txId: action.txId,
    ...(action.expect ? { expect: action.expect } : {}),
  };
  switch (action.kind) {
    case "moveTo":
      return { ...base, dest: action.dest };
    case "interact":
      return {
        ...base,
        targetId: action.targetId,
        action: action.action,
        ...(action.params ? { params: action.params } : {}),
      };
    case "chatSend":
      return { ...base, channel: action.channel, message: action.message };
  }
}
