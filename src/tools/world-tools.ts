// The ocw_* tools that reach the world through AIC: observe, poll events, chat observe (required)
// and move, interact, chat send (optional, gated by the policy hook). Each one builds an AIC request,
// lets the AIC service validate it strictly, and turns the answer into a short text + `details`.
// Every definition is paid for in every model request, so parameters are what a model decides:
// no txId (the call's own id is the idempotency key) and a room only where looking elsewhere helps.
import { type TSchema, Type } from "typebox";
import { DOOR_TOOLS } from "../aic/endpoints.ts";
import type { AicResult } from "../aic/errors.ts";
import { fieldSchema } from "../aic/fields.ts";
import {
  ApproachRequest,
  ChatObserveRequest,
  ChatSendRequest,
  EmbeddedAction,
  type EmbeddedActionT,
  Expect,
  InteractRequest,
  MEMORY_LIMITS,
  ObserveRequest,
  PollEventsRequest,
  ReflectRequest,
  TileCoord,
} from "../aic/schemas.ts";
import type { ResolvedConfig } from "../config/config.ts";
import type { AicBackend, AicEndpoint } from "./backend.ts";
import { rememberContextToken, rememberCursor, rememberedContextToken, rememberedCursor } from "./cursors.ts";
import { txIdForToolCall } from "./identity.ts";
import { formatChat, formatEvents, formatHeartbeat, formatObservation, formatReflection } from "./render.ts";
import { type AgentToolLike, coerceArgs, defineTool, type ToolCall, ToolError } from "./tool-kit.ts";

/** A parameter that is a contract field: its type and bounds come from the request schema. Its
 * pattern is left out: a model does not write to a regular expression, and the contract checks it. */
function field<T>(schema: Parameters<typeof fieldSchema>[0], description?: string) {
  return Type.Unsafe<T>(withoutPatterns(fieldSchema(schema, description)));
}

function withoutPatterns(schema: Record<string, unknown>): Record<string, unknown> {
  const { pattern: _pattern, ...rest } = schema;
  const props = rest.properties as Record<string, Record<string, unknown>> | undefined;
  if (props) {
    rest.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, withoutPatterns(v)]));
  }
  if (rest.items && typeof rest.items === "object") {
    rest.items = withoutPatterns(rest.items as Record<string, unknown>);
  }
  return rest;
}

const Memory = field<number>(ObserveRequest.shape.memory, "Also list your memory: at most this many entries");
const Channel = field<"proximity" | "global">(
  ChatSendRequest.shape.channel,
  "proximity: those near you (default); global: your room",
);
/** The guards a live agent can use (seed 002): the fact its decision rests on, or the view it was
 * shown. A tick or state hash is stale before it arrives at 20 Hz, so the tools do not offer them
 * (HTTP agents still may). Every acting tool takes the same `expect`; the contract maps it. */
const Guards = Type.Object(
  {
    // Nested objects leave additionalProperties out: the contract refuses an unknown key anyway.
    objectState: Type.Optional(
      Type.Object({
        objectId: field<string>(Expect.shape.objectState.unwrap().shape.objectId),
        field: field<string>(Expect.shape.objectState.unwrap().shape.field),
        // Any JSON scalar: left untyped, as tool schemas have no unions.
        equals: Type.Unsafe<string | number | boolean | null>({}),
      }),
    ),
    entityNear: Type.Optional(
      Type.Object({
        entityId: field<string>(Expect.shape.entityNear.unwrap().shape.entityId),
        withinTiles: field<number>(Expect.shape.entityNear.unwrap().shape.withinTiles),
      }),
    ),
    view: Type.Optional(field<string>(Expect.shape.view, "From heartbeat/observe")),
  },
  { additionalProperties: false, description: "Only if still true; else nothing is done" },
);
/** The same guards on the standalone acting tools, by reference: ocw_heartbeat (always sent, even in
 * Tool Search mode) spells their shape once and the contract checks it strictly, so the tool list
 * pays for the shape once rather than four times. */
const GuardsAsHeartbeat = Type.Unsafe<Record<string, unknown>>({
  type: "object",
  description: "Guards, as ocw_heartbeat action.expect",
});
const TileX = TileCoord.shape.tx;
const TileY = TileCoord.shape.ty;
const ChatMessage = ChatSendRequest.shape.message;
const [EmbeddedMove, EmbeddedInteract] = EmbeddedAction.options;

export interface WorldToolDeps {
  config: ResolvedConfig;
  backend: AicBackend;
  /** The AIC agent id this call acts as. */
  agentId: string;
  timeoutMs: number;
  /** The gateway session the call runs in: with the turn, the tool call id and the arguments it
   * names one call (its txId). */
  session: string;
  /** The turn the call runs in, when the gateway says (a resident's turn: its run id), else "". */
  turn?: string;
  /** Where ocw_chat_send speaks when the model names no channel (a resident's turn: where the one
   * who woke it hears; src/residents/wake.ts `replyChannel`), else proximity. */
  replyChannel?: "proximity" | "global";
  /** The embedded action kinds this agent's tool policy allows: suggestions offer only these. */
  allowedActionKinds: ReadonlySet<string>;
}

/** The txId of a tool call that changes the world: a retry of the call applies once, and a model
 * reusing call ids (another turn, other arguments) starts a new transaction (identity.ts). */
const txIdOf = (deps: WorldToolDeps, toolName: string, call: ToolCall, args: unknown) =>
  txIdForToolCall({
    toolName,
    session: deps.session,
    turn: deps.turn ?? "",
    toolCallId: call.toolCallId,
    args,
  });

/** Sends one AIC request for the agent, joining the default room first when it is nowhere yet. */
async function callWorld<T>(
  deps: WorldToolDeps,
  endpoint: AicEndpoint,
  body: Record<string, unknown>,
  explicitRoomId: string | undefined,
  call: ToolCall,
): Promise<{ data: T; roomId: string }> {
  const { backend, agentId, config } = deps;
  const knownRoom = backend.currentRoom(agentId);
  const roomId = explicitRoomId ?? knownRoom ?? config.defaultRoomId;
  // Join before the first call, not after it fails: a refused action is stored under its txId, and
  // a retry with that txId must (and would) replay the refusal.
  if (!explicitRoomId && !knownRoom) {
    const joined = await joinRoom(deps, roomId, call);
    if (joined.status === "error") throw toToolError(joined);
  }
  const send = () => backend.call(endpoint, agentId, { agentId, roomId, ...body }, call.signal);
  let result = await send();
  if (result.status === "error" && result.error.code === "agent_not_in_room" && !explicitRoomId) {
    const joined = await joinRoom(deps, roomId, call);
    if (joined.status === "error") throw toToolError(joined);
    result = await send();
  }
  if (result.status === "error") throw toToolError(result);
  return { data: result.data as T, roomId };
}

async function joinRoom(deps: WorldToolDeps, roomId: string, call: ToolCall): Promise<AicResult<unknown>> {
  const joined = await deps.backend.call(
    "join",
    deps.agentId,
    { agentId: deps.agentId, roomId },
    call.signal,
  );
  if (joined.status === "ok") {
    const cursor = (joined.data as { cursor?: string }).cursor;
    if (cursor) rememberCursor(deps.agentId, roomId, cursor);
  }
  return joined;
}

function toToolError(result: AicResult<unknown>): ToolError {
  if (result.status === "ok") return new ToolError("internal", "unexpected success");
  const { code, message, retryable, details } = result.error;
  return new ToolError(code, message, retryable, details);
}

function tool<Args>(
  deps: WorldToolDeps,
  spec: {
    name: string;
    label: string;
    description: string;
    parameters: TSchema;
    run(args: Args, call: ToolCall): Promise<{ text: string; details: unknown }>;
  },
): AgentToolLike {
  return defineTool<Args>(spec, deps.timeoutMs);
}

interface ObserveArgs {
  roomId?: string;
  radius?: number;
  detail?: "lite" | "full";
  includeSelf?: boolean;
  memory?: number;
}

export function observeTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ObserveArgs>(deps, {
    name: "ocw_observe",
    label: "Observe the world",
    description:
      "Look around: your position, who and what is near you, and what you can do with each object (its affordances: read, use, open...). Joins the world on first use.",
    parameters: Type.Object(
      {
        radius: Type.Optional(
          field<number>(ObserveRequest.shape.radius, "How far, in world units (32 a tile; default 256)"),
        ),
        detail: Type.Optional(
          field<"lite" | "full">(ObserveRequest.shape.detail, "full adds object state (default)"),
        ),
        includeSelf: Type.Optional(
          field<boolean>(ObserveRequest.shape.includeSelf, "List yourself too (default true)"),
        ),
        memory: Type.Optional(Memory),
        roomId: Type.Optional(field<string>(ObserveRequest.shape.roomId, "Room (default: yours)")),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const { data } = await callWorld<Parameters<typeof formatObservation>[0]>(
        deps,
        "observe",
        {
          radius: args.radius ?? 256,
          detail: args.detail ?? "full",
          // Left out, the contract's default applies: the same answer as over HTTP.
          ...(args.includeSelf !== undefined ? { includeSelf: args.includeSelf } : {}),
          ...(args.memory !== undefined ? { memory: args.memory } : {}),
        },
        args.roomId,
        call,
      );
      return { text: formatObservation(data), details: data };
    },
  });
}

interface PollArgs {
  sinceCursor?: string;
  limit?: number;
  waitMs?: number;
}

export function pollEventsTool(deps: WorldToolDeps): AgentToolLike {
  return tool<PollArgs>(deps, {
    name: "ocw_poll_events",
    label: "Poll world events",
    description:
      "What happened since your last poll: arrivals, departures, who came near, chat you heard, objects that changed. Your cursor is remembered; waitMs waits for the next event.",
    parameters: Type.Object(
      {
        sinceCursor: Type.Optional(
          field<string>(PollEventsRequest.shape.sinceCursor, "Resume here (default: after your last poll)"),
        ),
        limit: Type.Optional(field<number>(PollEventsRequest.shape.limit, "Max events (default 50)")),
        waitMs: Type.Optional(field<number>(PollEventsRequest.shape.waitMs, "Wait for an event (default 0)")),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const roomHint = deps.backend.currentRoom(deps.agentId) ?? deps.config.defaultRoomId;
      const cursor = args.sinceCursor ?? rememberedCursor(deps.agentId, roomHint) ?? "c_0";
      const body = { sinceCursor: cursor, limit: args.limit ?? 50, waitMs: args.waitMs ?? 0 };
      type PollData = Parameters<typeof formatEvents>[0];
      let answer: { data: PollData; roomId: string };
      let dropped = 0;
      try {
        answer = await callWorld<PollData>(deps, "pollEvents", body, undefined, call);
      } catch (error) {
        const details = error instanceof ToolError ? error.details : undefined;
        if (
          !(error instanceof ToolError) ||
          details?.reason !== "cursor_expired" ||
          typeof details.nextCursor !== "string"
        ) {
          throw error;
        }
        // The cursor fell out of the retained window: continue from the oldest kept event and say so.
        dropped = typeof details.droppedCount === "number" ? details.droppedCount : 0;
        answer = await callWorld<PollData>(
          deps,
          "pollEvents",
          { ...body, sinceCursor: details.nextCursor },
          undefined,
          call,
        );
      }
      rememberCursor(deps.agentId, answer.roomId, answer.data.nextCursor);
      const prefix = dropped ? `Note: ${dropped} older events were dropped before you polled.\n` : "";
      return {
        text: prefix + formatEvents(answer.data),
        details: { ...answer.data, ...(dropped ? { droppedCount: dropped } : {}) },
      };
    },
  });
}

interface ChatObserveArgs {
  windowSec?: number;
  channel?: "proximity" | "global";
}

export function chatObserveTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ChatObserveArgs>(deps, {
    name: "ocw_chat_observe",
    label: "Read recent chat",
    description: "Chat you could hear in the last windowSec seconds (default 60), optionally one channel.",
    parameters: Type.Object(
      {
        windowSec: Type.Optional(field<number>(ChatObserveRequest.shape.windowSec)),
        channel: Type.Optional(field<"proximity" | "global">(ChatSendRequest.shape.channel)),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const { data } = await callWorld<Parameters<typeof formatChat>[0]>(
        deps,
        "chatObserve",
        { windowSec: args.windowSec ?? 60, ...(args.channel ? { channel: args.channel } : {}) },
        undefined,
        call,
      );
      return { text: formatChat(data), details: data };
    },
  });
}

/** What an acting tool's args add to its request: its guards, when given. */
type Guarded = { expect?: Record<string, unknown> };
/** The guards, coerced as ocw_heartbeat's are (snake_case keys, numbers as strings): the tool
 * shows the shape by reference, so the coercion reads the shape itself. */
const guardsOf = (args: Guarded) =>
  args.expect ? { expect: coerceArgs(Guards as Parameters<typeof coerceArgs>[0], args.expect) } : {};

interface MoveArgs extends Guarded {
  tx?: number;
  ty?: number;
  targetId?: string;
}

export function moveToTool(deps: WorldToolDeps): AgentToolLike {
  return tool<MoveArgs>(deps, {
    name: "ocw_move_to",
    label: "Walk to a tile or an object",
    description:
      "Walk to tile (tx, ty) in your room, or give targetId to walk into reach of that object, then ocw_interact. A new move replaces the last.",
    parameters: Type.Object(
      {
        tx: Type.Optional(field<number>(TileX)),
        ty: Type.Optional(field<number>(TileY)),
        targetId: Type.Optional(
          field<string>(ApproachRequest.shape.targetId, "An object, instead of tx, ty"),
        ),
        expect: Type.Optional(GuardsAsHeartbeat),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = txIdOf(deps, "ocw_move_to", call, args);
      if (args.targetId !== undefined) {
        if (args.tx !== undefined || args.ty !== undefined)
          throw new ToolError(
            "bad_request",
            "invalid arguments: give either targetId or tx and ty, not both",
          );
        const { data } = await callWorld<{ result: string; dest: { tx: number; ty: number } }>(
          deps,
          "approach",
          { txId, targetId: args.targetId, ...guardsOf(args) },
          undefined,
          call,
        );
        const at = `(${data.dest.tx}, ${data.dest.ty})`;
        const text =
          data.result === "no_op"
            ? `${args.targetId} is within reach from where you stand ${at}.`
            : `Walking into reach of ${args.targetId}, to ${at}: ${data.result}. Interact once you are there.`;
        return { text, details: data };
      }
      if (args.tx === undefined || args.ty === undefined)
        throw new ToolError("bad_request", "invalid arguments: give tx and ty, or targetId");
      const { data } = await callWorld<{ result: string; applied: boolean }>(
        deps,
        "moveTo",
        { txId, dest: { tx: args.tx, ty: args.ty }, mode: "walk", ...guardsOf(args) },
        undefined,
        call,
      );
      const text =
        data.result === "no_op"
          ? `You are already at (${args.tx}, ${args.ty}).`
          : `Walking to (${args.tx}, ${args.ty}): ${data.result}. Observe or poll events to follow your progress.`;
      return { text, details: data };
    },
  });
}

interface InteractArgs extends Guarded {
  targetId: string;
  action: string;
  params?: Record<string, unknown>;
}

export function interactTool(deps: WorldToolDeps): AgentToolLike {
  return tool<InteractArgs>(deps, {
    name: "ocw_interact",
    label: "Use an object",
    description: "Use an object within reach (about 2 tiles) by one of its affordances from ocw_observe.",
    parameters: Type.Object(
      {
        targetId: field<string>(InteractRequest.shape.targetId, "Object id"),
        action: field<string>(InteractRequest.shape.action, "Affordance, e.g. read, use, open"),
        params: Type.Optional(Type.Object({}, { additionalProperties: true })),
        expect: Type.Optional(GuardsAsHeartbeat),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = txIdOf(deps, "ocw_interact", call, args);
      const { data } = await callWorld<{ outcome: { type: string; message?: string } }>(
        deps,
        "interact",
        {
          txId,
          targetId: args.targetId,
          action: args.action,
          ...(args.params ? { params: args.params } : {}),
          ...guardsOf(args),
        },
        undefined,
        call,
      );
      const { type, message } = data.outcome;
      return {
        text: `${args.action} ${args.targetId}: ${type}${message ? ` — ${message}` : ""}`,
        details: data,
      };
    },
  });
}

interface ChatSendArgs extends Guarded {
  message: string;
  channel?: "proximity" | "global";
}

export function chatSendTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ChatSendArgs>(deps, {
    name: "ocw_chat_send",
    label: "Say something",
    description: "Say something to those near you, or (channel global) to your whole room.",
    parameters: Type.Object(
      {
        message: field<string>(ChatMessage),
        channel: Type.Optional(Channel),
        expect: Type.Optional(GuardsAsHeartbeat),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = txIdOf(deps, "ocw_chat_send", call, args);
      const channel = args.channel ?? deps.replyChannel ?? "proximity";
      const { data } = await callWorld<{ chatMessageId: string }>(
        deps,
        "chatSend",
        { txId, channel, message: args.message, ...guardsOf(args) },
        undefined,
        call,
      );
      return { text: `You said (${channel}): ${args.message}`, details: data };
    },
  });
}

interface HeartbeatArgs {
  action?: {
    kind: EmbeddedActionT["kind"];
    dest?: { tx: number; ty: number };
    targetId?: string;
    action?: string;
    params?: Record<string, unknown>;
    channel?: "proximity" | "global";
    message?: string;
    expect?: Record<string, unknown>;
  };
  memory?: number;
}

type HeartbeatData = Omit<Parameters<typeof formatHeartbeat>[0], "self"> & {
  contextToken: string;
  self: Omit<Parameters<typeof formatHeartbeat>[0]["self"], "roomId"> & { roomId?: string };
};

export function heartbeatTool(deps: WorldToolDeps): AgentToolLike {
  return tool<HeartbeatArgs>(deps, {
    name: "ocw_heartbeat",
    label: "Heartbeat: what changed",
    description:
      "Call once per wake-up: what changed near you since your last heartbeat, and suggested next actions. To act in the same call, pass one suggestion as action, completed (chatSend needs message).",
    parameters: Type.Object(
      {
        action: Type.Optional(
          Type.Object(
            {
              // The embedded action's variants, flattened (tool schemas have no unions).
              kind: Type.Unsafe<EmbeddedActionT["kind"]>({
                type: "string",
                enum: EmbeddedAction.options.map((variant) => variant.shape.kind.value),
              }),
              dest: Type.Optional(field<{ tx: number; ty: number }>(EmbeddedMove.shape.dest, "moveTo")),
              targetId: Type.Optional(field<string>(EmbeddedInteract.shape.targetId, "interact")),
              action: Type.Optional(field<string>(EmbeddedInteract.shape.action, "interact")),
              params: Type.Optional(Type.Object({}, { additionalProperties: true })),
              channel: Type.Optional(field<"proximity" | "global">(ChatSendRequest.shape.channel)),
              message: Type.Optional(field<string>(ChatMessage, "chatSend")),
              expect: Type.Optional(Guards),
            },
            { additionalProperties: false },
          ),
        ),
        memory: Type.Optional(Memory),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const roomHint = deps.backend.currentRoom(deps.agentId) ?? deps.config.defaultRoomId;
      const token = rememberedContextToken(deps.agentId, roomHint);
      const body: Record<string, unknown> = token ? { contextToken: token } : {};
      if (args.memory !== undefined) body.memory = args.memory;
      if (args.action) body.action = { ...args.action, txId: txIdOf(deps, "ocw_heartbeat", call, args) };
      let note = "";
      let answer: { data: HeartbeatData; roomId: string };
      try {
        answer = await callWorld<HeartbeatData>(deps, "heartbeat", body, undefined, call);
      } catch (error) {
        // A stale context: perceive first, and let the model decide again on fresh facts.
        const details = error instanceof ToolError ? error.details : undefined;
        const stale =
          error instanceof ToolError &&
          args.action !== undefined &&
          details?.field === "contextToken" &&
          (error.code === "bad_request" || error.code === "conflict");
        if (!stale) throw error;
        note = "Your action was NOT applied: the world changed since your last look. Decide again.\n";
        const fresh = args.memory !== undefined ? { memory: args.memory } : {};
        answer = await callWorld<HeartbeatData>(deps, "heartbeat", fresh, undefined, call);
      }
      // The answer names the room only when it is not the one asked about (a portal).
      const roomId = answer.data.self.roomId ?? answer.roomId;
      rememberContextToken(deps.agentId, roomId, answer.data.contextToken);
      // Offer only what this agent may do: a suggestion its policy refuses is a wasted turn.
      const data = {
        ...answer.data,
        self: { ...answer.data.self, roomId },
        suggestions: answer.data.suggestions.filter((s) =>
          deps.allowedActionKinds.has(String(s.action.kind)),
        ),
      };
      return { text: note + formatHeartbeat(data), details: data };
    },
  });
}

interface ReflectArgs {
  content: string;
  importance: number;
  topics?: string[];
  sources?: string[];
}

export function reflectTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ReflectArgs>(deps, {
    name: "ocw_reflect",
    label: "Remember a reflection",
    description: `Store what you concluded (e.g. "Ada knows the garden") in your private world memory; it comes back, weighted above what you saw, in ocw_heartbeat / ocw_observe with memory: N. At most ${MEMORY_LIMITS.reflections} kept.`,
    parameters: Type.Object(
      {
        content: field<string>(ReflectRequest.shape.content),
        importance: field<number>(ReflectRequest.shape.importance, "0.9: a belief to guide you"),
        topics: Type.Optional(
          Type.Unsafe<string[]>({
            ...withoutPatterns(fieldSchema(ReflectRequest.shape.topics, "Short tags")),
            // The contract refuses repeated topics (a refinement JSON Schema says this way).
            uniqueItems: true,
          }),
        ),
        sources: Type.Optional(field<string[]>(ReflectRequest.shape.sources, "Event cursors it draws on")),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = txIdOf(deps, "ocw_reflect", call, args);
      const { data } = await callWorld<Parameters<typeof formatReflection>[0]>(
        deps,
        "reflect",
        {
          txId,
          content: args.content,
          importance: args.importance,
          ...(args.topics ? { topics: args.topics } : {}),
          ...(args.sources ? { sources: args.sources } : {}),
        },
        undefined,
        call,
      );
      return { text: formatReflection(data), details: data };
    },
  });
}

/** The tool of an action kind with doors (DOOR_TOOLS): its parameters are the action's fields. */
function doorTool(door: (typeof DOOR_TOOLS)[number]) {
  return (deps: WorldToolDeps): AgentToolLike =>
    tool<Guarded & Record<string, unknown>>(deps, {
      name: door.name,
      label: door.label,
      description: door.description,
      parameters: Type.Object(
        {
          ...Object.fromEntries(
            Object.entries(door.fields).map(([key, schema]) => {
              const param = field<unknown>(schema);
              return [key, schema.safeParse(undefined).success ? Type.Optional(param) : param];
            }),
          ),
          ...(door.guards ? { expect: Type.Optional(GuardsAsHeartbeat) } : {}),
        },
        { additionalProperties: false },
      ),
      async run(args, call) {
        const txId = txIdOf(deps, door.name, call, args);
        const own = Object.fromEntries(
          Object.keys(door.fields).flatMap((k) => (k in args ? [[k, args[k]]] : [])),
        );
        const { data } = await callWorld<Record<string, unknown>>(
          deps,
          door.endpoint,
          { txId, ...own, ...guardsOf(args) },
          undefined,
          call,
        );
        return { text: `${door.label}: ${Object.values(own).join(" ")}`, details: data };
      },
    });
}

export const WORLD_TOOL_FACTORIES = {
  ocw_observe: observeTool,
  ocw_poll_events: pollEventsTool,
  ocw_chat_observe: chatObserveTool,
  ocw_move_to: moveToTool,
  ocw_interact: interactTool,
  ocw_chat_send: chatSendTool,
  ocw_heartbeat: heartbeatTool,
  ocw_reflect: reflectTool,
  ...Object.fromEntries(DOOR_TOOLS.map((door) => [door.name, doorTool(door)])),
} as const;
