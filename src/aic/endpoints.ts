// The AIC endpoints as a table: each row is the request and response schemas, what the documents
// say, and either how the request is answered (a read, with its rate class) or which action it
// becomes (an action: its rate class is the action kind's, the same at every door). AicService.call
// serves every row by one path; the router, the OpenAPI document, the remote client and the
// conformance suite ask `endpointPath` / `endpointAt`. Adding an action endpoint is a row here plus
// its rule in the world.
import * as z from "zod";
import { type DoorKind, toolNameOf } from "../world/actions/action.ts";
import { ACTIONS, DOOR_ACTIONS, wireOf } from "../world/actions/registry.ts";
import type { WorldApi } from "../world/types.ts";
import type { ActActionT, Actor } from "./actions.ts";
import { decodeEventCursor } from "./cursor.ts";
import { type AicResult, aicError } from "./errors.ts";
import type { EventFeed } from "./event-feed.ts";
import { type HeartbeatDeps, heartbeatAnswer } from "./heartbeat.ts";
import { chatObserveAnswer, observeAnswer } from "./observe.ts";
import {
  ApproachRequest,
  ApproachResponseData,
  ChatObserveRequest,
  ChatObserveResponseData,
  ChatSendRequest,
  ChatSendResponseData,
  DOOR_SCHEMAS,
  HeartbeatRequest,
  HeartbeatResponseData,
  InteractRequest,
  InteractResponseData,
  JoinRequest,
  JoinResponseData,
  LeaveRequest,
  LeaveResponseData,
  MoveToRequest,
  MoveToResponseData,
  ObserveRequest,
  ObserveResponseData,
  PollEventsRequest,
  PollEventsResponseData,
  ReflectRequest,
  ReflectResponseData,
} from "./schemas.ts";

/** What a read's answer may use besides its admitted request and actor. */
export interface ReadContext extends HeartbeatDeps {
  feed: EventFeed;
}

type RequestSchema = z.ZodType<{ agentId: string; roomId: string }>;

interface RowText<R extends z.ZodType> {
  response: R;
  summary: string;
  /** The OpenAPI operation's description: what it does and which domain errors it answers. */
  description: string;
  /** Where it is served under /aic/v0.1 when not at its name. */
  path?: string;
}

export interface ReadRow<S extends RequestSchema = RequestSchema, R extends z.ZodType = z.ZodType>
  extends RowText<R> {
  kind: "read";
  request: S;
  rateClass: string;
  /** The same caller sending the same bytes within one tick gets the answer already built. */
  sameAnswerWithinTick?: boolean;
  /** Also served by GET, its request read from these query parameters (integers parsed): a read
   * that cannot change the world (seed 003's backwards-compatible heartbeat). */
  query?: Readonly<Record<string, "string" | "integer">>;
  answer(
    ctx: ReadContext,
    world: WorldApi,
    request: z.output<S>,
    actor: Actor,
    signal: AbortSignal | undefined,
  ): AicResult<z.output<R>> | Promise<AicResult<z.output<R>>>;
}

export interface ActionRow<
  S extends RequestSchema = RequestSchema,
  R extends z.ZodType = z.ZodType,
  K extends ActActionT["kind"] = ActActionT["kind"],
> extends RowText<R> {
  kind: "action";
  request: S;
  actionKind: K;
  /** The fields of the action (of kind `actionKind`) an admitted request asks for, or the
   * bad_request its schema could not express. */
  toAction(request: z.output<S>): Omit<Extract<ActActionT, { kind: K }>, "kind"> | AicResult<never>;
}

export type EndpointRow = ReadRow | ActionRow;

const read = <S extends RequestSchema, R extends z.ZodType>(
  row: Omit<ReadRow<S, R>, "kind">,
): ReadRow<S, R> => ({
  kind: "read",
  ...row,
});
/** An action row; without `toAction`, the action's fields are the request's fields of the same
 * names (the kind's own, src/world/actions/<kind>.ts). */
const action = <S extends RequestSchema, R extends z.ZodType, K extends ActActionT["kind"]>(
  row: Omit<ActionRow<S, R, K>, "kind" | "toAction"> & Partial<Pick<ActionRow<S, R, K>, "toAction">>,
): ActionRow<S, R, K> => ({ kind: "action", toAction: ownFields(row.actionKind), ...row });

function ownFields<K extends ActActionT["kind"]>(kind: K) {
  const names = Object.keys(wireOf(kind)?.fields ?? {});
  return (request: object) => {
    const fields = request as Record<string, unknown>;
    const own = Object.fromEntries(names.flatMap((f) => (f in fields ? [[f, fields[f]]] : [])));
    return own as Omit<Extract<ActActionT, { kind: K }>, "kind">;
  };
}

const FIXED_ENDPOINTS = {
  observe: read({
    request: ObserveRequest,
    response: ObserveResponseData,
    summary: "Get a world observation",
    description:
      "Self, nearby entities within `radius` world units (nearest first) and room info. Domain errors: agent_not_in_room, not_found.",
    rateClass: "observe",
    sameAnswerWithinTick: true,
    answer: (_ctx, world, request, actor) => observeAnswer(world, request, actor),
  }),
  moveTo: action({
    request: MoveToRequest,
    response: MoveToResponseData,
    summary: "Walk to a destination tile",
    description:
      "Idempotent by txId. Answered after the tick that applied it. Domain errors: invalid_destination, collision_blocked, agent_not_in_room, conflict (txId reuse with another payload, or a failed `expect` guard).",
    actionKind: "moveTo",
  }),
  approach: action({
    request: ApproachRequest,
    response: ApproachResponseData,
    summary: "Walk into reach of an object",
    description:
      "Extension: walk to the reachable tile nearest by walking from which `targetId` can be used, then interact with it. Idempotent by txId; answered after the tick that applied it, with `dest`. Domain errors: not_found (no such object in the room), collision_blocked (it cannot be reached), agent_not_in_room, conflict.",
    actionKind: "approach",
  }),
  interact: action({
    request: InteractRequest,
    response: InteractResponseData,
    summary: "Interact with an object",
    description:
      "Idempotent by txId. Outcome ok | no_effect | invalid_action | too_far. Domain errors: not_found, agent_not_in_room, conflict.",
    actionKind: "interact",
  }),
  chatSend: action({
    request: ChatSendRequest,
    response: ChatSendResponseData,
    summary: "Send a chat message",
    description:
      "Idempotent by txId (a retry never posts twice). Domain errors: agent_not_in_room, conflict.",
    actionKind: "chat",
  }),
  chatObserve: read({
    request: ChatObserveRequest,
    response: ChatObserveResponseData,
    summary: "Get recent chat messages",
    description: "Messages the agent could perceive within the last windowSec seconds of simulation time.",
    rateClass: "chatObserve",
    answer: (_ctx, world, request, actor) => chatObserveAnswer(world, request, actor),
  }),
  pollEvents: read({
    request: PollEventsRequest,
    response: PollEventsResponseData,
    summary: "Poll (or long-poll) for events",
    description:
      'Events after sinceCursor ("c_0" or "0" = from the oldest event still kept for you; a start cursor never expires). waitMs > 0 parks the request until a visible event or the wait ends; a long-poll answers one agent at most every 250 ms (one sooner waits out the rest and gets those ticks in one page). An expired cursor answers conflict with details {reason: "cursor_expired", nextCursor, droppedCount}.',
    rateClass: "pollEvents",
    answer: (ctx, _world, request, actor, signal) => ctx.feed.poll(request, actor, signal),
  }),
  join: action({
    request: JoinRequest,
    response: JoinResponseData,
    summary: "Enter a room as the calling agent",
    description:
      "Extension: enter a room as agt_<agentId>. Other endpoints answer agent_not_in_room until then.",
    actionKind: "join",
    toAction: (request) => ({ roomId: request.roomId }),
  }),
  leave: action({
    request: LeaveRequest,
    response: LeaveResponseData,
    summary: "Leave the room",
    description: "Extension: leave the room (presence.leave reason disconnect).",
    actionKind: "leave",
  }),
  heartbeat: read({
    request: HeartbeatRequest,
    response: HeartbeatResponseData,
    summary: "What changed since the last heartbeat, suggestions, and optionally one embedded action",
    description:
      "Extension: one call per wake-up. Answers what changed since `contextToken` (never the agent's own actions), up to 3 suggested actions and a new token (expiry in simulation time). An embedded `action` runs on a first heartbeat (no token: the answer mints one) and otherwise needs the token valid (conflict with details.reason context_expired | context_invalid, nothing applied) and is answered in `action` exactly as its endpoint would answer (same rate class, same txId idempotency). Without an action nothing in the world changes. `memory: N` adds the working memory (at most N entries).",
    rateClass: "heartbeat",
    // GET is the heartbeat without an action (seed 003, heartbeat_get_still_works): same answer.
    query: { agentId: "string", roomId: "string", contextToken: "string", memory: "integer" },
    answer: (ctx, _world, request, actor, signal) => heartbeatAnswer(ctx, request, actor, signal),
  }),
  reflect: action({
    request: ReflectRequest,
    response: ReflectResponseData,
    summary: "Store a reflection in the calling agent's own memory",
    description:
      "Extension: store a reflection (content, topics, source event cursors, importance 0..1) in the calling agent's own memory; an agentId other than the credential's is forbidden. Idempotent by txId like the other actions; applied by the next tick, so it is durable and in snapshots. At most 64 reflections per agent: the answer's `evicted` names the one dropped (lowest importance × recency). Read it back with `memory: N` on heartbeat or observe.",
    path: "memory/reflect",
    actionKind: "reflect",
    toAction: (request) => {
      const sources = [];
      for (const [index, cursor] of request.sources.entries()) {
        const decoded = decodeEventCursor(cursor);
        if (!decoded.ok || decoded.position.afterSeq < 1) {
          const reason = decoded.ok ? "it names no event" : decoded.reason;
          return aicError("bad_request", `invalid sources.${index}: ${reason}`, {
            field: `sources.${index}`,
          });
        }
        sources.push({ roomId: decoded.position.roomId, seq: decoded.position.afterSeq });
      }
      const { content, topics, importance } = request;
      return { content, topics, sources, importance };
    },
  }),
} as const;

/** A row for each action kind with doors (src/world/actions: ActionDoors), at the kind's name. */
function doorRows(): Record<DoorKind, ActionRow> {
  const rows: Record<string, ActionRow> = {};
  for (const { kind, doors } of DOOR_ACTIONS) {
    const schemas = DOOR_SCHEMAS.get(kind)!;
    rows[kind] = action({
      request: schemas.request as RequestSchema,
      response: schemas.response,
      summary: doors.summary,
      description: doors.description,
      actionKind: kind as ActActionT["kind"],
    });
  }
  return rows as Record<DoorKind, ActionRow>;
}

export const ENDPOINTS: typeof FIXED_ENDPOINTS & Record<DoorKind, ActionRow> = {
  ...FIXED_ENDPOINTS,
  ...doorRows(),
};

export type EndpointName = keyof typeof ENDPOINTS;
export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** What an endpoint answers with `status: ok`. */
export type EndpointData<N extends EndpointName> = z.output<(typeof ENDPOINTS)[N]["response"]>;

/** Where an endpoint is served under /aic/v0.1: its name, unless it names its own path. */
export function endpointPath(name: EndpointName): string {
  const row: EndpointRow = ENDPOINTS[name];
  return row.path ?? name;
}

/** Whether an endpoint is also served by GET (a read with query parameters). */
export function servedByGet(name: EndpointName): boolean {
  const row: EndpointRow = ENDPOINTS[name];
  return row.kind === "read" && row.query !== undefined;
}

/** The request a GET of a read stands for, from its query string: the caller's own agentId unless
 * one is given; a parameter the row does not take (an embedded `action`, say) is a bad_request. */
export function requestFromQuery(
  name: EndpointName,
  caller: string,
  query: Record<string, string | string[] | undefined>,
): { ok: true; body: Record<string, unknown> } | { ok: false; error: AicResult<never> } | undefined {
  const row: EndpointRow = ENDPOINTS[name];
  const fields = row.kind === "read" ? row.query : undefined;
  if (!fields) return undefined;
  const body: Record<string, unknown> = { agentId: caller };
  for (const [key, value] of Object.entries(query)) {
    const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!type || typeof value !== "string") {
      const why = type
        ? "is given more than once"
        : `is not a parameter of GET (it takes ${Object.keys(fields).join(", ")}; anything else needs POST)`;
      return { ok: false, error: aicError("bad_request", `query parameter "${key}" ${why}`, { field: key }) };
    }
    body[key] = type === "integer" && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return { ok: true, body };
}

const ENDPOINT_BY_PATH = new Map(ENDPOINT_NAMES.map((name) => [endpointPath(name), name]));

/** The endpoint served at `path` (relative to /aic/v0.1, no leading slash), if any. */
export function endpointAt(path: string): EndpointName | undefined {
  return ENDPOINT_BY_PATH.get(path);
}

/** The tool of each action kind with doors (src/world/actions: ActionDoors): its name, its text and
 * its parameters, which are the action's own fields. */
export const DOOR_TOOLS = DOOR_ACTIONS.map(({ kind, doors }) => ({
  name: toolNameOf(kind),
  endpoint: kind as EndpointName,
  label: doors.tool.label,
  description: doors.tool.description,
  guards: doors.tool.guards === true,
  fields: doors.fields,
}));

/** What a person may send of the action kinds (`humans` in their wire or doors): `{kind, ...fields}`
 * each, the browser protocol's `act` message (src/http/humans/protocol.ts). */
export const HUMAN_ACTIONS = ACTIONS.flatMap(({ kind }) => {
  const wire = wireOf(kind);
  return wire?.humans ? [z.strictObject({ kind: z.literal(kind as string), ...wire.fields })] : [];
});
