// What an action is at every door: the transport-neutral action (an admitted agent request or a
// WebSocket human's message), its rate class, the world input it becomes and the answer its world
// result maps to. The world decides everything else (rooms, reach, paths, txId replay).
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { DoorKind } from "../world/actions/action.ts";
import { ACTION_RATE_CLASSES, wireOf } from "../world/actions/registry.ts";
import { agentIdOfEntity } from "../world/ids.ts";
import type { ActionFields, ActionInputs, Guard, Input, InputResult } from "../world/types.ts";
import { encodeCursor } from "./cursor.ts";
import { type AicResult, aicError, ok } from "./errors.ts";
import { heartbeatSetup } from "./heartbeat-setup.ts";
import type {
  ApproachResponse,
  ChatSendResponse,
  ExpectT,
  InteractResponse,
  JoinResponse,
  LeaveResponse,
  MoveToResponse,
  ReflectResponse,
} from "./schemas.ts";

/** Who acts: built by the contract (an admitted agent) or by the WebSocket adapter (a human session). */
export interface Actor {
  entityId: string;
  kind: "human" | "agent";
  name: string;
  /** Rate-limit identity: `agent:<agentId>` for agents, a session id for humans. */
  rateKey: string;
}

/** An action kind with doors (src/world/actions/action.ts ActionDoors): its fields as its file says. */
type DoorActionT = { [K in DoorKind]: { kind: K } & ActionFields[K] }[DoorKind];

/** What a door fills in from who acts rather than from what is asked: a join's actor kind and
 * name, a leave's reason (at the doors always "disconnect"; kicked and room_closed are the host's). */
type FromActor = { join: "actorKind" | "name"; leave: "reason" };
/** The kinds only the host sends (no door takes them). */
type HostKind = "moderate" | "arrive" | "transfersSent";
type SentKind = Exclude<keyof ActionInputs, HostKind>;

/** Transport-neutral actions: what a WebSocket human asks for (already validated by the protocol
 * schema, built from the same field schemas as the AIC requests) and what each agent endpoint
 * becomes once its request is admitted (its ENDPOINTS row says how). Each is `{kind, ...fields}`
 * with the fields its world action declares (src/world/actions/<kind>.ts), less those the door
 * fills in from the actor. */
export type ActActionT = (
  | DoorActionT
  | {
      [K in SentKind]: { kind: K } & Omit<ActionInputs[K], K extends keyof FromActor ? FromActor[K] : never>;
    }[SentKind]
) & {
  /** The room it acts in when the action itself says (a join: the room it enters; a resident's
   * walk), else the request's. */
  roomId?: string;
};

export type ActData =
  | JoinResponse
  | LeaveResponse
  | Omit<MoveToResponse | ApproachResponse | InteractResponse | ChatSendResponse, "txId">
  | { applied: boolean; serverTsMs: number }
  | { applied: boolean; serverTsMs: number; thinking: boolean }
  | { applied: boolean; serverTsMs: number; asleep: boolean }
  | { applied: boolean; serverTsMs: number; unwell: boolean }
  | { applied: boolean; serverTsMs: number; away: boolean }
  | Omit<ReflectResponse, "txId">;

/** Rate class per action kind, the same at every door: each kind's `rateClass` in its world action
 * file (src/world/actions/). */
export const ACTION_RATE_CLASS = ACTION_RATE_CLASSES as Readonly<Record<ActActionT["kind"], string>>;

/** What comes with an action besides itself: the room it acts in (a join names its room in the
 * action instead), its idempotency key, its guards and the caller's abort signal. */
export interface ActionExtras {
  roomId?: string;
  tx?: { key: string; payloadHash: string };
  guards?: Guard[];
  signal?: AbortSignal;
  /** Told the tick that applied the action (the operator's record keeps that tick, not the one the
   * answer left on, which a durable commit can put a tick later). */
  onApplied?: (at: AppliedAt) => void;
}

/** The tick that applied an action, and its simulation time. */
export interface AppliedAt {
  tick: number;
  time: number;
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of the request without its txId. */
export function payloadHash(request: Record<string, unknown>): string {
  const { txId: _txId, ...rest } = request;
  return createHash("sha256")
    .update(canonicalize(rest) ?? "")
    .digest("hex");
}

export function txKey(agentId: string, roomId: string, txId: string): string {
  // ':' cannot occur in agentId, roomId or txId, so the key is unambiguous.
  return `aic:${agentId}:${roomId}:${txId}`;
}

/** A human's action's idempotency key: the person (a resumed session keeps its entity) and the
 * browser's txId. Not the room: a person's action names none (it acts where the person is). */
export function humanTxKey(entityId: string, txId: string): string {
  return `web:${entityId}:${txId}`;
}

/** The world guards for a request's `expect` (checked by the world when it applies the action). */
export function guardsFrom(expect: ExpectT): Guard[] {
  const guards: Guard[] = [];
  if (expect.tick !== undefined) guards.push({ kind: "tick_is", tick: expect.tick });
  if (expect.snapshotHash !== undefined) guards.push({ kind: "snapshot_hash_is", hash: expect.snapshotHash });
  if (expect.entityNear) {
    guards.push({
      kind: "entity_near",
      entityId: expect.entityNear.entityId,
      withinTiles: expect.entityNear.withinTiles,
    });
  }
  if (expect.objectState) {
    guards.push({
      kind: "object_state_is",
      objectId: expect.objectState.objectId,
      field: expect.objectState.field,
      equals: expect.objectState.equals,
    });
  }
  if (expect.view !== undefined) guards.push({ kind: "view_is", view: expect.view });
  return guards;
}

/** The world input an action becomes. */
export function buildInput(actor: Actor, action: ActActionT, extras: ActionExtras): Input {
  const base = {
    entityId: actor.entityId,
    ...(extras.roomId ? { roomId: extras.roomId } : {}),
    ...(extras.tx ? { tx: extras.tx } : {}),
    ...(extras.guards ? { guards: extras.guards } : {}),
  };
  // The action's own fields as they are, after what the actor fills in (key order as in the log).
  const { roomId, kind, ...fields } = action;
  const fromActor =
    kind === "join"
      ? { actorKind: actor.kind, name: actor.name, ...(roomId ? { joinRoomId: roomId } : {}) }
      : kind === "leave"
        ? { reason: "disconnect" as const }
        : {};
  return { ...base, kind, ...fromActor, ...fields } as Input;
}

/** What the answer needs that the world result does not carry: the rooms' event positions just
 * before a join (the joiner's cursor) and the room a leaver was in. Absent for a replayed txId. */
export interface ResultContext {
  seqBefore: Map<string, number> | undefined;
  roomBefore: string | undefined;
}

/** The AIC answer for a world result. A pure function of the stored result, so a replayed txId
 * produces byte-identical JSON (the `replayed` flag is deliberately not reflected). */
export function mapResult(
  action: ActActionT,
  result: InputResult,
  extras: ActionExtras,
  context: ResultContext | undefined,
): AicResult<ActData> {
  if (!result.ok) {
    const { code, message, details } = result.error;
    return aicError(code, message, details);
  }
  const value = result.value;
  const serverTsMs = result.serverTsMs;
  switch (value.kind) {
    case "join":
      return ok({
        entityId: value.entityId,
        roomId: value.roomId,
        tile: { tx: value.tile.tx, ty: value.tile.ty },
        cursor: encodeCursor(value.roomId, context?.seqBefore?.get(value.roomId) ?? 0),
        serverTsMs,
        heartbeatSetup: heartbeatSetup(agentIdOfEntity(value.entityId), value.roomId),
      });
    case "leave":
      return ok({ entityId: value.entityId, roomId: context?.roomBefore ?? extras.roomId ?? "", serverTsMs });
    case "reflect": {
      if (action.kind !== "reflect") break;
      // The answer is built from the request and the stored result only, so a retry is byte-identical.
      const reflection = {
        id: value.id,
        tsMs: serverTsMs,
        content: action.content,
        topics: [...action.topics],
        sources: action.sources.map((s) => encodeCursor(s.roomId, s.seq)),
        importance: action.importance,
      };
      return ok({ reflection, ...(value.evicted ? { evicted: value.evicted } : {}), serverTsMs });
    }
    default: {
      // Its answer as its file says (ActionWire / ActionDoors `answer`): each field from the rule's
      // value, else from the action (approach's targetId); a kind without one, the whole value.
      const wire = wireOf(value.kind);
      const { kind: _kind, ...whole } = value;
      const from: Record<string, unknown> = { ...action, ...whole };
      const answer = wire
        ? Object.fromEntries(Object.keys(wire.answer).flatMap((k) => (k in from ? [[k, from[k]]] : [])))
        : whole;
      const applied = wire?.applied ? wire.applied(value as never) : true;
      return ok({ applied, serverTsMs, ...answer } as ActData);
    }
  }
  return aicError("internal", `unexpected world result for ${action.kind}`);
}
