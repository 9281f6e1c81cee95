// The follow desk: one agent's own view of the world for its owner (the follow page, docs/follow.md):
// its room as the live page draws it, what it perceived (the events it may read, in words), its
// turns (agent-turns.ts: its requests and answers, refusals, a resident's wakes and model time), its
// memory and its budgets. Every read is of one agent, named by the caller the route admitted
// (follow-routes.ts: the agent's AIC token or a follow link): nothing here reads for another.
import path from "node:path";
import { agentRateKey } from "../aic/admission.ts";
import { decodeCursor, encodeCursor } from "../aic/cursor.ts";
import { RateLimiter } from "../aic/rate-limit.ts";
import type { WorldEvent } from "../aic/reads.ts";
import type {
  FOLLOW_READS,
  FollowDoor,
  FollowedEvent,
  FollowedTurn,
  FollowSink,
} from "../http/follow-routes.ts";
import type { WireEntity } from "../http/humans/protocol.ts";
import { toWire, toWireObjects, toWireRoom } from "../http/humans/wire-entity.ts";
import type { AgentTurn, StoredAgentTurn } from "../runtime/history.ts";
import { OperatorError } from "../runtime/operator.ts";
import { agentEntityId } from "../world/ids.ts";
import { drawnLooks } from "./adapters.ts";
import { onAgentTurn } from "./agent-turns.ts";
import { FollowLinks } from "./follow-link.ts";
import type { WorldHost } from "./host.ts";
import { eventInWords, type Namer, namerOf, turnInWords } from "./in-words.ts";
import type { ReplayDesk } from "./replay-desk.ts";

/** Turns one page holds at most (the default is fewer). */
export const MAX_TURNS_PAGE = 200;
const DEFAULT_TURNS_PAGE = 50;
/** Events one page holds at most. */
const EVENTS_PAGE = 200;
/** The follow API's own rate classes, per followed agent (apart from the agent's AIC budgets). */
const FOLLOW_RATES = {
  followRead: { perSec: 10, burst: 30 },
  followWatch: { perSec: 0.2, burst: 3 },
};

/** A follow read refused for its rate (429, as follow-routes.ts answers an error's status). */
class FollowRefused extends Error {
  readonly status = 429;
  readonly code = "rate_limited";
}

/** "Watch again" reaches this far back at most (the replay's markers' bound: 20 minutes at 20 Hz). */
const MAX_WATCH_MINUTES = 20;
/** Follow streams open at once: per agent (a few tabs of its owner) and in all. */
const MAX_STREAMS_PER_AGENT = 4;
const MAX_STREAMS = 200;
/** The stream sends the agent's room's actors at most this often a second. */
const ACTORS_PER_SECOND = 5;

export class FollowDesk implements FollowDoor {
  private readonly host: WorldHost;
  private readonly links: FollowLinks;
  private readonly rates = new RateLimiter({ classes: FOLLOW_RATES });
  /** Open streams and whom each follows. */
  private readonly sinks = new Map<FollowSink, string>();
  private readonly looks: () => ReadonlyMap<string, number>;

  /** The replay desk over the host's history ("watch again"; it refuses when none is kept). */
  private readonly replay: () => ReplayDesk;

  constructor(host: WorldHost, links: FollowLinks, replay: () => ReplayDesk) {
    this.host = host;
    this.links = links;
    this.replay = replay;
    this.looks = drawnLooks(host);
  }

  agentOfToken(token: string): string | undefined {
    return this.host.tokens?.(token);
  }

  agentOfKey(key: string): string | undefined {
    return this.links.agentOf(key);
  }

  read(agentId: string, route: (typeof FOLLOW_READS)[number], query: URLSearchParams): unknown {
    // Per followed agent: its owner's tabs share it. "Watch again" re-simulates a stretch of up to
    // 20 minutes (about a second of the gateway's thread), so it is asked for rarely.
    const limited = this.rates.take(agentId, route === "/watch" ? "followWatch" : "followRead");
    if (!limited.allowed)
      throw new FollowRefused(
        `too many follow reads for ${agentId}: retry in ${Math.ceil(limited.retryAfterMs / 1000)} s`,
      );
    if (route === "/view") return this.view(agentId);
    if (route === "/turns") return this.turns(agentId, query);
    if (route === "/watch") return this.watch(agentId, query);
    if (route === "/watch/frame") return this.watchFrame(agentId, query);
    return this.events(agentId, query.get("cursor") ?? undefined);
  }

  /** The agent now: where it is and who is around it, in the live page's wire shapes, its memory
   * (reflections and the latest episodes) and its budgets. */
  view(agentId: string) {
    const reads = this.reads();
    const entityId = agentEntityId(agentId);
    const me = reads.getEntity(entityId);
    const definition = reads.definition;
    const base = {
      agentId,
      entityId,
      name: this.nameOf(agentId),
      kind: this.kindOf(agentId),
      tick: reads.tick,
      time: reads.serverTsMs,
      tickRate: definition.tickRate,
      present: me !== undefined,
      memory: reads.memoryOf(entityId) ?? { reflections: [], episodes: [] },
      budgets: this.budgets(agentId),
      turnsKept: this.host.history !== undefined,
    };
    if (!me) return base;
    return {
      ...base,
      roomId: me.roomId,
      tile: me.tile,
      room: toWireRoom(definition, me.roomId),
      entities: this.actors(me.roomId),
      objects: toWireObjects(reads, me.roomId),
      /** Where its events continue from: `/events?cursor=` with it reads what came since. */
      cursor: encodeCursor(me.roomId, this.releasedSeq(me.roomId)),
    };
  }

  /** Its turns, newest first: `limit` of them (default 50, at most 200) before `before` (a seq). */
  turns(agentId: string, query: URLSearchParams) {
    const limit = query.has("limit") ? Number(query.get("limit")) : DEFAULT_TURNS_PAGE;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TURNS_PAGE)
      throw new OperatorError(400, "bad_request", `limit must be a whole number from 1 to ${MAX_TURNS_PAGE}`);
    const before = query.has("before") ? Number(query.get("before")) : undefined;
    if (before !== undefined && (!Number.isSafeInteger(before) || before < 0))
      throw new OperatorError(400, "bad_request", "before must be a turn's seq");
    const history = this.host.history;
    if (!history) return { agentId, kept: false, turns: [] };
    const turns = history.agentTurnsPage(agentId, limit, before).map((t) => this.inWords(t));
    const last = turns[turns.length - 1];
    return {
      agentId,
      kept: true,
      turns,
      ...(turns.length === limit && last ? { before: last.seq } : {}),
    };
  }

  /** What it perceived in the room it is in, after `cursor` (none or "0": from the oldest kept). */
  events(agentId: string, cursor: string | undefined) {
    const reads = this.reads();
    const entityId = agentEntityId(agentId);
    const me = reads.getEntity(entityId);
    if (!me) return { agentId, present: false, events: [] };
    const roomId = me.roomId;
    const position = decodeCursor(cursor ?? "0", roomId);
    if (!position.ok)
      throw new OperatorError(400, "bad_request", `invalid cursor: ${position.reason} (start again with 0)`);
    let afterSeq = position.position.afterSeq;
    if (position.position.start) {
      const expired = reads.eventsFor(entityId, roomId, 0, 0).expired;
      afterSeq = expired ? expired.oldestRetainedSeq - 1 : 0;
    }
    const { events, next, expired } = this.perceived(entityId, roomId, afterSeq);
    return {
      agentId,
      present: true,
      roomId,
      events,
      next: encodeCursor(roomId, next),
      ...(expired ? { expired } : {}),
    };
  }

  /** "Watch again": the last minutes of the replay history, what the agent could perceive of them
   * (ReplayDesk.perceived): the events of the rooms it was in and those addressed to it. */
  watch(agentId: string, query: URLSearchParams) {
    const minutes = query.has("lastMinutes") ? Number(query.get("lastMinutes")) : 5;
    if (!(minutes > 0 && minutes <= MAX_WATCH_MINUTES))
      throw new OperatorError(
        400,
        "bad_request",
        `lastMinutes must be more than 0 and at most ${MAX_WATCH_MINUTES}`,
      );
    const desk = this.replay();
    const stretch = desk.resolve(new URLSearchParams({ lastMinutes: String(minutes) }));
    return {
      agentId,
      ...stretch,
      tickRate: desk.definition.tickRate,
      moments: desk.perceived(stretch.segment, stretch.from, stretch.to, agentEntityId(agentId)),
    };
  }

  /** The room the agent was in at a tick of the history, as the replay re-simulates it (in the live
   * page's wire shapes); nothing when it was not in the world then. */
  watchFrame(agentId: string, query: URLSearchParams) {
    const whole = (name: string) => {
      const value = Number(query.get(name));
      if (!query.has(name) || !Number.isSafeInteger(value) || value < 0)
        throw new OperatorError(400, "bad_request", `${name} must be a whole number >= 0`);
      return value;
    };
    const segment = whole("segment");
    const tick = whole("tick");
    const desk = this.replay();
    const roomId = desk.roomOf(segment, tick, agentEntityId(agentId));
    if (roomId === undefined) return { agentId, segment, tick, present: false };
    return { agentId, present: true, ...desk.frame(segment, tick, roomId) };
  }

  stream(agentId: string, sink: FollowSink): (() => void) | undefined {
    const open = [...this.sinks.values()];
    if (open.length >= MAX_STREAMS || open.filter((s) => s === agentId).length >= MAX_STREAMS_PER_AGENT)
      return undefined;
    const reads = this.reads();
    const entityId = agentEntityId(agentId);
    const every = Math.max(1, Math.round(reads.definition.tickRate / ACTORS_PER_SECOND));
    let roomId = reads.getEntity(entityId)?.roomId;
    let afterSeq = roomId === undefined ? 0 : this.releasedSeq(roomId);
    let lastActors = "";
    const stopTicks = reads.onTick((info) => {
      const me = reads.getEntity(entityId);
      if (me?.roomId !== roomId) {
        roomId = me?.roomId;
        afterSeq = roomId === undefined ? 0 : (reads.enteredAtSeq(entityId, roomId) ?? 1) - 1;
        lastActors = "";
        sink.send("room", { roomId: roomId ?? null, tick: info.tick });
      }
      if (roomId === undefined) return;
      const page = this.perceived(entityId, roomId, afterSeq);
      afterSeq = page.next;
      if (page.events.length > 0) sink.send("events", { roomId, events: page.events });
      if (info.tick % every === 0) {
        const entities = this.actors(roomId);
        const text = JSON.stringify(entities);
        if (text !== lastActors) {
          lastActors = text;
          sink.send("actors", { roomId, tick: info.tick, entities });
        }
      }
    });
    const stopTurns = onAgentTurn(this.host, (turn) => {
      if (turn.agentId === agentId) sink.send("turn", this.inWords(turn));
    });
    this.sinks.set(sink, agentId);
    return () => {
      this.sinks.delete(sink);
      stopTicks();
      stopTurns();
    };
  }

  /** Ends every open stream (the world stops). */
  close(): void {
    for (const sink of [...this.sinks.keys()]) sink.end();
  }

  /** The events `entityId` may perceive in `roomId` after `afterSeq`, none past what is released
   * (a tick's events go out once the tick is durable, as the AIC's do). */
  private perceived(entityId: string, roomId: string, afterSeq: number) {
    const reads = this.reads();
    const released = this.releasedSeq(roomId);
    const page = reads.eventsFor(entityId, roomId, afterSeq, EVENTS_PAGE);
    const events = page.events.filter((e) => e.seq <= released);
    const next = events.length < page.events.length ? Math.max(afterSeq, released) : page.nextSeq;
    return { events: events.map((e) => this.eventOf(e)), next, expired: page.expired };
  }

  private releasedSeq(roomId: string): number {
    const unreleased = this.host.runtime.firstUnreleasedSeq(roomId);
    return unreleased === undefined ? this.reads().latestSeq(roomId) : Math.max(0, unreleased - 1);
  }

  private eventOf(e: WorldEvent): FollowedEvent {
    return {
      seq: e.seq,
      tick: e.tick,
      tsMs: e.tsMs,
      type: e.type,
      words: eventInWords(e, this.namer()) ?? e.type,
      payload: e.payload,
    };
  }

  private actors(roomId: string): WireEntity[] {
    const looks = this.looks();
    return this.reads()
      .actorsInRoom(roomId)
      .map((view, i) => {
        const look = looks.get(view.id);
        return { ...toWire(view, i + 1), ...(look === undefined ? {} : { look }) };
      });
  }

  /** Its budgets: each rate class's tokens left (AIC agents and gateway agents' tool calls alike), and
   * a resident's turns (state, this hour's, its caps). */
  private budgets(agentId: string) {
    const aic = this.host.aic;
    const key = agentRateKey(agentId);
    const now = Date.now();
    const rates = (aic?.limiter.allBuckets() ?? [])
      .filter((b) => b.key === key && b.bucket)
      .map(({ className, bucket }) => {
        const rate = aic!.limiter.classFor(className);
        const tokens = Math.min(
          rate.burst,
          bucket!.tokens + ((now - bucket!.updatedMs) / 1000) * rate.perSec,
        );
        return {
          rateClass: className,
          tokensLeft: Math.floor(tokens),
          burst: rate.burst,
          perSec: rate.perSec,
        };
      });
    const resident = this.host.config.residents[agentId];
    const state = this.host.residents?.states().find((s) => s.agentId === agentId);
    return {
      rates,
      ...(resident
        ? {
            turns: {
              ...(state
                ? { state: state.state, turnsLastHour: state.turnsLastHour, refused: state.refused }
                : {}),
              maxTurnsPerHour: resident.maxTurnsPerHour,
              minIntervalSec: resident.minIntervalSec,
              maxModelRequestsPerTurn: resident.maxModelRequestsPerTurn,
              turnTimeoutSec: resident.turnTimeoutSec,
            },
          }
        : {}),
    };
  }

  private inWords(turn: AgentTurn | StoredAgentTurn): FollowedTurn {
    return { ...turn, words: turnInWords(turn, this.nameOf(turn.agentId), this.namer().entity) };
  }

  private namer(): Namer {
    const reads = this.reads();
    return namerOf(reads.definition, (id) => reads.getEntity(id)?.name);
  }

  private nameOf(agentId: string): string {
    const { config } = this.host;
    return config.agents[agentId]?.name ?? config.residents[agentId]?.name ?? agentId;
  }

  private kindOf(agentId: string): "resident" | "aic" | "gateway" {
    const { config } = this.host;
    if (config.residents[agentId]) return "resident";
    return config.agents[agentId]?.token ? "aic" : "gateway";
  }

  private reads() {
    const aic = this.host.aic;
    if (!aic) throw new OperatorError(409, "conflict", "the world's adapters are not attached yet");
    return aic.reads;
  }
}

/** The follow links' file in the world's folder (beside world.db). */
const FOLLOW_LINKS_FILE = "follow-links.json";

const desks = new WeakMap<WorldHost, FollowDesk>();
const links = new WeakMap<WorldHost, FollowLinks>();

/** The host's follow links (minted by the operator, asked by the follow routes). */
export function followLinksOf(host: WorldHost): FollowLinks {
  let kept = links.get(host);
  if (!kept) {
    kept = new FollowLinks(Date.now, host.filesDir && path.join(host.filesDir, FOLLOW_LINKS_FILE));
    links.set(host, kept);
  }
  return kept;
}

/** The host's follow desk (`replay`: the host's replay desk); its streams end when the world stops. */
export function followDeskOf(host: WorldHost, replay: () => ReplayDesk): FollowDesk {
  let desk = desks.get(host);
  if (!desk) {
    const made = new FollowDesk(host, followLinksOf(host), replay);
    desk = made;
    desks.set(host, made);
    host.closers.push(() => made.close());
  }
  return desk;
}
