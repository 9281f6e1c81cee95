// AIC v0.1 schemas (PRD 4, 6, 6.4), the single source for validation, TS types (z.infer) and the
// generated JSON Schema / OpenAPI documents. Bounds and patterns follow
// the PRD oracle (fixtures/prd-oracle/aic-schema.json) and events-schema.json exactly; every object is strict
// (an unknown key is a bad_request). Extensions (join/leave, `expect` guards) are in DECISIONS.md.
import * as z from "zod";
import { approachWire } from "../world/actions/approach.ts";
import { ChatChannelField, chatWire } from "../world/actions/chat.ts";
import {
  actionName,
  chatText,
  EntityIdField,
  MESSAGE_ID_PATTERN,
  MessageIdField,
  TileCoordField,
  tileCoordinate,
} from "../world/actions/field-shapes.ts";
import { InteractOutcomeField, InteractOutcomeTypeField, interactWire } from "../world/actions/interact.ts";
import { moveDirWire } from "../world/actions/move-dir.ts";
import { moveToWire } from "../world/actions/move-to.ts";
import { DOOR_ACTIONS } from "../world/actions/registry.ts";
import {
  AGENT_ID_PATTERN,
  ENTITY_ID_PATTERN,
  nameProblem,
  REGION_ID_PATTERN,
  REGION_NAME_MAX_CHARS,
  ROOM_ID_PATTERN,
} from "../world/ids.ts";
import { EPISODE_KINDS, MEMORY_ID_PATTERN, MEMORY_LIMITS, TOPIC_PATTERN } from "../world/memory.ts";
import { EVENT_TYPES, SIGNAL_KINDS } from "../world/types.ts";
import { VIEW_DIGEST_PATTERN, VIEW_RADIUS_TILES } from "../world/view.ts";
import { AIC_ERROR_CODES } from "./errors.ts";
import { refineText } from "./text.ts";

export {
  AGENT_ID_PATTERN,
  actionName,
  chatText,
  ENTITY_ID_PATTERN,
  MEMORY_LIMITS,
  ROOM_ID_PATTERN,
  tileCoordinate,
};

/** Every named schema, keyed by its `$defs` name in the generated documents. */
export const aicRegistry = z.registry<{ id: string; description?: string; maxProperties?: number }>();
/** Event payload schemas, generated into events-schema.json with the oracle's names. */
export const eventsRegistry = z.registry<{ id: string; description?: string }>();

function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  aicRegistry.add(schema, description ? { id, description } : { id });
  return schema;
}

/** Arrays whose items must differ (a refine zod cannot state in JSON Schema): the documents mark
 * them `uniqueItems` (documents.ts). */
export const uniqueItemArrays = new WeakSet<z.ZodType>();

function uniqueItems<T extends z.ZodArray<z.ZodType>>(schema: T, what: string): T {
  const refined = schema.refine((items) => new Set(items).size === items.length, `${what} must be unique`);
  uniqueItemArrays.add(refined);
  return refined;
}

/** A request body: strict (an unknown key is a bad_request) and under the one text rule (text.ts). */
function request<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape).superRefine(refineText);
}

// ---- identifiers, time (PRD 4) --------------------------------------------------------------
export const TX_ID_PATTERN = /^tx_[a-zA-Z0-9._-]{8,128}$/;
export const CURSOR_PATTERN = /^[A-Za-z0-9=_-]{1,256}$/;
export { MESSAGE_ID_PATTERN };

export const IdRoom = named("IdRoom", z.string().regex(ROOM_ID_PATTERN));
export const IdAgent = named("IdAgent", z.string().regex(AGENT_ID_PATTERN));
export const IdEntity = named("IdEntity", EntityIdField);
export const IdTx = named("IdTx", z.string().regex(TX_ID_PATTERN));
export const Cursor = named("Cursor", z.string().regex(CURSOR_PATTERN));
export const TsMs = named("TsMs", z.int().min(0));
export const IdMessage = MessageIdField;

/** The own fields of the kinds the browser's older messages carry (src/http/humans/protocol.ts),
 * as their files declare them (an adapter reaches the world's actions only through the contract). */
export const FIELDS_OF = {
  moveDir: moveDirWire.fields,
  chat: chatWire.fields,
  interact: interactWire.fields,
  approach: approachWire.fields,
} as const;

// ---- field rules shared with the human WebSocket protocol (fresh instances: inlined in documents) --
/** A person's display name as a join sends it: the world's name rule (`nameProblem`), checked at
 * the door so the refusal names the field. */
export const humanName = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(32)
    .superRefine((name, ctx) => {
      const problem = nameProblem(name, "human");
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });

/** List bounds of the answers (PRD oracle): the service truncates to them. */
export const MAX_NEARBY = 500;
export const MAX_AFFORDS = 50;
export const MAX_CHAT_MESSAGES = 500;

// ---- core types (PRD 6.2) -------------------------------------------------------------------
export const Vec2 = named("Vec2", z.strictObject({ x: z.number(), y: z.number() }));
export const TileCoord = named("TileCoord", TileCoordField);

export const ErrorCode = named("ErrorCode", z.enum(AIC_ERROR_CODES));
export const ErrorObject = named(
  "ErrorObject",
  z.strictObject({
    code: ErrorCode,
    message: z.string().min(1).max(2000),
    retryable: z.boolean(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
);
export const ResultOk = named("ResultOk", z.strictObject({ status: z.literal("ok"), data: z.unknown() }));
export const ResultError = named(
  "ResultError",
  z.strictObject({ status: z.literal("error"), error: ErrorObject }),
);
export const Result = named("Result", z.discriminatedUnion("status", [ResultOk, ResultError]));

export const Affordance = named(
  "Affordance",
  z.strictObject({
    action: z.string().min(1).max(64),
    label: z.string().min(1).max(128),
    paramsSchema: z.record(z.string(), z.unknown()).optional(),
  }),
);

export const EntityKind = named("EntityKind", z.enum(["human", "agent", "object"]));
export const Facing = named("Facing", z.enum(["up", "down", "left", "right"]));

export const EntityBase = named(
  "EntityBase",
  z.strictObject({
    id: IdEntity,
    kind: EntityKind,
    name: z.string().min(1).max(64),
    roomId: IdRoom,
    pos: Vec2,
    tile: TileCoord.optional(),
    facing: Facing.optional(),
    speed: z.number().min(0).max(1000).optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  }),
);

export const ObjectState = named(
  "ObjectState",
  z.strictObject({ objectType: z.string().min(1).max(64), state: z.record(z.string(), z.unknown()) }),
);

export const ObservedEntity = named(
  "ObservedEntity",
  z.strictObject({
    entity: EntityBase,
    distance: z.number().min(0).max(1000000),
    affords: z.array(Affordance).min(0).max(MAX_AFFORDS),
    object: ObjectState.optional(),
  }),
);

// ---- guards (extension, 002 preconditions) --------------------------------------------------
export const ViewDigest = named(
  "ViewDigest",
  z.string().regex(VIEW_DIGEST_PATTERN),
  `What you see, as a digest: you, and who and what is within ${VIEW_RADIUS_TILES} tiles of you (their tiles, objects' state). Unchanged means nothing near you changed; pass it as expect.view to act only if so.`,
);
export const Expect = named(
  "Expect",
  z.strictObject({
    tick: z.int().min(0).optional(),
    snapshotHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    entityNear: z.strictObject({ entityId: IdEntity, withinTiles: z.number().min(0).max(1000) }).optional(),
    objectState: z
      .strictObject({
        objectId: IdEntity,
        field: z.string().min(1).max(64),
        equals: z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]),
      })
      .optional(),
    view: ViewDigest.optional(),
  }),
  "Optional preconditions checked by the world before the action is applied; a stale one answers conflict. What each is for: objectState and entityNear, the fact a decision rests on; view, that nothing near you changed since the heartbeat or observe that showed it; tick and snapshotHash only for an agent that steps with the world (at 20 Hz they are stale before they arrive).",
);

// ---- memory (extension: reflection memory) ---------------------------------------
export const MemoryId = named("MemoryId", z.string().regex(MEMORY_ID_PATTERN));
export const Topic = named("Topic", z.string().regex(TOPIC_PATTERN), "A short tag, e.g. governance.");
const Importance = () => z.number().min(0).max(1);
const reflectionContent = () =>
  z
    .string()
    .min(1)
    .max(MEMORY_LIMITS.contentChars)
    .refine((text) => text.trim().length > 0, "content is blank");
/** `memory: N` on heartbeat and observe: include the working memory, at most N entries. */
const WorkingMemoryLimit = () =>
  z
    .int()
    .min(1)
    .max(MEMORY_LIMITS.workingMemory)
    .optional()
    .describe("Include your working memory: at most this many entries, highest score first kept.");
export const MemoryEntry = named(
  "MemoryEntry",
  z.discriminatedUnion("kind", [
    z.strictObject({
      kind: z.literal("reflection"),
      id: MemoryId,
      tsMs: TsMs,
      content: reflectionContent(),
      topics: z.array(Topic).max(MEMORY_LIMITS.topics),
      importance: Importance(),
    }),
    z.strictObject({
      kind: z.literal("episode"),
      id: MemoryId,
      tsMs: TsMs,
      what: z.enum(EPISODE_KINDS),
      text: z.string().min(1).max(MEMORY_LIMITS.episodeChars),
    }),
  ]),
  "One entry of an agent's working memory: a reflection it stored, or an episode the world recorded of what it did or perceived.",
);
export const WorkingMemory = named(
  "WorkingMemory",
  z.array(MemoryEntry).max(MEMORY_LIMITS.workingMemory),
  "The entries of highest score = importance × weight × recency (weight 2 for reflections, 1 for episodes; recency halves every 10 simulated minutes), listed oldest first.",
);

// ---- observe --------------------------------------------------------------------------------
export const ObserveDetail = named("ObserveDetail", z.enum(["lite", "full"]));
export const ObserveRequest = named(
  "ObserveRequest",
  request({
    agentId: IdAgent,
    roomId: IdRoom,
    radius: z.number().min(1).max(2000),
    detail: ObserveDetail,
    includeSelf: z.boolean().default(true),
    memory: WorkingMemoryLimit(),
  }),
);
export const RoomInfo = named(
  "RoomInfo",
  z.strictObject({ roomId: IdRoom, mapId: z.string().min(1).max(64), tickRate: z.int().min(1).max(60) }),
);
export const ObserveResponseData = named(
  "ObserveResponseData",
  z.strictObject({
    self: EntityBase,
    nearby: z.array(ObservedEntity).min(0).max(MAX_NEARBY),
    serverTsMs: TsMs,
    room: RoomInfo,
    memory: WorkingMemory.optional(),
  }),
  "`self.meta.place` (a Place) names where the caller stands when that is a named region of the map.",
);

// ---- the older action kinds: the envelope around each kind's own fields and answer -----------
/** An action's AIC request and answer, composed from its file's fields and answer (ActionWire). */
function actionSchemas<
  F extends z.ZodRawShape,
  A extends z.ZodRawShape,
  Q extends z.ZodRawShape = Record<never, never>,
>(
  title: string,
  wire: {
    fields: F;
    answer: A;
    requestOnly?: Q;
    describe?: { readonly request?: string; readonly answer?: string };
  },
) {
  const { fields, answer, describe } = wire;
  const envelope = { agentId: IdAgent, roomId: IdRoom, txId: IdTx };
  const requestOnly = (wire.requestOnly ?? {}) as Q;
  return {
    request: named(
      `${title}Request`,
      request({ ...envelope, ...fields, ...requestOnly, expect: Expect.optional() }),
      describe?.request,
    ),
    response: named(
      `${title}ResponseData`,
      z.strictObject({ txId: IdTx, applied: z.boolean(), serverTsMs: TsMs, ...answer }),
      describe?.answer,
    ),
  };
}

export const InteractOutcomeType = named("InteractOutcomeType", InteractOutcomeTypeField);
export const InteractOutcome = named("InteractOutcome", InteractOutcomeField);
export const ChatChannel = named("ChatChannel", ChatChannelField);
export const { request: MoveToRequest, response: MoveToResponseData } = actionSchemas("MoveTo", moveToWire);
export const { request: InteractRequest, response: InteractResponseData } = actionSchemas(
  "Interact",
  interactWire,
);
export const { request: ApproachRequest, response: ApproachResponseData } = actionSchemas(
  "Approach",
  approachWire,
);
export const { request: ChatSendRequest, response: ChatSendResponseData } = actionSchemas(
  "ChatSend",
  chatWire,
);

// ---- chat -----------------------------------------------------------------------------------
export const ChatMessage = named(
  "ChatMessage",
  z.strictObject({
    id: IdMessage,
    roomId: IdRoom,
    channel: ChatChannel,
    fromEntityId: IdEntity,
    fromName: z.string().min(1).max(64),
    message: chatText(),
    tsMs: TsMs,
  }),
);
export const ChatObserveRequest = named(
  "ChatObserveRequest",
  request({
    agentId: IdAgent,
    roomId: IdRoom,
    windowSec: z.int().min(1).max(300),
    channel: ChatChannel.optional(),
  }),
);
export const ChatObserveResponseData = named(
  "ChatObserveResponseData",
  z.strictObject({ messages: z.array(ChatMessage).min(0).max(MAX_CHAT_MESSAGES), serverTsMs: TsMs }),
);

// ---- events ---------------------------------------------------------------------------------
export const EventType = named("EventType", z.enum(EVENT_TYPES));
export const EventEnvelope = named(
  "EventEnvelope",
  z.strictObject({
    cursor: Cursor,
    type: EventType,
    roomId: IdRoom,
    tsMs: TsMs,
    payload: z.record(z.string(), z.unknown()),
  }),
);
export const PollEventsRequest = named(
  "PollEventsRequest",
  request({
    agentId: IdAgent,
    roomId: IdRoom,
    sinceCursor: Cursor,
    limit: z.int().min(1).max(200).default(50),
    waitMs: z.int().min(0).max(25000).default(0),
  }),
);
export const PollEventsResponseData = named(
  "PollEventsResponseData",
  z.strictObject({ events: z.array(EventEnvelope).min(0).max(200), nextCursor: Cursor, serverTsMs: TsMs }),
);

/** Query of `GET /events/stream` (PRD 9.3). Without a cursor the stream starts at "now". */
export const EventStreamQuery = named(
  "EventStreamQuery",
  request({ agentId: IdAgent, roomId: IdRoom, sinceCursor: Cursor.optional() }),
);

// ---- join / leave (extension) ---------------------------------------------------------------
export const JoinRequest = named("JoinRequest", request({ agentId: IdAgent, roomId: IdRoom }));
export const HeartbeatSetup = named(
  "HeartbeatSetup",
  z.strictObject({
    workspaceSnippet: z.string().min(1).max(4000),
    interval: z.string().min(1).max(200),
    instructions: z.string().min(1).max(1000),
  }),
  "How to stay present (seed 003's registration `heartbeat_setup`): a HEARTBEAT.md snippet for an OpenClaw workspace, the recommended interval and what to do with them.",
);
export type HeartbeatSetupT = z.infer<typeof HeartbeatSetup>;
export const JoinResponseData = named(
  "JoinResponseData",
  z.strictObject({
    entityId: IdEntity,
    roomId: IdRoom,
    tile: TileCoord,
    cursor: Cursor,
    serverTsMs: TsMs,
    heartbeatSetup: HeartbeatSetup,
  }),
  "`cursor` points just before the join: pollEvents from it sees the agent's own presence.join and everything after. `heartbeatSetup` says how to stay present with POST /heartbeat.",
);
export const LeaveRequest = named("LeaveRequest", request({ agentId: IdAgent, roomId: IdRoom }));
export const LeaveResponseData = named(
  "LeaveResponseData",
  z.strictObject({ entityId: IdEntity, roomId: IdRoom, serverTsMs: TsMs }),
);

// ---- heartbeat (extension: one cheap call per wake-up) ---------------------------
export const CONTEXT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{23,34}\.[A-Za-z0-9_-]{16}$/;
/** Delta list bounds: a heartbeat stays compact however busy the room was. */
export const MAX_DELTA_ITEMS = 10;
export const MAX_SUGGESTIONS = 3;
/** Regions a heartbeat reports activity for: the agent's own, then the busiest. */
export const MAX_HEARTBEAT_REGIONS = 3;
export const ContextToken = named(
  "ContextToken",
  z.string().regex(CONTEXT_TOKEN_PATTERN),
  "Opaque, signed by the server: the event position of the last heartbeat, its simulation time and expiry.",
);
export const EmbeddedAction = named(
  "EmbeddedAction",
  z.discriminatedUnion("kind", [
    z.strictObject({
      kind: z.literal("moveTo"),
      txId: IdTx,
      ...moveToWire.fields,
      expect: Expect.optional(),
    }),
    z.strictObject({
      kind: z.literal("interact"),
      txId: IdTx,
      ...interactWire.fields,
      expect: Expect.optional(),
    }),
    z.strictObject({
      kind: z.literal("chatSend"),
      txId: IdTx,
      ...chatWire.fields,
      // A heartbeat's chat is said nearby unless it says otherwise.
      channel: chatWire.fields.channel.default("proximity"),
      expect: Expect.optional(),
    }),
  ]),
  "One action carried by a heartbeat; it takes exactly the path (validation, rate class, idempotency key) of the endpoint of the same name.",
);
export const HeartbeatRequest = named(
  "HeartbeatRequest",
  z.strictObject({
    agentId: IdAgent,
    roomId: IdRoom,
    contextToken: ContextToken.optional(),
    action: EmbeddedAction.optional(),
    memory: WorkingMemoryLimit(),
  }),
  "Without contextToken the delta starts now (empty) and an action runs (a first wake-up). With one, an action needs it valid and unexpired for this agent and room (the action was decided on what that heartbeat showed).",
);
const NamedRef = z.strictObject({ id: IdEntity, name: z.string().min(1).max(64) });
export const HeartbeatDelta = named(
  "HeartbeatDelta",
  z.strictObject({
    arrived: z.array(NamedRef).max(MAX_DELTA_ITEMS).optional(),
    departed: z.array(NamedRef).max(MAX_DELTA_ITEMS).optional(),
    heard: z
      .array(
        z.strictObject({
          from: IdEntity,
          name: z.string().min(1).max(64),
          channel: ChatChannel,
          message: chatText(),
        }),
      )
      .max(MAX_DELTA_ITEMS)
      .optional(),
    objects: z
      .array(z.strictObject({ id: IdEntity, state: z.record(z.string(), z.unknown()) }))
      .max(MAX_DELTA_ITEMS)
      .optional(),
    move: z.strictObject({ dest: TileCoord, status: z.enum(["moving", "arrived", "stopped"]) }).optional(),
    truncated: z.boolean().optional(),
  }),
  "What changed since the token's position, never the agent's own actions: who came near or went away, chat it heard, object changes (its own left out), its pending move. Empty lists are left out.",
);

// ---- world signals (extension) ----------------------------------------------------
export const RegionId = named(
  "RegionId",
  z.string().regex(REGION_ID_PATTERN),
  "A named region of a room's map.",
);
export const SignalKind = named("SignalKind", z.enum(SIGNAL_KINDS));
const activityCount = () => z.int().min(1).max(1_000_000_000).optional();
export const RegionActivity = named(
  "RegionActivity",
  z.strictObject({
    move: activityCount(),
    chat: activityCount(),
    interact: activityCount(),
    arrive: activityCount(),
    depart: activityCount(),
  }),
  "Activity in one region over the last 60 s of simulation time, by everyone (the agent too): moves started, chat messages, successful interactions, arrivals and departures. Zero counts are left out.",
);
/** Keyed by region id (an object, not a list: every token counts in a heartbeat). */
export const HeartbeatSignals = z
  .record(RegionId, RegionActivity)
  .refine((regions) => Object.keys(regions).length <= MAX_HEARTBEAT_REGIONS, {
    message: `at most ${MAX_HEARTBEAT_REGIONS} regions`,
  });
aicRegistry.add(HeartbeatSignals, {
  id: "HeartbeatSignals",
  description:
    "Recent activity by region id: the agent's own region (self.place) when anything happened there, then the busiest other regions of its room.",
  maxProperties: MAX_HEARTBEAT_REGIONS,
});
const SignalCountsFull = z.strictObject({
  move: z.int().min(0),
  chat: z.int().min(0),
  interact: z.int().min(0),
  arrive: z.int().min(0),
  depart: z.int().min(0),
});
const Clock = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/);
const OpeningHours = z.strictObject({ opens: Clock, closes: Clock });
export const Place = named(
  "Place",
  z.strictObject({
    id: RegionId,
    name: z.string().min(1).max(REGION_NAME_MAX_CHARS),
    private: z.literal(true).optional(),
    hours: OpeningHours.optional(),
  }),
  "Where an actor stands: the most specific named region of its room's map. `private` when it stands in a private room right now: only those inside hear it, and it hears only them. `hours` when the place opens and closes (HH:MM, the world's clock).",
);
export const ClosedPlace = named(
  "ClosedPlace",
  z.strictObject({ id: RegionId, name: z.string().min(1).max(REGION_NAME_MAX_CHARS), opensAt: Clock }),
  "A place of the room closed now by its opening hours: nobody may walk in until `opensAt` (HH:MM, the world's clock).",
);
export const RoomSignals = named(
  "RoomSignals",
  z.strictObject({
    roomId: IdRoom,
    windowSec: z.int().min(1).max(3600),
    sinceTsMs: TsMs,
    room: SignalCountsFull,
    regions: z
      .array(
        z.strictObject({
          id: RegionId,
          name: z.string().min(1).max(REGION_NAME_MAX_CHARS),
          counts: SignalCountsFull,
        }),
      )
      .max(32),
  }),
  "World signals of one room (ocw_status): counts by kind for the whole room and each named region over the window that starts at sinceTsMs (simulation time).",
);
export const Suggestion = named(
  "Suggestion",
  z.strictObject({
    why: z.string().min(1).max(200),
    action: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("moveTo"), ...moveToWire.fields }),
      z.strictObject({ kind: z.literal("interact"), targetId: IdEntity, action: actionName() }),
      z.strictObject({ kind: z.literal("chatSend"), channel: ChatChannel }),
    ]),
  }),
  "A next action grounded in the scene; add a txId (and a message for chatSend) to embed it.",
);
export const TimeOfDay = named(
  "TimeOfDay",
  z.strictObject({
    part: z.enum(["morning", "day", "evening", "night"]),
    clock: z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/),
  }),
  "The world's time of day at serverTsMs: its clock (HH:MM, UTC, the world's one zone) and the part of the day (morning from 05:00, day from 11:00, evening from 17:00, night from 21:00).",
);
export const HeartbeatResponseData = named(
  "HeartbeatResponseData",
  z.strictObject({
    self: z.strictObject({
      /** Only when the agent is now in another room than the request named (an embedded interact
       * took it through a portal): the request's room is the default, and left out. */
      roomId: IdRoom.optional(),
      place: Place.optional(),
      tile: TileCoord,
      moving: z.literal(true).optional(),
      view: ViewDigest.optional(),
    }),
    delta: HeartbeatDelta,
    signals: HeartbeatSignals.optional(),
    suggestions: z.array(Suggestion).max(MAX_SUGGESTIONS),
    contextToken: ContextToken,
    reset: z.enum(["expired", "invalid"]).optional(),
    memory: WorkingMemory.optional(),
    timeOfDay: TimeOfDay,
    closedPlaces: z.array(ClosedPlace).max(32).optional(),
    action: z
      .discriminatedUnion("status", [
        z.strictObject({
          status: z.literal("ok"),
          data: z.union([MoveToResponseData, InteractResponseData, ChatSendResponseData]),
        }),
        ResultError,
      ])
      .optional(),
    serverTsMs: TsMs,
  }),
  "`action` is exactly what the matching endpoint answered. `reset` says the given token could not be used, so the delta starts now. `self.place` is the most specific named region the agent stands in (left out outside any region; it says when it is private), `self.moving` is there only while the agent walks; `signals` the recent activity there (first, when any) and in the busiest other regions of its room (left out when the room was quiet). `timeOfDay`: day or night in the world. `closedPlaces`: the places of the agent's room closed now and when each opens (left out when none is).",
);

// ---- memory/reflect (extension) --------------------------------------------------
export const ReflectRequest = named(
  "ReflectRequest",
  request({
    agentId: IdAgent,
    roomId: IdRoom,
    txId: IdTx,
    content: reflectionContent(),
    topics: uniqueItems(z.array(Topic).max(MEMORY_LIMITS.topics), "topics").default([]),
    sources: uniqueItems(z.array(Cursor).max(MEMORY_LIMITS.sources), "sources")
      .default([])
      .describe("Cursors of the events (EventEnvelope.cursor) the reflection was drawn from."),
    importance: Importance(),
  }),
  "A reflection for the calling agent's own memory. It is world state: stored by the next tick, kept in snapshots and the durable log.",
);
export const Reflection = named(
  "Reflection",
  z.strictObject({
    id: MemoryId,
    tsMs: TsMs,
    content: reflectionContent(),
    topics: z.array(Topic).max(MEMORY_LIMITS.topics),
    sources: z.array(Cursor).max(MEMORY_LIMITS.sources),
    importance: Importance(),
  }),
);
export const ReflectResponseData = named(
  "ReflectResponseData",
  z.strictObject({ txId: IdTx, reflection: Reflection, evicted: MemoryId.optional(), serverTsMs: TsMs }),
  "`evicted` names the stored reflection dropped to stay within 64 per agent (lowest importance × recency).",
);

// ---- status (extension) -------------------------------------------------------------------
export const AicStatusData = named(
  "AicStatusData",
  z.strictObject({
    aicVersion: z.literal("0.1"),
    running: z.boolean(),
    world: z.string().min(1).max(64),
    rooms: z.array(IdRoom).min(0).max(100),
    tickRate: z.int().min(1).max(60),
    serverTsMs: TsMs,
  }),
  "Liveness for health checks (`GET /status`, no credentials): public facts only, never internals.",
);
export type AicStatus = z.infer<typeof AicStatusData>;

// ---- event payloads (PRD 6.4, events-schema.json) -------------------------------------------
function eventNamed<T extends z.ZodType>(id: string, schema: T): T {
  eventsRegistry.add(schema, { id });
  return schema;
}
const EvIdEntity = eventNamed("IdEntity", z.string().regex(ENTITY_ID_PATTERN));
const EvIdRoom = eventNamed("IdRoom", z.string().regex(ROOM_ID_PATTERN));
const EvTsMs = eventNamed("TsMs", z.int().min(0));
void EvIdRoom;

export const PresenceJoinPayload = eventNamed(
  "PresenceJoin",
  z.strictObject({
    entityId: EvIdEntity,
    name: z.string().min(1).max(64),
    kind: z.enum(["human", "agent", "object"]),
  }),
);
export const PresenceLeavePayload = eventNamed(
  "PresenceLeave",
  z.strictObject({ entityId: EvIdEntity, reason: z.enum(["disconnect", "kicked", "room_closed"]) }),
);
export const ProximityEnterPayload = eventNamed(
  "ProximityEnter",
  z.strictObject({ subjectId: EvIdEntity, otherId: EvIdEntity, distance: z.number().min(0).max(1000000) }),
);
export const ProximityExitPayload = eventNamed(
  "ProximityExit",
  z.strictObject({ subjectId: EvIdEntity, otherId: EvIdEntity }),
);
export const ChatMessagePayload = eventNamed(
  "ChatMessage",
  z.strictObject({
    messageId: z.string().regex(MESSAGE_ID_PATTERN),
    fromEntityId: EvIdEntity,
    channel: z.enum(["proximity", "global"]),
    message: chatText(),
    tsMs: EvTsMs,
  }),
);
export const JsonPatchOp = eventNamed(
  "JsonPatchOp",
  z.strictObject({
    op: z.enum(["add", "remove", "replace"]),
    path: z.string().min(1).max(256),
    value: z.unknown().optional(),
  }),
);
export const ObjectStateChangedPayload = eventNamed(
  "ObjectStateChanged",
  z.strictObject({
    objectId: EvIdEntity,
    objectType: z.string().min(1).max(64),
    patch: z.array(JsonPatchOp).min(1).max(100),
    version: z.int().min(1).max(1000000000),
  }),
);

// ---- types ----------------------------------------------------------------------------------
export type TileCoordT = z.infer<typeof TileCoord>;
export type EntityBaseT = z.infer<typeof EntityBase>;
export type ObservedEntityT = z.infer<typeof ObservedEntity>;
export type ExpectT = z.infer<typeof Expect>;
export type ObserveRequestT = z.infer<typeof ObserveRequest>;
export type ObserveResponse = z.infer<typeof ObserveResponseData>;
export type PlaceT = z.infer<typeof Place>;
export type ClosedPlaceT = z.infer<typeof ClosedPlace>;
export type MoveToResponse = z.infer<typeof MoveToResponseData>;
export type ApproachResponse = z.infer<typeof ApproachResponseData>;
export type InteractResponse = z.infer<typeof InteractResponseData>;
export type ChatSendResponse = z.infer<typeof ChatSendResponseData>;
/** The request and answer of each action kind with doors (src/world/actions: ActionDoors): the AIC
 * envelope around the action's own fields, named `<Kind>Request` and `<Kind>ResponseData`. */
export const DOOR_SCHEMAS: ReadonlyMap<string, { request: z.ZodType; response: z.ZodType }> = new Map(
  DOOR_ACTIONS.map(({ kind, doors }): [string, { request: z.ZodType; response: z.ZodType }] => {
    const title = `${(kind as string)[0]!.toUpperCase()}${(kind as string).slice(1)}`;
    const envelope = { agentId: IdAgent, roomId: IdRoom, txId: IdTx, expect: Expect.optional() };
    const answer = { txId: IdTx, applied: z.boolean(), serverTsMs: TsMs, ...doors.answer };
    return [
      kind,
      {
        request: named(`${title}Request`, request({ ...envelope, ...doors.fields })),
        response: named(`${title}ResponseData`, z.strictObject(answer)),
      },
    ];
  }),
);

export type ChatObserveRequestT = z.infer<typeof ChatObserveRequest>;
export type ChatObserveResponse = z.infer<typeof ChatObserveResponseData>;
export type EventEnvelopeT = z.infer<typeof EventEnvelope>;
export type PollEventsRequestT = z.infer<typeof PollEventsRequest>;
export type PollEventsResponse = z.infer<typeof PollEventsResponseData>;
export type EventStreamQueryT = z.infer<typeof EventStreamQuery>;
export type JoinResponse = z.infer<typeof JoinResponseData>;
export type LeaveResponse = z.infer<typeof LeaveResponseData>;
export type EmbeddedActionT = z.infer<typeof EmbeddedAction>;
export type HeartbeatRequestT = z.infer<typeof HeartbeatRequest>;
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseData>;
export type HeartbeatDeltaT = z.infer<typeof HeartbeatDelta>;
export type SuggestionT = z.infer<typeof Suggestion>;
export type MemoryEntryT = z.infer<typeof MemoryEntry>;
export type ReflectResponse = z.infer<typeof ReflectResponseData>;
export type RegionActivityT = z.infer<typeof RegionActivity>;
export type RoomSignalsT = z.infer<typeof RoomSignals>;
