// The event feed (PRD 9.3): pages of the events an agent may perceive after a cursor, a long-poll
// that parks until a tick appends one (pollEvents with waitMs), and the subscription SSE reads from.
import type { WorldRuntime } from "../runtime/world-runtime.ts";
import type { WorldEvent } from "../world/types.ts";
import type { AicClock } from "./action-path.ts";
import type { Actor } from "./actions.ts";
import { notInRoom } from "./admission.ts";
import { type CursorPosition, decodeCursor, encodeCursor } from "./cursor.ts";
import { type AicResult, aicError, ok } from "./errors.ts";
import { envelopeOf } from "./event-envelope.ts";
import { Occupancy, type Slot } from "./occupancy.ts";
import type { EventEnvelopeT, EventStreamQueryT, PollEventsRequestT, PollEventsResponse } from "./schemas.ts";

/** A long-poll answers one agent at most this often: a poll that comes back sooner waits out the
 * rest (within its waitMs) and gets those ticks' events in one page. In a crowd there is an event for
 * everyone nearly every tick, so without it every long-polling agent became a loop at the speed of
 * its round trip (~6 requests a second each at 1,000 participants, the gateway's thread full of them).
 * The same pace as the default pollEvents rate (4/s), as waiting instead of refusals. */
export const LONG_POLL_MIN_INTERVAL_MS = 250;

/** How many events one SSE read takes at most (the PollEvents maximum). */
const STREAM_PAGE_LIMIT = 200;

/** How many long-polls may be parked, and event streams open, at once: per agent and in all. */
export interface EventFeedLimits {
  parkedPollsPerAgent: number;
  parkedPollsTotal: number;
  streamsPerAgent: number;
  streamsTotal: number;
}

export const DEFAULT_EVENT_FEED_LIMITS: EventFeedLimits = {
  parkedPollsPerAgent: 4,
  parkedPollsTotal: 2000,
  streamsPerAgent: 4,
  streamsTotal: 1000,
};

/** The Retry-After of a refused poll or stream: a slot frees when a poll is answered (within its
 * waitMs) or a stream closes, so there is no exact time to name. */
const SLOT_RETRY_AFTER_MS = 1000;

/** The event subscription behind SSE: reads continue from where the last read ended. It holds one
 * of its agent's stream slots until `close`. */
export interface EventSubscription {
  readonly roomId: string;
  readonly cursor: string;
  next(waitMs: number, signal?: AbortSignal): Promise<AicResult<PollEventsResponse>>;
  close(): void;
}

interface ReadOptions {
  limit: number;
  waitMs: number;
  signal: AbortSignal | undefined;
  /** A stream's read: it parks on the stream's own slot, not a long-poll's. */
  stream?: boolean;
}

export class EventFeed {
  private readonly runtime: WorldRuntime;
  private readonly clock: AicClock;
  /** When each agent's next long-poll answer may go out (LONG_POLL_MIN_INTERVAL_MS after the last
   * one, whichever of its parallel polls that was); one entry per agent. */
  private readonly nextAnswerAt = new Map<string, number>();
  private readonly parkedPolls: Occupancy;
  private readonly streams: Occupancy;
  /** Parked long-polls and stream reads, each answered at once by close(). */
  private readonly parked = new Set<() => void>();
  private closed = false;

  constructor(runtime: WorldRuntime, clock: AicClock, limits: EventFeedLimits = DEFAULT_EVENT_FEED_LIMITS) {
    this.runtime = runtime;
    this.clock = clock;
    this.parkedPolls = new Occupancy({
      perAgent: limits.parkedPollsPerAgent,
      total: limits.parkedPollsTotal,
    });
    this.streams = new Occupancy({ perAgent: limits.streamsPerAgent, total: limits.streamsTotal });
  }

  /** Whether `agentId` is waiting on the world now: a long-poll parked or an event stream open. */
  listening(agentId: string): boolean {
    return this.parkedPolls.holds(agentId) || this.streams.holds(agentId);
  }

  /** Parked long-polls and open streams now (metrics, tests). */
  stats(): { parkedPolls: number; streams: number } {
    return { parkedPolls: this.parkedPolls.stats().held, streams: this.streams.stats().held };
  }

  /** `POST /pollEvents`, admitted. */
  poll(
    request: PollEventsRequestT,
    actor: Actor,
    signal: AbortSignal | undefined,
  ): Promise<AicResult<PollEventsResponse>> {
    const position = decodeCursor(request.sinceCursor, request.roomId);
    if (!position.ok) {
      return Promise.resolve(
        aicError("bad_request", `invalid sinceCursor: ${position.reason}`, { field: "sinceCursor" }),
      );
    }
    const afterSeq = this.positionFor(actor.entityId, position.position);
    return this.read(actor.entityId, request.agentId, request.roomId, afterSeq, {
      limit: request.limit,
      waitMs: request.waitMs,
      signal,
    });
  }

  /** `GET /events/stream`, admitted: a subscription from `sinceCursor`, or from the room's latest event. */
  subscribe(request: EventStreamQueryT, actor: Actor): AicResult<EventSubscription> {
    const world = this.runtime.world;
    const self = world.getEntity(actor.entityId);
    if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
    const unreleased = this.runtime.firstUnreleasedSeq(request.roomId);
    let afterSeq = unreleased === undefined ? world.latestSeq(request.roomId) : Math.max(0, unreleased - 1);
    if (request.sinceCursor !== undefined) {
      const position = decodeCursor(request.sinceCursor, request.roomId);
      if (!position.ok)
        return aicError("bad_request", `invalid cursor: ${position.reason}`, { field: "sinceCursor" });
      afterSeq = this.positionFor(actor.entityId, position.position);
    }
    const slot = this.streams.take(request.agentId);
    if (!slot.ok) return refusedSlot(slot, "event streams");
    const feed = this;
    const roomId = request.roomId;
    return ok({
      roomId,
      close: slot.release,
      get cursor() {
        return encodeCursor(roomId, afterSeq);
      },
      async next(waitMs, signal) {
        const result = await feed.read(actor.entityId, request.agentId, roomId, afterSeq, {
          limit: STREAM_PAGE_LIMIT,
          waitMs,
          signal,
          stream: true,
        });
        if (result.status === "ok") {
          const position = decodeCursor(result.data.nextCursor, roomId);
          if (position.ok) afterSeq = position.position.afterSeq;
        }
        return result;
      },
    });
  }

  /** Where a reader's events continue from a cursor. A start cursor ("c_0", "0": "I have nothing
   * yet") begins after the newest event the reader may have lost, so it never expires: a restarted
   * agent's first poll on a busy world gets what is still kept instead of `cursor_expired`. It is
   * placed when the request arrives; a long-poll then waits from there like any other cursor. */
  private positionFor(entityId: string, position: CursorPosition): number {
    if (!position.start) return position.afterSeq;
    const expired = this.runtime.world.eventsFor(entityId, position.roomId, 0, 0).expired;
    return expired ? expired.oldestRetainedSeq - 1 : 0;
  }

  private read(
    entityId: string,
    agentId: string,
    roomId: string,
    afterSeq: number,
    options: ReadOptions,
  ): Promise<AicResult<PollEventsResponse>> {
    const self = this.runtime.world.getEntity(entityId);
    if (!self || self.roomId !== roomId) return Promise.resolve(notInRoom(agentId, roomId));
    const first = this.page(entityId, roomId, afterSeq, options.limit);
    if (first.status === "error" || options.waitMs <= 0 || options.signal?.aborted) {
      return Promise.resolve(first);
    }
    // A stream reading on would spin; a poller retries (retryable) and finds the next world.
    if (this.closed) return Promise.resolve(aicError("room_not_ready", "the world is stopping"));
    if (first.data.events.length > 0 && this.paceWait(agentId) <= 0) {
      this.nextAnswerAt.set(agentId, this.clock.nowMs() + LONG_POLL_MIN_INTERVAL_MS);
      return Promise.resolve(first);
    }
    const slot = options.stream ? STREAM_READ : this.parkedPolls.take(agentId);
    if (!slot.ok) return Promise.resolve(refusedSlot(slot, "parked long-polls"));
    // Park until a tick appends an event this agent may see (and its interval since its last answer,
    // to any of its polls, has passed), waitMs passes, or the caller goes away.
    return new Promise((resolve) => {
      let settled = false;
      let hold: unknown;
      const finish = (answer: AicResult<PollEventsResponse>) => {
        if (settled) return;
        settled = true;
        this.parked.delete(answerNow);
        slot.release();
        unsubscribe();
        this.clock.clearTimeout(timer);
        if (hold !== undefined) this.clock.clearTimeout(hold);
        options.signal?.removeEventListener("abort", onAbort);
        this.nextAnswerAt.set(agentId, this.clock.nowMs() + LONG_POLL_MIN_INTERVAL_MS);
        resolve(answer);
      };
      const answerNow = () => finish(this.page(entityId, roomId, afterSeq, options.limit));
      const onAbort = answerNow;
      /** Events are there: answer now, or once the agent's interval has passed — looked at again
       * then, since a parallel poll of the same agent may have been answered meanwhile. */
      const ready = () => {
        const wait = this.paceWait(agentId);
        if (wait <= 0) answerNow();
        else
          hold ??= this.clock.setTimeout(() => {
            hold = undefined;
            ready();
          }, wait);
      };
      const unsubscribe = this.runtime.onTick((info) => {
        if (hold !== undefined) return;
        if (!info.events.some((event: WorldEvent) => event.roomId === roomId && event.seq > afterSeq)) return;
        const page = this.page(entityId, roomId, afterSeq, options.limit);
        if (page.status === "error") finish(page);
        else if (page.data.events.length > 0) ready();
      });
      this.parked.add(answerNow);
      const timer = this.clock.setTimeout(onAbort, options.waitMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (first.data.events.length > 0) ready();
    });
  }

  /** The world is stopping (the service stops, or the plugin reloads): every parked read answers
   * now with what it has, and later reads do not park. A parked read is a call the gateway waits for
   * before it can replace the plugin, so none may outlive the world it waits on. */
  close(): void {
    this.closed = true;
    for (const answerNow of [...this.parked]) answerNow();
  }

  /** How long this agent's next long-poll answer must wait yet (≤ 0: it may go now). */
  private paceWait(agentId: string): number {
    return (this.nextAnswerAt.get(agentId) ?? 0) - this.clock.nowMs();
  }

  private page(
    entityId: string,
    roomId: string,
    afterSeq: number,
    limit: number,
  ): AicResult<PollEventsResponse> {
    const world = this.runtime.world;
    const latest = world.latestSeq(roomId);
    if (afterSeq > latest) {
      // A position this world never reached: the cursor comes from a timeline the operator rolled
      // back (restore). Continuing from it would silently skip the events that reuse its numbers.
      return aicError("conflict", "sinceCursor is ahead of this room's event log (the world was restored)", {
        reason: "cursor_expired",
        nextCursor: encodeCursor(roomId, latest),
        droppedCount: 0,
      });
    }
    const page = world.eventsFor(entityId, roomId, afterSeq, limit);
    // Only events already durable: a tick whose journal write is in flight is not served yet.
    const unreleased = this.runtime.firstUnreleasedSeq(roomId);
    if (unreleased !== undefined) {
      page.events = page.events.filter((event) => event.seq < unreleased);
      page.nextSeq = Math.max(afterSeq, Math.min(page.nextSeq, unreleased - 1));
    }
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
    return ok({ events, nextCursor: encodeCursor(roomId, page.nextSeq), serverTsMs: world.serverTsMs });
  }
}

/** A stream's read holds no slot of its own (the stream holds one). */
const STREAM_READ: Slot = { ok: true, release() {} };

/** A bound on parked polls or open streams refused: retryable, 429 over HTTP, with Retry-After. */
function refusedSlot(slot: Extract<Slot, { ok: false }>, what: string): AicResult<never> {
  const whose = slot.scope === "agent" ? "for this agent" : "on this server";
  return aicError(
    "rate_limited",
    `too many ${what} ${whose} (limit ${slot.limit}); close one or retry later`,
    {
      reason: slot.scope === "agent" ? "too_many_per_agent" : "too_many_in_total",
      limit: slot.limit,
      retryAfterMs: SLOT_RETRY_AFTER_MS,
    },
  );
}
