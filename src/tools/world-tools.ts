// The ocw_* tools that reach the world through AIC: observe, poll events, chat observe (required)
// and move, interact, chat send (optional, gated by the policy hook). Each one builds an AIC request,
// lets the AIC service validate it strictly, and turns the answer into a short text + `details`.
import { type TSchema, Type } from "typebox";
import type { AicResult } from "../aic/errors.ts";
import { fieldSchema } from "../aic/fields.ts";
import {
  ApproachRequest,
  ChatObserveRequest,
  ChatSendRequest,
  EmbeddedAction,
  InteractRequest,
  MEMORY_LIMITS,
  MoveToRequest,
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
import { type AgentToolLike, defineTool, type ToolCall, ToolError } from "./tool-kit.ts";

/** A parameter that is a contract field: its type and bounds come from the request schema. */
function field<T>(schema: Parameters<typeof fieldSchema>[0], description?: string) {
  return Type.Unsafe<T>(fieldSchema(schema, description));
}

const RoomId = field<string>(MoveToRequest.shape.roomId, "Room id; defaults to the room you are in.");
const TxId = field<string>(
  MoveToRequest.shape.txId,
  "Idempotency key. Omit it: one is derived from the tool call id, so a retried call applies once.",
);
const Memory = field<number>(
  ObserveRequest.shape.memory,
  "Also show your working memory: at most this many entries (reflections you stored weigh twice what you did and perceived). Leave out to save tokens.",
);
const Channel = field<"proximity" | "global">(
  ChatSendRequest.shape.channel,
  "proximity (nearby hearers) or global (whole room)",
);
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
}

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
      "Look around in OpenClawWorld: your position, the people, agents and objects near you, and what you can do with each object (affordances such as read, use, open). Joins the default room on first use.",
    parameters: Type.Object(
      {
        radius: Type.Optional(
          field<number>(
            ObserveRequest.shape.radius,
            "How far to look, in world units (32 per tile). Default 256.",
          ),
        ),
        detail: Type.Optional(
          field<"lite" | "full">(ObserveRequest.shape.detail, "full includes object state (default)"),
        ),
        includeSelf: Type.Optional(
          Type.Boolean({ description: "Include yourself in the list (default false)" }),
        ),
        memory: Type.Optional(Memory),
        roomId: Type.Optional(RoomId),
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
          includeSelf: args.includeSelf ?? false,
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
  roomId?: string;
}

export function pollEventsTool(deps: WorldToolDeps): AgentToolLike {
  return tool<PollArgs>(deps, {
    name: "ocw_poll_events",
    label: "Poll world events",
    description:
      "Get what happened since you last polled: people arriving or leaving, someone coming near or going away, chat you could hear, doors opening. Remembers your cursor between calls; pass waitMs to wait for the next event.",
    parameters: Type.Object(
      {
        sinceCursor: Type.Optional(
          field<string>(
            PollEventsRequest.shape.sinceCursor,
            "Resume from this cursor (default: where your last poll ended)",
          ),
        ),
        limit: Type.Optional(
          field<number>(PollEventsRequest.shape.limit, "At most this many events (default 50)"),
        ),
        waitMs: Type.Optional(
          field<number>(PollEventsRequest.shape.waitMs, "Wait up to this long for an event (default 0)"),
        ),
        roomId: Type.Optional(RoomId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const roomHint = args.roomId ?? deps.backend.currentRoom(deps.agentId) ?? deps.config.defaultRoomId;
      const cursor = args.sinceCursor ?? rememberedCursor(deps.agentId, roomHint) ?? "c_0";
      const body = { sinceCursor: cursor, limit: args.limit ?? 50, waitMs: args.waitMs ?? 0 };
      type PollData = Parameters<typeof formatEvents>[0];
      let answer: { data: PollData; roomId: string };
      let dropped = 0;
      try {
        answer = await callWorld<PollData>(deps, "pollEvents", body, args.roomId, call);
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
          args.roomId,
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
  roomId?: string;
}

export function chatObserveTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ChatObserveArgs>(deps, {
    name: "ocw_chat_observe",
    label: "Read recent chat",
    description:
      "Read the chat messages you could hear in the last windowSec seconds (default 60), optionally one channel only.",
    parameters: Type.Object(
      {
        windowSec: Type.Optional(
          field<number>(ChatObserveRequest.shape.windowSec, "Look back this many seconds (default 60)"),
        ),
        channel: Type.Optional(Channel),
        roomId: Type.Optional(RoomId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const { data } = await callWorld<Parameters<typeof formatChat>[0]>(
        deps,
        "chatObserve",
        { windowSec: args.windowSec ?? 60, ...(args.channel ? { channel: args.channel } : {}) },
        args.roomId,
        call,
      );
      return { text: formatChat(data), details: data };
    },
  });
}

interface MoveArgs {
  tx?: number;
  ty?: number;
  targetId?: string;
  roomId?: string;
  txId?: string;
}

export function moveToTool(deps: WorldToolDeps): AgentToolLike {
  return tool<MoveArgs>(deps, {
    name: "ocw_move_to",
    label: "Walk to a tile or an object",
    description:
      "Walk to the tile (tx, ty) in your room; the world finds a path around walls. Fails with invalid_destination outside the map and collision_blocked when the tile is blocked or unreachable. Or give targetId instead: the world walks you into reach of that object (doors and signs often sit in walls), then use ocw_interact. A new move replaces the previous one.",
    parameters: Type.Object(
      {
        tx: Type.Optional(field<number>(TileX, "Destination tile column")),
        ty: Type.Optional(field<number>(TileY, "Destination tile row")),
        targetId: Type.Optional(
          field<string>(ApproachRequest.shape.targetId, "Instead of tx, ty: an object to walk into reach of"),
        ),
        roomId: Type.Optional(RoomId),
        txId: Type.Optional(TxId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = args.txId ?? txIdForToolCall("ocw_move_to", call.toolCallId);
      if (args.targetId !== undefined) {
        if (args.tx !== undefined || args.ty !== undefined)
          throw new ToolError(
            "bad_request",
            "invalid arguments: give either targetId or tx and ty, not both",
          );
        const { data } = await callWorld<{ result: string; dest: { tx: number; ty: number } }>(
          deps,
          "approach",
          { txId, targetId: args.targetId },
          args.roomId,
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
        { txId, dest: { tx: args.tx, ty: args.ty }, mode: "walk" },
        args.roomId,
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

interface InteractArgs {
  targetId: string;
  action: string;
  params?: Record<string, unknown>;
  roomId?: string;
  txId?: string;
}

export function interactTool(deps: WorldToolDeps): AgentToolLike {
  return tool<InteractArgs>(deps, {
    name: "ocw_interact",
    label: "Use an object",
    description:
      "Use an object near you with one of its affordances from ocw_observe, e.g. read a sign, use a portal, open or close a door. You must be within reach (about 2 tiles); the outcome says ok, no_effect, invalid_action or too_far.",
    parameters: Type.Object(
      {
        targetId: field<string>(InteractRequest.shape.targetId, "Object id, e.g. obj_sign_welcome"),
        action: field<string>(InteractRequest.shape.action, "Affordance action, e.g. read, use, open, close"),
        params: Type.Optional(
          Type.Object(
            {},
            { additionalProperties: true, description: "Action parameters, if the affordance has any" },
          ),
        ),
        roomId: Type.Optional(RoomId),
        txId: Type.Optional(TxId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = args.txId ?? txIdForToolCall("ocw_interact", call.toolCallId);
      const { data } = await callWorld<{ outcome: { type: string; message?: string } }>(
        deps,
        "interact",
        {
          txId,
          targetId: args.targetId,
          action: args.action,
          ...(args.params ? { params: args.params } : {}),
        },
        args.roomId,
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

interface ChatSendArgs {
  message: string;
  channel?: "proximity" | "global";
  roomId?: string;
  txId?: string;
}

export function chatSendTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ChatSendArgs>(deps, {
    name: "ocw_chat_send",
    label: "Say something",
    description: `Say something in the world. proximity (default) is heard by those near you; global by everyone in your room. At most ${fieldSchema(ChatMessage).maxLength} characters.`,
    parameters: Type.Object(
      {
        message: field<string>(ChatMessage, "What to say"),
        channel: Type.Optional(Channel),
        roomId: Type.Optional(RoomId),
        txId: Type.Optional(TxId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = args.txId ?? txIdForToolCall("ocw_chat_send", call.toolCallId);
      const channel = args.channel ?? "proximity";
      const { data } = await callWorld<{ chatMessageId: string }>(
        deps,
        "chatSend",
        { txId, channel, message: args.message },
        args.roomId,
        call,
      );
      return { text: `Said on ${channel} (${data.chatMessageId}): ${args.message}`, details: data };
    },
  });
}

interface HeartbeatArgs {
  action?: {
    kind: "moveTo" | "interact" | "chatSend";
    dest?: { tx: number; ty: number };
    targetId?: string;
    action?: string;
    params?: Record<string, unknown>;
    channel?: "proximity" | "global";
    message?: string;
  };
  contextToken?: string;
  memory?: number;
  roomId?: string;
  txId?: string;
}

type HeartbeatData = Parameters<typeof formatHeartbeat>[0] & {
  contextToken: string;
  self: { roomId: string };
};

export function heartbeatTool(deps: WorldToolDeps): AgentToolLike {
  return tool<HeartbeatArgs>(deps, {
    name: "ocw_heartbeat",
    label: "Heartbeat: what changed",
    description:
      "Call once per wake-up: what changed near you since your last heartbeat (who came or went, chat you heard, objects that changed, your move's progress) and a few suggested next actions. Optionally do one action in the same call: action = {kind:'moveTo',dest:{tx,ty}} | {kind:'interact',targetId,action} | {kind:'chatSend',message,channel?} — copy a suggestion and add what it lacks. An action needs the matching tool (ocw_move_to / ocw_interact / ocw_chat_send) to be enabled for you.",
    parameters: Type.Object(
      {
        action: Type.Optional(
          Type.Object(
            {
              // The embedded action's variants, flattened (tool schemas have no unions).
              kind: Type.Unsafe<"moveTo" | "interact" | "chatSend">({
                type: "string",
                enum: EmbeddedAction.options.map((variant) => variant.shape.kind.value),
              }),
              dest: Type.Optional(
                field<{ tx: number; ty: number }>(EmbeddedMove.shape.dest, "moveTo: destination tile"),
              ),
              targetId: Type.Optional(field<string>(EmbeddedInteract.shape.targetId, "interact: object id")),
              action: Type.Optional(
                field<string>(EmbeddedInteract.shape.action, "interact: affordance, e.g. read, open"),
              ),
              params: Type.Optional(Type.Object({}, { additionalProperties: true })),
              channel: Type.Optional(Channel),
              message: Type.Optional(field<string>(ChatMessage, "chatSend: what to say")),
            },
            { additionalProperties: false, description: "One action to do now (optional)" },
          ),
        ),
        contextToken: Type.Optional(
          Type.String({ description: "Token of your last heartbeat (default: remembered for you)" }),
        ),
        memory: Type.Optional(Memory),
        roomId: Type.Optional(RoomId),
        txId: Type.Optional(TxId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const roomHint = args.roomId ?? deps.backend.currentRoom(deps.agentId) ?? deps.config.defaultRoomId;
      const token = args.contextToken ?? rememberedContextToken(deps.agentId, roomHint);
      const body: Record<string, unknown> = token ? { contextToken: token } : {};
      if (args.memory !== undefined) body.memory = args.memory;
      if (args.action) {
        body.action = {
          ...args.action,
          txId: args.txId ?? txIdForToolCall("ocw_heartbeat", call.toolCallId),
        };
      }
      let note = "";
      let answer: { data: HeartbeatData; roomId: string };
      try {
        answer = await callWorld<HeartbeatData>(deps, "heartbeat", body, args.roomId, call);
      } catch (error) {
        // A stale or missing context: perceive first, and let the model decide again on fresh facts.
        const details = error instanceof ToolError ? error.details : undefined;
        const stale =
          error instanceof ToolError &&
          args.action !== undefined &&
          details?.field === "contextToken" &&
          (error.code === "bad_request" || error.code === "conflict");
        if (!stale) throw error;
        note = `Your action was NOT applied (${error.message}). Here is what is going on now; decide again.\n`;
        const fresh = args.memory !== undefined ? { memory: args.memory } : {};
        answer = await callWorld<HeartbeatData>(deps, "heartbeat", fresh, args.roomId, call);
      }
      rememberContextToken(deps.agentId, answer.data.self.roomId, answer.data.contextToken);
      return { text: note + formatHeartbeat(answer.data), details: answer.data };
    },
  });
}

interface ReflectArgs {
  content: string;
  importance: number;
  topics?: string[];
  sources?: string[];
  roomId?: string;
  txId?: string;
}

export function reflectTool(deps: WorldToolDeps): AgentToolLike {
  return tool<ReflectArgs>(deps, {
    name: "ocw_reflect",
    label: "Remember a reflection",
    description: `Store a reflection in your own world memory: what you concluded from what you saw and heard (e.g. "Ada answers questions about the garden"). It is kept with the world (snapshots, restarts) and comes back in ocw_heartbeat / ocw_observe with memory: N, weighted twice as much as plain episodes. Only you can write or read your memory. At most ${MEMORY_LIMITS.reflections} are kept; the least important old one goes first.`,
    parameters: Type.Object(
      {
        content: field<string>(ReflectRequest.shape.content, "The reflection, in your own words"),
        importance: field<number>(
          ReflectRequest.shape.importance,
          "How much this matters to you, 0..1 (0.9: a belief that should guide you)",
        ),
        topics: Type.Optional(
          Type.Unsafe<string[]>({
            ...fieldSchema(ReflectRequest.shape.topics, "Short tags, e.g. people, garden"),
            // The contract refuses repeated topics (a refinement JSON Schema says this way).
            uniqueItems: true,
          }),
        ),
        sources: Type.Optional(
          field<string[]>(
            ReflectRequest.shape.sources,
            "Cursors of the events (from ocw_poll_events) this reflection is drawn from",
          ),
        ),
        roomId: Type.Optional(RoomId),
        txId: Type.Optional(TxId),
      },
      { additionalProperties: false },
    ),
    async run(args, call) {
      const txId = args.txId ?? txIdForToolCall("ocw_reflect", call.toolCallId);
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
        args.roomId,
        call,
      );
      return { text: formatReflection(data), details: data };
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
} as const;
