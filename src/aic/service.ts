// Transport-free AIC handlers. HTTP (src/http/aic/aic-app.ts), in-process tools and WebSocket humans
// all come through here, so validation, idempotency, guards and rate limits live in one place.
// Actions are queued on the WorldRuntime and answered after the tick that applied them.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type * as z from "zod";
import { RuntimeUnavailableError, type WorldRuntime } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";
import { type MemorySource, selectWorkingMemory } from "../world/memory.ts";
import { txPayloadMismatch } from "../world/tx-store.ts";
import type { EntityView, Guard, Input, InputResult, WorldApi, WorldEvent } from "../world/types.ts";
import { CONTEXT_TOKEN_TTL_MS, type ContextClaims, ContextTokens } from "./context-token.ts";
import { decodeCursor, decodeEventCursor, encodeCursor } from "./cursor.ts";
import { type AicResult, aicError, ok } from "./errors.ts";
import { envelopeOf } from "./event-envelope.ts";
import { computeDelta, regionActivity, suggestActions } from "./perception.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { type WorldReads, worldReads } from "./reads.ts";
import {
  type AicStatus,
  ChatObserveRequest,
  type ChatObserveResponse,
  ChatSendRequest,
  type ChatSendResponse,
  type EmbeddedActionT,
  type EntityBaseT,
  type EventEnvelopeT,
  EventStreamQuery,
  type ExpectT,
  HeartbeatRequest,
  type HeartbeatRequestT,
  type HeartbeatResponse,
  InteractRequest,
  type InteractResponse,
  JoinRequest,
  type JoinResponse,
  LeaveRequest,
  type LeaveResponse,
  MAX_AFFORDS,
  MAX_CHAT_MESSAGES,
  MAX_NEARBY,
  type MemoryEntryT,
  MoveToRequest,
  type MoveToResponse,
  type ObservedEntityT,
  ObserveRequest,
  type ObserveRequestT,
  type ObserveResponse,
  PollEventsRequest,
  type PollEventsResponse,
  ReflectRequest,
  type ReflectResponse,
  type TileCoordT,
} from "./schemas.ts";

export interface AicClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Monotonic milliseconds. */
  nowMs(): number;
}

/** A long-poll answers one agent at most this often: a poll that comes back sooner waits out the
 * rest (within its waitMs) and gets those ticks' events in one page. In a crowd there is an event for
 * everyone nearly every tick, so without it every long-polling agent became a loop at the speed of
 * its round trip (~6 requests a second each at 1,000 participants, the gateway's thread full of them).
 * The same pace as the default pollEvents rate (4/s), as waiting instead of refusals. */
export const LONG_POLL_MIN_INTERVAL_MS = 250;

const realClock: AicClock = {
  nowMs: () => performance.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface AicServiceDeps {
  runtime: WorldRuntime;
  /** Provisioned agents (PRD 14: pre-provisioned agentIds). */
  agents: (agentId: string) => { name: string } | undefined;
  limiter: RateLimiter;
  /** Wall-clock timers for long-polls and action timeouts (never fed into the world). */
  clock?: AicClock;
  /** How long an action may wait for its tick before answering `timeout` (the input may still apply;
   * retrying with the same txId returns its real result). Default 10 s. */
  actionTimeoutMs?: number;
  /** Signs heartbeat context tokens; a fresh random key per service when omitted. */
  contextTokens?: ContextTokens;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** The request exactly as its bytes arrived (HTTP passes the body text). Reads that give the same
   * answer for the same question within a tick use it to answer a repeat without building it again. */
  requestText?: string;
}

/** How many distinct observe questions one tick remembers (memory bound; beyond it, no caching). */
const OBSERVE_CACHE_ENTRIES = 4096;

export interface Actor {
  entityId: string;
  kind: "human" | "agent";
  name: string;
  /** Rate-limit identity: `agent:<agentId>` for agents, a session id for humans. */
  rateKey: string;
}

/** Transport-neutral actions: what a WebSocket human asks for (already validated by the protocol
 * schema, built from the same field schemas as the AIC requests) and what each agent endpoint
 * becomes once its request is admitted. */
export type ActActionT =
  | { kind: "join"; roomId?: string }
  | { kind: "leave" }
  | { kind: "moveTo"; dest: TileCoordT; roomId?: string }
  | { kind: "moveDir"; dx: number; dy: number }
  | { kind: "interact"; targetId: string; action: string; params?: Record<string, unknown> }
  | { kind: "chat"; channel: "proximity" | "global"; message: string }
  | {
      kind: "reflect";
      content: string;
      topics: string[];
      /** The request's cursors, decoded (the answer repeats them as given). */
      sources: MemorySource[];
      importance: number;
    };

export type ActData =
  | JoinResponse
  | LeaveResponse
  | { applied: boolean; serverTsMs: number; result: "accepted" | "rejected" | "no_op" }
  | { applied: boolean; serverTsMs: number }
  | { applied: boolean; serverTsMs: number; outcome: InteractResponse["outcome"] }
  | { applied: boolean; serverTsMs: number; chatMessageId: string }
  | Omit<ReflectResponse, "txId">;

interface ExecuteExtras {
  roomId?: string;
  tx?: { key: string; payloadHash: string };
  guards?: Guard[];
  signal?: AbortSignal;
}

/** Rate class per read endpoint (PRD 12 + DECISIONS.md); actions are limited by ACTION_RATE_CLASS. */
const READ_RATE_CLASS = {
  observe: "observe",
  pollEvents: "pollEvents",
  chatObserve: "chatObserve",
  eventStream: "pollEvents",
  heartbeat: "heartbeat",
} as const;

/** Rate class per action kind, the same for agents (moveTo, interact, chatSend, join, leave) and
 * humans (who also have moveDir). */
const ACTION_RATE_CLASS: Record<ActActionT["kind"], string> = {
  join: "session",
  leave: "session",
  moveTo: "action",
  interact: "action",
  moveDir: "moveDir",
  chat: "chatSend",
  reflect: "reflect",
};

/** The event subscription behind SSE: reads continue from where the last read ended. */
export interface EventSubscription {
  readonly roomId: string;
  readonly cursor: string;
  next(waitMs: number, signal?: AbortSignal): Promise<AicResult<PollEventsResponse>>;
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

export class AicService {
  private readonly runtime: WorldRuntime;
  private readonly agents: AicServiceDeps["agents"];
  readonly limiter: RateLimiter;
  /** What adapters may read of the world (no writes: those are actions). */
  readonly reads: WorldReads;
  private readonly clock: AicClock;
  /** When each agent's last long-poll was answered (LONG_POLL_MIN_INTERVAL_MS); one entry per agent. */
  private readonly lastLongPollAt = new Map<string, number>();
  private readonly actionTimeoutMs: number;
  private readonly contextTokens: ContextTokens;
  /** This tick's observe answers by caller and request text (see `observe`). */
  private readonly observeCache = new TickCache<AicResult<ObserveResponse>>(OBSERVE_CACHE_ENTRIES);

  constructor(deps: AicServiceDeps) {
    this.runtime = deps.runtime;
    this.agents = deps.agents;
    this.limiter = deps.limiter;
    this.reads = worldReads(deps.runtime);
    this.clock = deps.clock ?? realClock;
    this.actionTimeoutMs = deps.actionTimeoutMs ?? 10_000;
    this.contextTokens = deps.contextTokens ?? new ContextTokens();
  }

  private get world(): WorldApi {
    return this.runtime.world;
  }

  /** Whether the world is ticking, so an action would be applied. */
  get running(): boolean {
    return this.runtime.running;
  }

  /** `GET /status`: public liveness (no caller needed). When the service is not running, the plugin
   * route answers 503 before this is reached. */
  status(): AicResult<AicStatus> {
    const definition = this.reads.definition;
    return ok({
      aicVersion: "0.1",
      running: true,
      world: definition.name.slice(0, 64) || "world",
      rooms: Object.keys(definition.rooms).slice(0, 100),
      tickRate: definition.tickRate,
      serverTsMs: this.reads.serverTsMs,
    });
  }

  // ---- agent endpoints ----------------------------------------------------------------------

  async observe(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<ObserveResponse>> {
    // The world changes only on a tick (or when it is swapped between ticks), so the same caller
    // sending the same bytes within one tick gets the answer already built: admission would come out
    // the same (same caller, same request), and the rate limit is still taken for every request.
    const cacheKey = opts?.requestText === undefined ? undefined : `${caller}\n${opts.requestText}`;
    if (cacheKey !== undefined) {
      const cached = this.observeCache.get(this.world, this.world.tick, cacheKey);
      // (If a tick ran while the grant was saved, the answer is of the tick the request came in.)
      if (cached) return (await this.rateLimitRead(agentRateKey(caller), READ_RATE_CLASS.observe)) ?? cached;
    }
    const pre = await this.admitRead(caller, body, ObserveRequest, READ_RATE_CLASS.observe);
    if (!pre.ok) return pre.result;
    // Admission waited for its grant to be saved: the answer is of the world as it is now.
    const world = this.world;
    const answer = this.observeNow(pre.request, pre.actor);
    if (cacheKey !== undefined && answer.status === "ok")
      this.observeCache.set(world, world.tick, cacheKey, answer);
    return answer;
  }

  /** The answer to an admitted observe. */
  private observeNow(request: ObserveRequestT, actor: Actor): AicResult<ObserveResponse> {
    const self = this.world.getEntity(actor.entityId);
    if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
    const room = this.world.definition.rooms[request.roomId]!;
    const full = request.detail === "full";
    const nearby: ObservedEntityT[] = [];
    // One more than the answer holds: the caller itself may be among the nearest.
    for (const hit of this.world.queryRadius(request.roomId, self.pos, request.radius, MAX_NEARBY + 1)) {
      if (!request.includeSelf && hit.entity.id === self.id) continue;
      if (nearby.length >= MAX_NEARBY) break;
      nearby.push(this.observed(hit.entity, hit.distance, full));
    }
    const data: ObserveResponse = {
      self: entityBase(self, full),
      nearby,
      serverTsMs: this.world.serverTsMs,
      room: { roomId: room.roomId, mapId: room.mapId, tickRate: this.world.definition.tickRate },
    };
    if (request.memory !== undefined) data.memory = this.workingMemory(actor.entityId, request.memory);
    return ok(data);
  }

  async moveTo(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<MoveToResponse>> {
    const pre = this.admit(caller, body, MoveToRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const result = await this.perform(
      actor,
      { kind: "moveTo", dest: request.dest },
      this.txExtras(request, request.expect, opts),
    );
    return withTxId(request.txId, result) as AicResult<MoveToResponse>;
  }

  async interact(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<InteractResponse>> {
    const pre = this.admit(caller, body, InteractRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const action: ActActionT = { kind: "interact", targetId: request.targetId, action: request.action };
    if (request.params) action.params = request.params;
    const result = await this.perform(actor, action, this.txExtras(request, request.expect, opts));
    return withTxId(request.txId, result) as AicResult<InteractResponse>;
  }

  async chatSend(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<ChatSendResponse>> {
    const pre = this.admit(caller, body, ChatSendRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const result = await this.perform(
      actor,
      { kind: "chat", channel: request.channel, message: request.message },
      this.txExtras(request, request.expect, opts),
    );
    return withTxId(request.txId, result) as AicResult<ChatSendResponse>;
  }

  async chatObserve(
    caller: string,
    body: unknown,
    _opts?: CallOptions,
  ): Promise<AicResult<ChatObserveResponse>> {
    const pre = await this.admitRead(caller, body, ChatObserveRequest, READ_RATE_CLASS.chatObserve);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const self = this.world.getEntity(actor.entityId);
    if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
    const now = this.world.serverTsMs;
    const records = this.world.chatFor(
      actor.entityId,
      request.roomId,
      Math.max(0, now - request.windowSec * 1000),
      request.channel,
    );
    const messages = records.slice(-MAX_CHAT_MESSAGES).map((m) => ({
      id: m.id,
      roomId: m.roomId,
      channel: m.channel,
      fromEntityId: m.fromEntityId,
      fromName: m.fromName,
      message: m.message,
      tsMs: m.tsMs,
    }));
    return ok({ messages, serverTsMs: now });
  }

  async pollEvents(
    caller: string,
    body: unknown,
    opts?: CallOptions,
  ): Promise<AicResult<PollEventsResponse>> {
    const pre = await this.admitRead(caller, body, PollEventsRequest, READ_RATE_CLASS.pollEvents);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const position = decodeCursor(request.sinceCursor, request.roomId);
    if (!position.ok) {
      return aicError("bad_request", `invalid sinceCursor: ${position.reason}`, { field: "sinceCursor" });
    }
    return this.readEvents(actor.entityId, request.agentId, request.roomId, position.position.afterSeq, {
      limit: request.limit,
      waitMs: request.waitMs,
      signal: opts?.signal,
    });
  }

  async join(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<JoinResponse>> {
    const pre = this.admit(caller, body, JoinRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    return this.perform(actor, { kind: "join", roomId: request.roomId }, { signal: opts?.signal }) as Promise<
      AicResult<JoinResponse>
    >;
  }

  async leave(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<LeaveResponse>> {
    const pre = this.admit(caller, body, LeaveRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    return this.perform(
      actor,
      { kind: "leave" },
      { roomId: request.roomId, signal: opts?.signal },
    ) as Promise<AicResult<LeaveResponse>>;
  }

  /** `POST /memory/reflect` (issue #12): a reflection into the caller's own memory. Only the caller's
   * agentId is admitted (forbidden otherwise), so no agent can write another's memory. It is an
   * action: idempotent by txId, applied by the next tick, durable like every input. */
  async reflect(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<ReflectResponse>> {
    const pre = this.admit(caller, body, ReflectRequest);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const sources: MemorySource[] = [];
    for (const [index, cursor] of request.sources.entries()) {
      const decoded = decodeEventCursor(cursor);
      if (!decoded.ok || decoded.position.afterSeq < 1) {
        const reason = decoded.ok ? "it names no event" : decoded.reason;
        return aicError("bad_request", `invalid sources.${index}: ${reason}`, { field: `sources.${index}` });
      }
      sources.push({ roomId: decoded.position.roomId, seq: decoded.position.afterSeq });
    }
    const result = await this.perform(
      actor,
      {
        kind: "reflect",
        content: request.content,
        topics: request.topics,
        sources,
        importance: request.importance,
      },
      this.txExtras(request, undefined, opts),
    );
    return withTxId(request.txId, result) as AicResult<ReflectResponse>;
  }

  /** The caller's own working memory (never another agent's: the entity is the admitted actor's). */
  private workingMemory(entityId: string, limit: number): MemoryEntryT[] {
    const memory = this.world.memoryOf(entityId);
    if (!memory) return [];
    return selectWorkingMemory(memory, this.world.serverTsMs, limit).map((entry) =>
      entry.kind === "reflection"
        ? {
            kind: "reflection",
            id: entry.id,
            tsMs: entry.tsMs,
            content: entry.content,
            topics: entry.topics,
            importance: entry.importance,
          }
        : { kind: "episode", id: entry.id, tsMs: entry.tsMs, what: entry.what, text: entry.text },
    );
  }

  /** One wake-up (issue #12): the delta since the context token's position, suggestions, a fresh
   * token, and optionally one embedded action. The action goes through the public handler of the
   * endpoint it stands for (moveTo / interact / chatSend) with the body that endpoint would get, so
   * it shares that endpoint's validation, rate class and idempotency key; a heartbeat without an
   * action submits nothing to the world. */
  async heartbeat(caller: string, body: unknown, opts?: CallOptions): Promise<AicResult<HeartbeatResponse>> {
    const pre = await this.admitRead(caller, body, HeartbeatRequest, READ_RATE_CLASS.heartbeat);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const self = this.world.getEntity(actor.entityId);
    if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
    let claims: ContextClaims | undefined;
    let reset: "expired" | "invalid" | undefined;
    if (request.contextToken !== undefined) {
      const check = this.contextTokens.check(
        request.contextToken,
        request.agentId,
        request.roomId,
        this.world.serverTsMs,
      );
      if (check.ok && check.claims.afterSeq <= this.world.latestSeq(request.roomId)) claims = check.claims;
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
    } else if (request.action) {
      return aicError("bad_request", "an embedded action needs the contextToken of a previous heartbeat", {
        field: "contextToken",
      });
    }
    let moveDest = claims?.moveDest;
    let action: HeartbeatResponse["action"];
    if (request.action) {
      const answered = await this.embedded(caller, request, request.action, opts);
      action = answered as HeartbeatResponse["action"];
      if (request.action.kind === "moveTo" && answered.status === "ok") {
        const moved = answered.data as MoveToResponse;
        moveDest = moved.result === "accepted" ? request.action.dest : undefined;
      }
    }
    const now = this.world.serverTsMs;
    // An embedded interact may have carried the agent through a portal: perceive where it is now.
    const after = this.world.getEntity(actor.entityId);
    const roomId = after?.roomId ?? request.roomId;
    const sameRoom = roomId === request.roomId && claims !== undefined;
    const { delta, nextSeq } = sameRoom
      ? computeDelta(this.world, actor.entityId, roomId, claims!.afterSeq, moveDest)
      : computeDelta(this.world, actor.entityId, roomId, this.world.latestSeq(roomId), moveDest);
    const expiresAtMs = now + CONTEXT_TOKEN_TTL_MS;
    const contextToken = this.contextTokens.issue({
      agentId: request.agentId,
      roomId,
      afterSeq: nextSeq,
      issuedTsMs: now,
      expiresAtMs,
      ...(moveDest && delta.move?.status !== "arrived" ? { moveDest } : {}),
    });
    const tile = after?.tile ?? self.tile;
    const { region, signals } = regionActivity(this.world, actor.entityId);
    const data: HeartbeatResponse = {
      self: {
        roomId,
        ...(region ? { region } : {}),
        tile: { tx: tile.tx, ty: tile.ty },
        moving: ((after ?? self).speed ?? 0) > 0,
      },
      delta,
      ...(signals ? { signals } : {}),
      suggestions: suggestActions(this.world, actor.entityId, delta),
      contextToken,
      expiresAtMs,
      serverTsMs: now,
    };
    if (reset) data.reset = reset;
    if (request.memory !== undefined) data.memory = this.workingMemory(actor.entityId, request.memory);
    if (action) data.action = action;
    return ok(data);
  }

  /** The embedded action as the request of the endpoint it stands for. */
  private embedded(
    caller: string,
    request: HeartbeatRequestT,
    action: EmbeddedActionT,
    opts: CallOptions | undefined,
  ): Promise<AicResult<unknown>> {
    const base = { agentId: request.agentId, roomId: request.roomId, txId: action.txId };
    switch (action.kind) {
      case "moveTo":
        return this.moveTo(caller, { ...base, dest: action.dest }, opts);
      case "interact":
        return this.interact(
          caller,
          {
            ...base,
            targetId: action.targetId,
            action: action.action,
            ...(action.params ? { params: action.params } : {}),
          },
          opts,
        );
      case "chatSend":
        return this.chatSend(caller, { ...base, channel: action.channel, message: action.message }, opts);
    }
  }

  /** Open an event subscription (SSE). Without `sinceCursor` it starts at the room's latest event. */
  async subscribeEvents(caller: string, query: unknown): Promise<AicResult<EventSubscription>> {
    const pre = await this.admitRead(caller, query, EventStreamQuery, READ_RATE_CLASS.eventStream);
    if (!pre.ok) return pre.result;
    const { request, actor } = pre;
    const self = this.world.getEntity(actor.entityId);
    if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
    let afterSeq = this.world.latestSeq(request.roomId);
    if (request.sinceCursor !== undefined) {
      const position = decodeCursor(request.sinceCursor, request.roomId);
      if (!position.ok)
        return aicError("bad_request", `invalid cursor: ${position.reason}`, { field: "sinceCursor" });
      afterSeq = position.position.afterSeq;
    }
    const service = this;
    const roomId = request.roomId;
    const subscription: EventSubscription = {
      roomId,
      get cursor() {
        return encodeCursor(roomId, afterSeq);
      },
      async next(waitMs, signal) {
        const result = await service.readEvents(actor.entityId, request.agentId, roomId, afterSeq, {
          limit: 200,
          waitMs,
          signal,
        });
        if (result.status === "ok") {
          const position = decodeCursor(result.data.nextCursor, roomId);
          if (position.ok) afterSeq = position.position.afterSeq;
        }
        return result;
      },
    };
    return ok(subscription);
  }

  // ---- the shared action path -----------------------------------------------------------------

  /** One action by a human: the WebSocket's already-validated message and the actor it built. */
  act(actor: Actor, action: ActActionT, opts?: CallOptions): Promise<AicResult<ActData>> {
    const extras: ExecuteExtras = { signal: opts?.signal };
    if (action.kind === "moveTo" && action.roomId) extras.roomId = action.roomId;
    return this.perform(actor, action, extras);
  }

  /** The one way into an action, for agent endpoints (after admission) and humans (act): rate limit
   * by action kind under `actor.rateKey`, check the named room exists, then submit and await. */
  private async perform(
    actor: Actor,
    action: ActActionT,
    extras: ExecuteExtras,
  ): Promise<AicResult<ActData>> {
    const limited = this.rateLimit(actor.rateKey, ACTION_RATE_CLASS[action.kind]);
    if (limited) return limited;
    const roomId = extras.roomId ?? (action.kind === "join" ? action.roomId : undefined);
    const answer =
      roomId !== undefined && !this.world.definition.rooms[roomId]
        ? noSuchRoom(roomId)
        : await this.execute(actor, action, extras);
    // An answer that came with its tick was saved with it (the tick commit writes the buckets that
    // changed); one that did not (a replayed txId, no such room) must not leave before its grant is.
    return (await this.settleRateDecisions()) ?? answer;
  }

  private async execute(
    actor: Actor,
    action: ActActionT,
    extras: ExecuteExtras,
  ): Promise<AicResult<ActData>> {
    const world = this.world;
    if (extras.tx) {
      const stored = world.lookupTx(extras.tx.key);
      if (stored) {
        if (stored.payloadHash !== extras.tx.payloadHash) {
          const { code, message, details } = txPayloadMismatch();
          return aicError(code, message, details);
        }
        return mapResult(action, stored.result, extras, undefined);
      }
    }
    const input = buildInput(actor, action, extras);
    if (action.kind === "join") {
      const joinRoom = action.roomId ?? world.definition.defaultRoomId;
      if (!world.definition.rooms[joinRoom]) return noSuchRoom(joinRoom);
    }
    // No tick runs between submit() and the tick that applies the input, so this is the room's
    // position just before the join: the joiner's cursor.
    const seqBefore = action.kind === "join" ? latestSeqByRoom(world) : undefined;
    const roomBefore =
      action.kind === "leave" ? (world.getEntity(actor.entityId)?.roomId ?? extras.roomId) : undefined;
    let result: InputResult | "timeout";
    try {
      result = await this.awaitTick(this.runtime.submit(input), extras.signal);
    } catch (error) {
      if (error instanceof RuntimeUnavailableError) {
        return aicError(error.code, error.message);
      }
      throw error;
    }
    if (result === "timeout") {
      return aicError(
        "timeout",
        "the action was queued but not applied in time; retry with the same txId to learn its result",
      );
    }
    return mapResult(action, result, extras, { seqBefore, roomBefore });
  }

  private awaitTick(pending: Promise<InputResult>, signal?: AbortSignal): Promise<InputResult | "timeout"> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = () => {
        settled = true;
        this.clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        if (settled) return;
        done();
        resolve("timeout");
      };
      const timer = this.clock.setTimeout(onAbort, this.actionTimeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
      pending.then(
        (value) => {
          if (settled) return;
          done();
          resolve(value);
        },
        (error) => {
          if (settled) return;
          done();
          reject(error);
        },
      );
    });
  }

  // ---- events ---------------------------------------------------------------------------------

  private readEvents(
    entityId: string,
    agentId: string,
    roomId: string,
    afterSeq: number,
    options: { limit: number; waitMs: number; signal: AbortSignal | undefined },
  ): Promise<AicResult<PollEventsResponse>> {
    const self = this.world.getEntity(entityId);
    if (!self || self.roomId !== roomId) return Promise.resolve(notInRoom(agentId, roomId));
    const first = this.pageFor(entityId, roomId, afterSeq, options.limit);
    if (first.status === "error" || options.waitMs <= 0 || options.signal?.aborted) {
      return Promise.resolve(first);
    }
    const startedAt = this.clock.nowMs();
    const last = this.lastLongPollAt.get(agentId);
    const holdMs =
      last === undefined ? 0 : Math.min(last + LONG_POLL_MIN_INTERVAL_MS - startedAt, options.waitMs);
    if (first.data.events.length > 0 && holdMs <= 0) {
      this.lastLongPollAt.set(agentId, startedAt);
      return Promise.resolve(first);
    }
    // Park until a tick appends an event this agent may see (and its interval since the last answer
    // has passed), waitMs passes, or the caller goes away.
    return new Promise((resolve) => {
      let settled = false;
      let hold: unknown;
      const finish = (answer: AicResult<PollEventsResponse>) => {
        if (settled) return;
        settled = true;
        unsubscribe();
        this.clock.clearTimeout(timer);
        if (hold !== undefined) this.clock.clearTimeout(hold);
        options.signal?.removeEventListener("abort", onAbort);
        this.lastLongPollAt.set(agentId, this.clock.nowMs());
        resolve(answer);
      };
      const answerNow = () => finish(this.pageFor(entityId, roomId, afterSeq, options.limit));
      const onAbort = answerNow;
      /** Events are there: answer now, or once the agent's interval has passed. */
      const ready = () => {
        const wait = startedAt + holdMs - this.clock.nowMs();
        if (wait <= 0) answerNow();
        else hold ??= this.clock.setTimeout(answerNow, wait);
      };
      const unsubscribe = this.runtime.onTick((info) => {
        if (hold !== undefined) return;
        if (!info.events.some((event: WorldEvent) => event.roomId === roomId && event.seq > afterSeq)) return;
        const page = this.pageFor(entityId, roomId, afterSeq, options.limit);
        if (page.status === "error") finish(page);
        else if (page.data.events.length > 0) ready();
      });
      const timer = this.clock.setTimeout(onAbort, options.waitMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (first.data.events.length > 0) ready();
    });
  }

  private pageFor(
    entityId: string,
    roomId: string,
    afterSeq: number,
    limit: number,
  ): AicResult<PollEventsResponse> {
    const latest = this.world.latestSeq(roomId);
    if (afterSeq > latest) {
      // A position this world never reached: the cursor comes from a timeline the operator rolled
      // back (restore). Continuing from it would silently skip the events that reuse its numbers.
      return aicError("conflict", "sinceCursor is ahead of this room's event log (the world was restored)", {
        reason: "cursor_expired",
        nextCursor: encodeCursor(roomId, latest),
        droppedCount: 0,
      });
    }
    const page = this.world.eventsFor(entityId, roomId, afterSeq, limit);
    if (page.expired) {
      return aicError(
        "conflict",
        "sinceCursor is older than the retained event window; events were dropped",
        {
          reason: "cursor_expired",
          nextCursor: encodeCursor(roomId, Math.max(0, page.expired.oldestRetainedSeq - 1)),
          droppedCount: page.expired.droppedCount,
        },
      );
    }
    const events: EventEnvelopeT[] = page.events.map(envelopeOf);
    return ok({ events, nextCursor: encodeCursor(roomId, page.nextSeq), serverTsMs: this.world.serverTsMs });
  }

  // ---- admission: validate, scope, rate limit -------------------------------------------------

  /** A read: admitted, rate-limited by its endpoint's class (its grant saved), in an existing room. */
  private async admitRead<S extends z.ZodType<{ agentId: string; roomId: string }>>(
    caller: string,
    body: unknown,
    schema: S,
    rateClass: string,
  ): Promise<Admission<z.output<S>>> {
    const pre = this.admit(caller, body, schema);
    if (!pre.ok) return pre;
    const limited = await this.rateLimitRead(pre.actor.rateKey, rateClass);
    if (limited) return { ok: false, result: limited };
    if (!this.world.definition.rooms[pre.request.roomId]) {
      return { ok: false, result: noSuchRoom(pre.request.roomId) };
    }
    return pre;
  }

  /** A valid request, for the caller's own agentId, by a provisioned agent: who acts, and what. */
  private admit<S extends z.ZodType<{ agentId: string; roomId: string }>>(
    caller: string,
    body: unknown,
    schema: S,
  ): Admission<z.output<S>> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) return { ok: false, result: badRequest(parsed.error, body) };
    const request = parsed.data;
    if (request.agentId !== caller) {
      return {
        ok: false,
        result: aicError("forbidden", "this credential may only act for its own agentId", {
          agentId: request.agentId,
        }),
      };
    }
    const agent = this.agents(request.agentId);
    if (!agent) {
      return { ok: false, result: aicError("forbidden", `agent "${request.agentId}" is not provisioned`) };
    }
    const actor: Actor = {
      entityId: agentEntityId(request.agentId),
      kind: "agent",
      name: agent.name,
      rateKey: agentRateKey(request.agentId),
    };
    return { ok: true, request, actor };
  }

  /** Waits until the limiter's grants so far are durable (a store is wired in; one write for all the
   * requests of an event-loop turn); an error answer if they cannot be saved. */
  private async settleRateDecisions(): Promise<AicResult<never> | undefined> {
    try {
      await this.limiter.settled();
      return undefined;
    } catch {
      return aicError("internal", "the world could not save this request's rate-limit state; retry");
    }
  }

  /** The rate limit of a read: answered now, not after a tick, so its grant is saved before the answer. */
  private async rateLimitRead(rateKey: string, rateClass: string): Promise<AicResult<never> | undefined> {
    return this.rateLimit(rateKey, rateClass) ?? (await this.settleRateDecisions());
  }

  private rateLimit(rateKey: string, rateClass: string): AicResult<never> | undefined {
    const decision = this.limiter.take(rateKey, rateClass);
    if (decision.allowed) return undefined;
    return aicError("rate_limited", `rate limit exceeded for ${rateClass}`, {
      retryAfterMs: decision.retryAfterMs,
      rateClass,
    });
  }

  private txExtras(
    request: { agentId: string; roomId: string; txId: string },
    expect: ExpectT | undefined,
    opts: CallOptions | undefined,
  ): ExecuteExtras {
    const extras: ExecuteExtras = {
      roomId: request.roomId,
      tx: {
        key: txKey(request.agentId, request.roomId, request.txId),
        payloadHash: payloadHash(request as Record<string, unknown>),
      },
      signal: opts?.signal,
    };
    const guards = expect ? guardsFrom(expect) : [];
    if (guards.length > 0) extras.guards = guards;
    return extras;
  }

  private observed(view: EntityView, distance: number, full: boolean): ObservedEntityT {
    const entry: ObservedEntityT = {
      entity: entityBase(view, full),
      distance: clampDistance(distance),
      affords: [],
    };
    if (view.kind === "object") {
      const object = this.world.objectView(view.id);
      if (object) {
        entry.affords = object.affords.slice(0, MAX_AFFORDS).map((a) => ({ ...a }));
        if (full) entry.object = { objectType: object.objectType, state: object.state };
      }
    }
    return entry;
  }
}

function agentRateKey(agentId: string): string {
  return `agent:${agentId}`;
}

/** Values that hold for one tick of one world: cleared when either moves on. Bounded. */
class TickCache<V> {
  private world: unknown;
  private tick = -1;
  private readonly entries = new Map<string, V>();
  private readonly maxEntries: number;
  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  get(world: unknown, tick: number, key: string): V | undefined {
    if (world !== this.world || tick !== this.tick) return undefined;
    return this.entries.get(key);
  }

  set(world: unknown, tick: number, key: string, value: V): void {
    if (world !== this.world || tick !== this.tick) {
      this.world = world;
      this.tick = tick;
      this.entries.clear();
    }
    if (this.entries.size < this.maxEntries) this.entries.set(key, value);
  }
}

type Admission<R> = { ok: true; request: R; actor: Actor } | { ok: false; result: AicResult<never> };

function noSuchRoom(roomId: string): AicResult<never> {
  return aicError("not_found", `room "${roomId}" does not exist`);
}

function entityBase(view: EntityView, full: boolean): EntityBaseT {
  const base: EntityBaseT = {
    id: view.id,
    kind: view.kind,
    name: view.name,
    roomId: view.roomId,
    pos: { x: view.pos.x, y: view.pos.y },
    tile: { tx: view.tile.tx, ty: view.tile.ty },
    facing: view.facing,
  };
  if (view.speed !== undefined) base.speed = view.speed;
  if (full && view.meta !== undefined) base.meta = view.meta;
  return base;
}

function clampDistance(distance: number): number {
  return Math.min(1_000_000, Math.max(0, distance));
}

function guardsFrom(expect: ExpectT): Guard[] {
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
  return guards;
}

function buildInput(actor: Actor, action: ActActionT, extras: ExecuteExtras): Input {
  const base = {
    entityId: actor.entityId,
    ...(extras.roomId ? { roomId: extras.roomId } : {}),
    ...(extras.tx ? { tx: extras.tx } : {}),
    ...(extras.guards ? { guards: extras.guards } : {}),
  };
  switch (action.kind) {
    case "join":
      return {
        ...base,
        kind: "join",
        actorKind: actor.kind,
        name: actor.name,
        ...(action.roomId ? { joinRoomId: action.roomId } : {}),
      };
    case "leave":
      return { ...base, kind: "leave", reason: "disconnect" };
    case "moveTo":
      return { ...base, kind: "moveTo", dest: { tx: action.dest.tx, ty: action.dest.ty } };
    case "moveDir":
      return { ...base, kind: "moveDir", dx: action.dx, dy: action.dy };
    case "interact":
      return {
        ...base,
        kind: "interact",
        targetId: action.targetId,
        action: action.action,
        ...(action.params ? { params: action.params } : {}),
      };
    case "chat":
      return { ...base, kind: "chat", channel: action.channel, message: action.message };
    case "reflect":
      return {
        ...base,
        kind: "reflect",
        content: action.content,
        topics: [...action.topics],
        sources: action.sources.map((s) => ({ roomId: s.roomId, seq: s.seq })),
        importance: action.importance,
      };
  }
}

function latestSeqByRoom(world: WorldApi): Map<string, number> {
  const seqs = new Map<string, number>();
  for (const roomId of Object.keys(world.definition.rooms)) seqs.set(roomId, world.latestSeq(roomId));
  return seqs;
}

/** The AIC answer for a world result. A pure function of the stored result, so a replayed txId
 * produces byte-identical JSON (the `replayed` flag is deliberately not reflected). */
function mapResult(
  action: ActActionT,
  result: InputResult,
  extras: ExecuteExtras,
  context: { seqBefore: Map<string, number> | undefined; roomBefore: string | undefined } | undefined,
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
      });
    case "leave":
      return ok({ entityId: value.entityId, roomId: context?.roomBefore ?? extras.roomId ?? "", serverTsMs });
    case "moveTo":
      return ok({ applied: value.result === "accepted", serverTsMs, result: value.result });
    case "moveDir":
      return ok({ applied: true, serverTsMs });
    case "interact":
      return ok({
        applied: value.outcome.type === "ok" || value.outcome.type === "no_effect",
        serverTsMs,
        outcome: { ...value.outcome },
      });
    case "chat":
      return ok({ applied: true, serverTsMs, chatMessageId: value.chatMessageId });
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
  }
  return aicError("internal", `unexpected world result for ${action.kind}`);
}

function withTxId(txId: string, result: AicResult<ActData>): AicResult<unknown> {
  return result.status === "ok" ? { status: "ok", data: { txId, ...result.data } } : result;
}

function notInRoom(agentId: string, roomId: string): AicResult<never> {
  return aicError("agent_not_in_room", `agent "${agentId}" is not in room "${roomId}"; call join first`, {
    agentId,
    roomId,
  });
}

const MAX_ISSUES = 10;

/** The bad_request answer for a failed parse. `input` (what was parsed) lets a missing required field
 * say so, instead of reading like a wrong value ("expected one of ..." for an absent `detail`). */
export function badRequest(error: z.ZodError, input?: unknown): AicResult<never> {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const text = issue.message.slice(0, 200);
    return {
      // An offending key may itself be ill-formed text: the answer never echoes a lone surrogate.
      path: path.join(".").toWellFormed(),
      code: issue.code,
      message: isMissing(input, path) ? `required field is missing (${text})` : text,
    };
  });
  const first = issues[0];
  const message = first ? `invalid request: ${first.path || "(body)"}: ${first.message}` : "invalid request";
  return aicError("bad_request", message, { issues });
}

/** Whether `path` names a key absent from an object that is present in `input`. */
function isMissing(input: unknown, path: (string | number)[]): boolean {
  if (path.length === 0) return false;
  let node: unknown = input;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return typeof node === "object" && node !== null && !Object.hasOwn(node, path[path.length - 1]!);
}
