// The one door into the world. HTTP (src/http/aic), the in-process tools and WebSocket humans all
// come through here: `call` serves every row of the ENDPOINTS table (endpoints.ts) by one path —
// admission (admission.ts), then the row's read answer or its action (action-path.ts) — and `act`
// takes a human's action down the same action path. What adapters may read is `reads`.
import type * as z from "zod";
import type { WorldRuntime } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";
import type { WorldApi } from "../world/types.ts";
import { ActionPath, type AicClock, realClock } from "./action-path.ts";
import {
  type ActActionT,
  type ActData,
  type ActionExtras,
  type Actor,
  type AppliedAt,
  guardsFrom,
  humanTxKey,
  payloadHash,
  txKey,
} from "./actions.ts";
import {
  type Admission,
  type AgentDirectory,
  admit,
  agentRateKey,
  noSuchRoom,
  RateGate,
} from "./admission.ts";
import { ContextTokens } from "./context-token.ts";
import {
  ENDPOINTS,
  type EndpointData,
  type EndpointName,
  type EndpointRow,
  type ReadContext,
} from "./endpoints.ts";
import { type AicResult, ok } from "./errors.ts";
import { EventFeed, type EventFeedLimits, type EventSubscription } from "./event-feed.ts";
import { TickCache } from "./observe.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { type WorldReads, worldReads } from "./reads.ts";
import { type AicStatus, EventStreamQuery, type ExpectT } from "./schemas.ts";

export { LONG_POLL_MIN_INTERVAL_MS } from "./event-feed.ts";
export type { ActActionT, ActData, Actor, AicClock, EventSubscription };

export interface AicServiceDeps {
  runtime: WorldRuntime;
  /** Provisioned agents (PRD 14: pre-provisioned agentIds). */
  agents: AgentDirectory;
  limiter: RateLimiter;
  /** Wall-clock timers for long-polls and action timeouts (never fed into the world). */
  clock?: AicClock;
  /** How long an action may wait for its tick before answering `timeout` (the input may still apply;
   * retrying with the same txId returns its real result). Default 10 s. */
  actionTimeoutMs?: number;
  /** Signs heartbeat context tokens; a fresh random key per service when omitted. */
  contextTokens?: ContextTokens;
  /** Parked long-polls and open event streams, per agent and in all (event-feed.ts defaults). */
  eventFeedLimits?: EventFeedLimits;
  /** Told of every request `call` answered, and of every tool call the gateway blocked (the
   * operator's record of an agent's turns beside the replay). Never awaited. */
  onCall?: (record: CallRecord) => void;
  /** Told of every call before it is served (by the agent it is for); what it returns is waited for
   * first (quiet-agents.ts: an agent that left for its silence rejoins where it stood). A failure
   * there does not fail the call. */
  beforeCall?: (caller: string, endpoint: string) => Promise<void> | undefined;
}

/** A request as served: who asked what, the answer (or the refusal), how long it took, and the
 * world's tick and simulation time: for an action the tick that applied it, else when answered. */
export interface CallRecord {
  caller: string;
  endpoint: string;
  request: unknown;
  /** The answer as served; a blocked tool call's is the gateway's refusal. */
  answer: AicResult<unknown> | { status: "blocked"; reason: string };
  ms: number;
  tick: number;
  time: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** The request exactly as its bytes arrived (HTTP passes the body text). A read that gives the same
   * answer to the same question within a tick uses it to answer a repeat without building it again. */
  requestText?: string;
}

/** A human's action's options: its abort signal and the browser's transaction id. */
export interface ActOptions {
  signal?: AbortSignal;
  txId?: string;
}

/** How many distinct same-tick questions one tick remembers (memory bound; beyond it, no caching). */
const SAME_TICK_ANSWERS = 4096;

export class AicService {
  private readonly runtime: WorldRuntime;
  private readonly agents: AgentDirectory;
  readonly limiter: RateLimiter;
  /** What adapters may read of the world (no writes: those are actions). */
  readonly reads: WorldReads;
  private readonly rates: RateGate;
  private readonly actions: ActionPath;
  private readonly feed: EventFeed;
  private readonly context: ReadContext;
  /** This tick's answers by caller and request text (rows with `sameAnswerWithinTick`). */
  private readonly sameTick = new TickCache<AicResult<unknown>>(SAME_TICK_ANSWERS);
  private readonly onCall: ((record: CallRecord) => void) | undefined;
  private readonly beforeCall: AicServiceDeps["beforeCall"];

  constructor(deps: AicServiceDeps) {
    this.runtime = deps.runtime;
    this.agents = deps.agents;
    this.limiter = deps.limiter;
    this.onCall = deps.onCall;
    this.beforeCall = deps.beforeCall;
    this.reads = worldReads(deps.runtime);
    this.rates = new RateGate(deps.limiter);
    const clock = deps.clock ?? realClock;
    this.actions = new ActionPath(deps.runtime, this.rates, clock, deps.actionTimeoutMs ?? 10_000);
    this.feed = new EventFeed(deps.runtime, clock, deps.eventFeedLimits);
    const contextTokens = deps.contextTokens ?? new ContextTokens();
    this.context = {
      world: () => this.world,
      contextTokens,
      feed: this.feed,
      embedded: (caller, endpoint, body, signal) => this.call(endpoint, caller, body, { signal }),
    };
  }

  private get world(): WorldApi {
    return this.runtime.world;
  }

  /** Ends every parked long-poll and stream read now (the world is stopping); see EventFeed.close. */
  close(): void {
    this.feed.close();
  }

  /** Whether the world is ticking, so an action would be applied. */
  get running(): boolean {
    return this.runtime.running;
  }

  /** The room an agent is in now, if it is in one. */
  roomOf(agentId: string): string | undefined {
    return this.reads.getEntity(agentEntityId(agentId))?.roomId;
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

  /** Whether `agentId` is waiting on the world now (a parked long-poll, an open event stream). */
  listening(agentId: string): boolean {
    return this.feed.listening(agentId);
  }

  /** One request to an endpoint, by `caller` (the agentId its credential stands for). */
  call<N extends EndpointName>(
    name: N,
    caller: string,
    body: unknown,
    opts: CallOptions = {},
  ): Promise<AicResult<EndpointData<N>>> {
    const first = this.beforeCall?.(caller, name);
    if (first) return first.catch(() => undefined).then(() => this.answer(name, caller, body, opts));
    return this.answer(name, caller, body, opts);
  }

  private answer<N extends EndpointName>(
    name: N,
    caller: string,
    body: unknown,
    opts: CallOptions,
  ): Promise<AicResult<EndpointData<N>>> {
    const row: EndpointRow = ENDPOINTS[name];
    if (!this.onCall) return this.serve(row, caller, body, opts) as Promise<AicResult<EndpointData<N>>>;
    const started = performance.now();
    let applied: AppliedAt | undefined;
    const answer = this.serve(row, caller, body, opts, (at) => {
      applied = at;
    });
    return answer.then((served) => {
      this.tell(caller, name, body, served, performance.now() - started, applied);
      return served;
    }) as Promise<AicResult<EndpointData<N>>>;
  }

  private serve(
    row: EndpointRow,
    caller: string,
    body: unknown,
    opts: CallOptions,
    onApplied?: (at: AppliedAt) => void,
  ): Promise<AicResult<unknown>> {
    return row.kind === "read"
      ? this.read(row, caller, body, opts)
      : this.perform(row, caller, body, opts, onApplied);
  }

  /** A tool call the gateway's policy blocked before it reached here (the before_tool_call hook):
   * told to the record like a request refused. */
  noteBlocked(caller: string, tool: string, params: unknown, reason: string): void {
    this.tell(caller, tool, params, { status: "blocked", reason }, 0);
  }

  private tell(
    caller: string,
    endpoint: string,
    request: unknown,
    answer: CallRecord["answer"],
    ms: number,
    applied?: AppliedAt,
  ) {
    if (!this.onCall) return;
    const at = applied ?? { tick: this.world.tick, time: this.world.serverTsMs };
    try {
      this.onCall({ caller, endpoint, request, answer, ms, ...at });
    } catch {
      // The record is the operator's aid: a failure there never changes an answer.
    }
  }

  /** One action by a human: the WebSocket's already-validated message and the actor it built. With
   * a `txId` (the browser's) it is idempotent like an agent's: a resend is answered, not applied. */
  act(actor: Actor, action: ActActionT, opts?: ActOptions): Promise<AicResult<ActData>> {
    const extras: ActionExtras = { signal: opts?.signal };
    if (action.kind !== "join" && action.roomId) extras.roomId = action.roomId;
    if (opts?.txId !== undefined)
      extras.tx = { key: humanTxKey(actor.entityId, opts.txId), payloadHash: payloadHash(action) };
    return this.actions.perform(actor, action, extras);
  }

  /** Open an event subscription (SSE). Without `sinceCursor` it starts at the room's latest event. */
  async subscribeEvents(caller: string, query: unknown): Promise<AicResult<EventSubscription>> {
    await this.beforeCall?.(caller, "pollEvents")?.catch(() => undefined);
    const pre = await this.admitRead(caller, query, EventStreamQuery, "pollEvents");
    if (!pre.ok) return pre.result;
    return this.feed.subscribe(pre.request, pre.actor);
  }

  private async read(
    row: Extract<EndpointRow, { kind: "read" }>,
    caller: string,
    body: unknown,
    opts: CallOptions,
  ): Promise<AicResult<unknown>> {
    // The world changes only on a tick (or when it is swapped between ticks), so the same caller
    // sending the same bytes within one tick gets the answer already built: admission would come out
    // the same (same caller, same request), and the rate limit is still taken for every request.
    const cacheKey =
      row.sameAnswerWithinTick && opts.requestText !== undefined
        ? `${caller}\n${opts.requestText}`
        : undefined;
    if (cacheKey !== undefined) {
      const cached = this.sameTick.get(this.world, this.world.tick, cacheKey);
      // (If a tick ran while the grant was saved, the answer is of the tick the request came in.)
      if (cached) return (await this.rates.read(agentRateKey(caller), row.rateClass)) ?? cached;
    }
    const pre = await this.admitRead(caller, body, row.request, row.rateClass);
    if (!pre.ok) return pre.result;
    // Admission waited for its grant to be saved: the answer is of the world as it is now.
    const world = this.world;
    const answer = await row.answer(this.context, world, pre.request, pre.actor, opts.signal);
    if (cacheKey !== undefined && answer.status === "ok")
      this.sameTick.set(world, world.tick, cacheKey, answer);
    return answer;
  }

  /** An action endpoint: admitted, turned into its action, down the action path. The answer repeats
   * the request's txId. */
  private async perform(
    row: Extract<EndpointRow, { kind: "action" }>,
    caller: string,
    body: unknown,
    opts: CallOptions,
    onApplied?: (at: AppliedAt) => void,
  ): Promise<AicResult<unknown>> {
    const pre = admit(this.agents, caller, body, row.request);
    if (!pre.ok) return pre.result;
    const request = pre.request as { agentId: string; roomId: string; txId?: string; expect?: ExpectT };
    const fields = row.toAction(request);
    if ("status" in fields) return fields;
    const action = { kind: row.actionKind, ...fields } as ActActionT;
    const extras = this.extrasOf(request, action, opts);
    if (onApplied) extras.onApplied = onApplied;
    const result = await this.actions.perform(pre.actor, action, extras);
    if (request.txId === undefined || result.status !== "ok") return result;
    return { status: "ok", data: { txId: request.txId, ...result.data } };
  }

  /** A join names the room it enters in its action; every other action acts in the request's room
   * (which the world checks), idempotently when the request has a txId. */
  private extrasOf(
    request: { agentId: string; roomId: string; txId?: string; expect?: ExpectT },
    action: ActActionT,
    opts: CallOptions,
  ): ActionExtras {
    const extras: ActionExtras = { signal: opts.signal };
    if (action.kind !== "join") extras.roomId = request.roomId;
    if (request.txId !== undefined) {
      extras.tx = {
        key: txKey(request.agentId, request.roomId, request.txId),
        payloadHash: payloadHash(request),
      };
    }
    const guards = request.expect ? guardsFrom(request.expect) : [];
    if (guards.length > 0) extras.guards = guards;
    return extras;
  }

  /** A read: admitted, rate-limited by its endpoint's class (its grant saved), in an existing room. */
  private async admitRead<S extends z.ZodType<{ agentId: string; roomId: string }>>(
    caller: string,
    body: unknown,
    schema: S,
    rateClass: string,
  ): Promise<Admission<z.output<S>>> {
    const pre = admit(this.agents, caller, body, schema);
    if (!pre.ok) return pre;
    const limited = await this.rates.read(pre.actor.rateKey, rateClass);
    if (limited) return { ok: false, result: limited };
    if (!this.world.definition.rooms[pre.request.roomId]) {
      return { ok: false, result: noSuchRoom(pre.request.roomId) };
    }
    return pre;
  }
}
