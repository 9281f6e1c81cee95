// The residents' scheduler, the effectful edge of the wake logic: it puts each resident at home when
// the world starts, reads every tick's events (wake.ts decides who is woken), starts a turn when
// pacing.ts allows, and marks the resident "thinking" in the world for as long as the turn runs.
// Turns run through `runTurn` (the plugin passes the gateway's own agent loop). Every timer callback
// and promise here catches its own errors: an uncaught throw would take the gateway down.
import { agentRateKey } from "../aic/admission.ts";
import { objectStateInWords } from "../aic/object-words.ts";
import { agentEntityId, type TickInfo } from "../aic/reads.ts";
import type { Actor, AicService } from "../aic/service.ts";
import { type Timers, wallTimers } from "../aic/timers.ts";
import type { ResidentConfig } from "../config/config.ts";
import {
  chargePeople,
  chargeTalk,
  mayTalk,
  nextStart,
  type Pacing,
  type PersonLedger,
  pruneLedger,
  type TalkBudget,
  type TurnLedger,
  talkingPairs,
  talkWaitMs,
  type WaitCause,
  type WorldBudget,
  withinShare,
} from "./pacing.ts";
import { type PromptObject, type PromptPerson, wakePrompt } from "./prompt.ts";
import { type Place, portalToward, STOP_RINGS, standingSpot } from "./resident-places.ts";
import { routineStop } from "./routine.ts";
import { CHORE_RETRY_MS, type Chore, nextChore } from "./tending.ts";
import { byResident, type Happening, replyChannel, wakeHappenings } from "./wake.ts";

export interface TurnRequest {
  agentId: string;
  prompt: string;
  runId: string;
  /** The conversation session the turn runs in: a fresh one every `sessionTurns` turns, so what the
   * model is sent stays bounded. */
  session: string;
  /** Where its answer reaches those who woke it (the chat tool's default). */
  replyChannel: "proximity" | "global";
  timeoutMs: number;
  signal: AbortSignal;
  /** Why it was woken, as ids only (a turn run elsewhere is told these, never anyone's words). */
  wokenBy: { reason: Happening["reason"]; tick: number; roomId: string; fromEntityId: string }[];
}

/** Runs one agent turn to its end; rejects when it failed or was cancelled. */
export type RunTurn = (turn: TurnRequest) => Promise<void>;

/** The turn could not run in its session: the gateway still holds that session for an earlier turn
 * (the runner says which of the gateway's errors mean this). The next turn runs in a fresh session. */
export class SessionStuck extends Error {
  override readonly name = "SessionStuck";
}

/** The gateway would not start the turn for now (it drains a plugin generation a reload retired):
 * nothing ran, so the turn is tried again a little later, in the same session, and costs no pacing. */
export class GatewayBusy extends Error {
  override readonly name = "GatewayBusy";
}

/** How long after a busy gateway's refusal the turn is tried again, and how often before it counts
 * as a failure: the gateway gives a draining generation 5 s, a reload under load takes up to ~30 s. */
const BUSY_RETRY_MS = 5_000;
const BUSY_RETRIES = 6;

export interface TurnRecord {
  /** The tick of the oldest happening it answers, and the tick it started on. */
  wokeAtTick: number;
  startedAtTick: number;
  startedAtMs: number;
  endedAtMs?: number;
  happenings: number;
  /** Model requests the turn made so far (counted by onModelCall). */
  modelRequests: number;
  /** Of those, the ones that failed (the gateway retries a failing model: each try counts), and why
   * the last one did (told by onModelCallEnded), so a model that is down shows as such. */
  modelFailures?: number;
  lastModelFailure?: string;
  /** How long its model requests took, together (told by onModelCallEnded). */
  modelMs?: number;
  /** What the turn was told (the operator status shows it; agents never see another's prompt). */
  prompt: string;
  error?: string;
}

export interface ResidentState {
  agentId: string;
  entityId: string;
  name: string;
  /** asleep: it is never woken (the reason says why); thinking: a turn runs; awake: waiting for news;
   * failing: its last turn failed (`failing` says how and since when), so it cannot answer now;
   * recovering: a turn runs after a failure (in a fresh session when the old one was held). */
  state: "awake" | "thinking" | "asleep" | "failing" | "recovering";
  reason?: string;
  /** Its turns failing in a row, while they do (cleared by a turn that ends well). */
  failing?: TurnFailure;
  pending: number;
  turnsLastHour: number;
  /** How long readying its turns took when the world started (prepareTurns), and what the gateway said. */
  prepared?: { ms: number; said: string };
  /** Why the next turn waits, while it does. */
  waitingFor?: WaitCause;
  /** What the caps refused since the world started (see Refusals). */
  refused: Refusals;
  lastTurn?: TurnRecord;
}

/** What the cost caps refused, counted since the world started. */
export interface Refusals {
  /** Happenings dropped: the person had used their share of its turns this hour. */
  personShare: number;
  /** Times a turn had to wait for the world-wide budget. */
  worldBudget: number;
  /** Turns cancelled at the cap on model requests per turn. */
  modelRequests: number;
  /** Turns cancelled at the turn's time limit. */
  timeout: number;
  /** Happenings of another resident dropped: the world's talk budget was spent. */
  talkBudget: number;
}

/** A resident's turns failing in a row: the last error, when the first and the last failed. */
export interface TurnFailure {
  error: string;
  sinceMs: number;
  lastAtMs: number;
  turns: number;
}

export interface ResidentClock extends Timers {
  now(): number;
}

/** The wall clock, with timers that do not hold the process open. */
export const realClock: ResidentClock = { now: () => Date.now(), ...wallTimers };

export interface SchedulerDeps {
  service: AicService;
  residents: Readonly<Record<string, ResidentConfig>>;
  runTurn: RunTurn;
  /** Readies the agent loop for a resident's turns before anyone speaks, at no model's cost (the
   * gateway loads its agent runtime on its first turn); resolves with what it said. Run once per
   * awake resident when the world starts, one after another, in the background. */
  prepareTurns?: (agentId: string, signal: AbortSignal) => Promise<string>;
  /** Turns all residents together may take in an hour (the world-wide budget). */
  maxTurnsPerHour?: number;
  /** Why a resident cannot take turns (no model configured), or undefined when it can. */
  asleepReason?: (agentId: string) => string | undefined;
  logger: { info(m: string): void; warn(m: string): void };
  clock?: ResidentClock;
  /** Told as each turn starts (benchmarks and tests watch it). */
  onTurnStart?: (agentId: string, record: TurnRecord) => void;
  /** Told as each turn ends, with what woke it (the operator's record beside the replay). */
  onTurnEnd?: (agentId: string, record: TurnRecord, wokenBy: TurnRequest["wokenBy"]) => void;
  /** The world-wide budget's ledger, when schedulers share one (remote residents: src/residents/remote). */
  worldBudget?: WorldBudget;
  /** Its residents are AIC agents that join by themselves: none is put at a home tile. */
  joinsItself?: boolean;
  /** Other schedulers' residents, whose speech wakes no resident here either. */
  otherResidents?: () => ReadonlySet<string>;
  /** Turns residents may take talking to each other in an hour, all together (default: none),
   * shared by the schedulers of the gateway's residents and the remote ones. */
  talkBudget?: TalkBudget;
  /** What an asleep resident says to one who comes near (how to wake it), or undefined: nothing. */
  asleepHint?: (agentId: string) => string | undefined;
  /** The named places a resident that may walk (ocw_move_to) is told of in a room: the room's, a
   * tile each, and those a portal away (places.ts `placesFrom`). */
  placesFor?: (agentId: string, roomId: string) => readonly Place[] | undefined;
  /** Whether a resident may walk with someone (ocw_lead): its prompt names whom to lead. */
  mayLead?: (agentId: string) => boolean;
}

/** Happenings kept per resident between turns; older ones are dropped (the prompt shows few anyway). */
const MAX_PENDING = 32;
/** How long stop() waits for cancelled turns to settle before it lets go. A plugin reload gives the
 * whole plugin 5 s to drain, and the gateway's residents and the remote ones each stop in turn before
 * the store closes: a turn whose model request ignores its cancel must not take all of it. */
const STOP_GRACE_MS = 1_500;
/** How long a cancelled turn has to end; one that has not is let go of (the gateway may still hold
 * its session: the next turn takes a fresh one), so a stuck turn never silences its resident. */
export const TURN_END_GRACE_MS = 10_000;
/** What a resident whose turn failed tells those whose words it could not answer, so nobody waits on
 * silence. */
export const FAILING_LINE =
  "Sorry, I cannot answer right now; my thoughts are stuck. Try me again in a minute.";
/** What a resident asleep at the last stop says to its room when it wakes with a model. */
export const AWAKE_LINE = "I'm awake now: this world has a model to think with. Come and talk to me!";
/** What a resident walking with someone (the world's lead, leading.ts) says when it stops to wait
 * for them (at most once per LEAD_WAIT_LINE_EVERY_MS), and when it gives up waiting. */
export const leadWaitingLine = (name: string) => `Come along, ${name}: I'll wait for you here.`;
export const leadGaveUpLine = (name: string) =>
  `I'll stop waiting now, ${name}. Ask me again whenever you'd like me to show you the way.`;
const LEAD_WAIT_LINE_EVERY_MS = 15_000;
/** A walk to a tended object that has not arrived in this much simulation time is given up. */
const CHORE_WALK_MS = 60_000;

type Entity = NonNullable<ReturnType<AicService["reads"]["getEntity"]>>;
type Tile = { tx: number; ty: number };

interface Resident {
  agentId: string;
  config: ResidentConfig;
  actor: Actor;
  pacing: Pacing;
  ledger: TurnLedger;
  people: PersonLedger;
  pending: Happening[];
  asleep?: string;
  timer?: unknown;
  waitingFor?: ResidentState["waitingFor"];
  turn?: {
    runId: string;
    controller: AbortController;
    done: Promise<void>;
    record: TurnRecord;
    /** The model calls counted (a hook told twice about one call counts it once). */
    calls: Set<string>;
  };
  lastTurn?: TurnRecord;
  /** Its turns failing in a row. */
  failure?: TurnFailure;
  /** The next turn tries again what a turn refused for its held session was woken by (once). */
  retrying: boolean;
  /** Turns in a row the gateway refused for now (GatewayBusy). */
  busyRefusals: number;
  prepared?: ResidentState["prepared"];
  refused: Refusals;
  /** Its conversation session (a generation number) and the turns it has held. */
  session: { generation: number; turns: number };
  /** The routine stop it last set off for (routine.ts), so it walks once per stop. */
  routineIndex?: number;
  /** What it is doing for an object it tends (tending.ts): a call in flight, walking to the object
   * (to `dest`, since `sinceMs`), or there to use it. */
  chore?: Chore & { step: "asked" | "walking" | "there" | "using"; sinceMs: number; dest?: Tile };
  /** Tended objects it gave up on (unreachable, or refused it), until a simulation time. */
  choreSkip: Map<string, number>;
  /** The simulation time it was last busy: in a turn, walking, or with someone near. Alone and
   * standing away from its stop for `returnHomeAfterSec` after that, it walks back. */
  busyAtMs?: number;
  /** It is on its way back through a portal: arriving wakes no turn, it walks on to its stop. */
  homeward: boolean;
  /** The people whose words it heard, and the simulation time they last spoke: one still near
   * enough to hear it and talking keeps it from its routine. */
  heardFrom: Map<string, number>;
  /** Whom it told how to wake it, while asleep (once an hour each). */
  hinted: PersonLedger;
  /** Its walk with someone as last seen (the world's lead), and when it last said it waits. */
  lead?: { with: string; state: string };
  toldWaitingAtMs?: number;
}

/** Why a turn was cancelled by a cap (the abort reason), so the status counts it. */
class CapReached extends Error {
  readonly cap: "modelRequests" | "timeout";
  constructor(cap: "modelRequests" | "timeout", message: string) {
    super(message);
    this.cap = cap;
  }
}

export class ResidentScheduler {
  private readonly residents: Resident[];
  private readonly residentIds: ReadonlySet<string>;
  private readonly clock: ResidentClock;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** Cancels the readying of turns still running when the world stops. */
  private readonly preparing = new AbortController();
  private runs = 0;
  private readonly world: WorldBudget;
  private readonly talk: TalkBudget;
  /** Names this scheduler's sessions apart from an earlier process's (a restart starts fresh ones). */
  private readonly epoch: string;

  private readonly deps: SchedulerDeps;

  constructor(deps: SchedulerDeps) {
    this.deps = deps;
    this.clock = deps.clock ?? realClock;
    this.residents = Object.entries(deps.residents).map(([agentId, config]) => ({
      agentId,
      config,
      actor: {
        entityId: agentEntityId(agentId),
        kind: "agent",
        name: config.name,
        rateKey: agentRateKey(agentId),
      },
      pacing: { minIntervalMs: config.minIntervalSec * 1000, maxTurnsPerHour: config.maxTurnsPerHour },
      ledger: { inFlight: false, starts: [] },
      people: new Map(),
      pending: [],
      refused: { personShare: 0, worldBudget: 0, modelRequests: 0, timeout: 0, talkBudget: 0 },
      session: { generation: 0, turns: 0 },
      homeward: false,
      heardFrom: new Map(),
      hinted: new Map(),
      choreSkip: new Map(),
      retrying: false,
      busyRefusals: 0,
    }));
    this.talk = deps.talkBudget ?? { starts: [], maxTurnsPerHour: 0, replying: new Set() };
    this.world = deps.worldBudget ?? {
      starts: [],
      maxTurnsPerHour: deps.maxTurnsPerHour ?? Number.MAX_SAFE_INTEGER,
    };
    this.epoch = this.clock.now().toString(36);
    this.residentIds = new Set(this.residents.map((r) => r.actor.entityId));
  }

  /** Puts every resident at home (a "thinking" mark left by a stopped gateway is cleared) and starts
   * listening to the world. */
  async start(): Promise<void> {
    // Every resident's state is known before the first join is awaited: the status is read meanwhile
    // (npm start prints it once the world runs), and a resident not yet joined is not "awake".
    for (const r of this.residents) r.asleep = this.deps.asleepReason?.(r.agentId);
    for (const r of this.residents) {
      if (this.deps.joinsItself) {
        if (this.deps.service.reads.getEntity(r.actor.entityId)) await this.setThinking(r, false);
        continue;
      }
      const home = r.config.home;
      // Asleep when the last gateway stopped (its saved state says so): the line it said then is still
      // in the chat people read on joining, so it says it woke.
      const wasAsleep = this.deps.service.reads.getEntity(r.actor.entityId)?.asleep === true;
      const joined = await this.deps.service.act(r.actor, {
        kind: "join",
        roomId: home.roomId,
        at: { tx: home.tx, ty: home.ty },
      });
      if (joined.status !== "ok") {
        this.deps.logger.warn(`openclawworld: resident ${r.agentId} could not join: ${joined.error.message}`);
        r.asleep ??= `could not join the world: ${joined.error.message}`;
        continue;
      }
      // It stands at home: its routine's first stop (a later one sends it on once it is alone).
      r.routineIndex = 0;
      await this.setThinking(r, false);
      // The page shows it asleep (or no longer: a model was added since the last start).
      await this.mark(r, { kind: "asleep", asleep: r.asleep !== undefined });
      if (wasAsleep && !r.asleep) await this.sayAwake(r, home.roomId);
      // A failure a stopped gateway left marked is not this run's: its turns have not failed yet.
      if (this.deps.service.reads.getEntity(r.actor.entityId)?.unwell)
        await this.mark(r, { kind: "unwell", unwell: false });
      if (r.asleep) this.deps.logger.warn(`openclawworld: resident ${r.agentId} is asleep: ${r.asleep}`);
    }
    if (!this.stopped) this.unsubscribe = this.deps.service.reads.onTick((info) => this.onTick(info));
    if (!this.stopped) void this.prepareAll();
  }

  /** Readies each awake resident's turns, one after another (deps.prepareTurns). */
  private async prepareAll(): Promise<void> {
    const prepare = this.deps.prepareTurns;
    if (!prepare) return;
    for (const r of this.residents) {
      if (this.stopped || r.asleep || !r.config.prepareTurns) continue;
      const started = this.clock.now();
      const said = await prepare(r.agentId, this.preparing.signal).catch((error: unknown) => describe(error));
      r.prepared = { ms: this.clock.now() - started, said };
      if (!this.stopped)
        this.deps.logger.info(
          `openclawworld: resident ${r.agentId}'s turns readied in ${r.prepared.ms} ms (${said})`,
        );
    }
  }

  /** The entity ids of its residents (another scheduler's residents ignore their speech). */
  residentIdSet(): ReadonlySet<string> {
    return this.residentIds;
  }

  /** Cancels running turns (their AbortSignal fires), waits a little for them to settle, and stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.preparing.abort(new Error("the world is stopping"));
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const running: Promise<void>[] = [];
    for (const r of this.residents) {
      if (r.timer !== undefined) this.clock.clearTimeout(r.timer);
      r.timer = undefined;
      if (r.turn) {
        r.turn.controller.abort(new Error("the world is stopping"));
        running.push(r.turn.done);
      }
    }
    if (running.length === 0) return;
    let grace: unknown;
    await Promise.race([
      Promise.allSettled(running),
      new Promise<void>((resolve) => {
        grace = this.clock.setTimeout(resolve, STOP_GRACE_MS);
      }),
    ]);
    this.clock.clearTimeout(grace);
  }

  states(): ResidentState[] {
    const now = this.clock.now();
    return this.residents.map((r) => {
      pruneLedger(r.ledger, now);
      const failing = r.failure && { ...r.failure };
      return {
        agentId: r.agentId,
        entityId: r.actor.entityId,
        name: r.config.name,
        state: r.asleep
          ? "asleep"
          : r.turn
            ? r.failure
              ? "recovering"
              : "thinking"
            : r.failure
              ? "failing"
              : "awake",
        ...(r.asleep ? { reason: r.asleep } : {}),
        ...(failing ? { failing } : {}),
        pending: r.pending.length,
        turnsLastHour: r.ledger.starts.length,
        ...(r.prepared ? { prepared: { ...r.prepared } } : {}),
        ...(r.waitingFor ? { waitingFor: r.waitingFor } : {}),
        refused: { ...r.refused },
        ...(r.lastTurn ? { lastTurn: { ...r.lastTurn } } : {}),
      };
    });
  }

  /** The world-wide budget: turns all residents took in the last hour, and the most it allows; of
   * those, the turns residents took talking to each other and the most they may, when the next may
   * start (while they must wait), and the pairs that must wait before they talk again. */
  budget(): {
    turnsLastHour: number;
    maxTurnsPerHour: number;
    talk: {
      turnsLastHour: number;
      maxTurnsPerHour: number;
      nextAtMs?: number;
      pairs?: { between: [string, string]; nextAtMs: number }[];
    };
  } {
    const now = this.clock.now();
    pruneLedger(this.world, now);
    pruneLedger(this.talk, now);
    const wait = talkWaitMs(this.talk, now);
    const pairs = talkingPairs(this.talk, now);
    return {
      turnsLastHour: this.world.starts.length,
      maxTurnsPerHour: this.world.maxTurnsPerHour,
      talk: {
        turnsLastHour: this.talk.starts.length,
        maxTurnsPerHour: this.talk.maxTurnsPerHour,
        ...(wait > 0 && Number.isFinite(wait) ? { nextAtMs: now + wait } : {}),
        ...(pairs.length > 0 ? { pairs } : {}),
      },
    };
  }

  /** Told by the gateway as each model request starts (the model_call_started hook): a turn of a
   * resident that asks its model more than its cap allows is cancelled. Other runs are not ours. */
  onModelCall(runId: string, callId: string): void {
    const r = this.residents.find((x) => x.turn?.runId === runId);
    if (!r?.turn || r.turn.calls.has(callId)) return;
    const { record, controller, calls } = r.turn;
    calls.add(callId);
    record.modelRequests = calls.size;
    const cap = r.config.maxModelRequestsPerTurn;
    if (record.modelRequests > cap && !controller.signal.aborted)
      controller.abort(new CapReached("modelRequests", `the turn asked its model more than ${cap} times`));
  }

  /** Told by the gateway as each model request ends (the model_call_ended hook): a failed request
   * of a resident's turn is counted on it with its reason. Other runs are not ours. */
  onModelCallEnded(
    runId: string,
    ended: { outcome: string; errorCategory?: string; failureKind?: string; durationMs?: number },
  ): void {
    const record = this.residents.find((x) => x.turn?.runId === runId)?.turn?.record;
    if (!record) return;
    record.modelMs = (record.modelMs ?? 0) + (ended.durationMs ?? 0);
    if (ended.outcome !== "error") return;
    record.modelFailures = (record.modelFailures ?? 0) + 1;
    record.lastModelFailure = ended.failureKind ?? ended.errorCategory ?? "error";
  }

  private onTick(info: TickInfo): void {
    if (this.stopped) return;
    this.wakeOn(info);
    // After the tick's news is taken in: one who just came through a portal goes on, not home.
    if (!this.deps.joinsItself && !this.stopped) {
      this.watchLeads(info.serverTsMs);
      this.followRoutines(info.serverTsMs);
    }
  }

  /** Who this tick's events wake, held to the shares and budgets, and their turns scheduled. */
  private wakeOn(info: TickInfo): void {
    if (info.events.length === 0) return;
    const reads = this.deps.service.reads;
    const others = this.deps.otherResidents?.();
    const own = this.residentIds;
    const heard = others ? { has: (id: string) => own.has(id) || others.has(id) } : own;
    for (const r of this.residents) {
      const roomId = reads.getEntity(r.actor.entityId)?.roomId;
      if (r.asleep) {
        this.hintAsleep(r, info.events, heard);
        continue;
      }
      let woken = wakeHappenings(
        { entityId: r.actor.entityId, name: r.config.name, wake: r.config.wake },
        roomId,
        info.events,
        heard,
        reads,
      ).filter((h) => h.reason !== "resident_spoke" || !this.talk.replying.has(h.fromEntityId));
      // Past their share of its turns this hour, a person's words wake it no more: one talker
      // cannot use every turn, and the rest are there for everyone else. Another resident's words
      // wake it only while the world's talk budget lasts.
      const now = this.clock.now();
      const share = r.config.maxTurnsPerPersonPerHour;
      // On its way home, arriving through a portal is no news (followRoutines walks it on); an agent
      // outside the gateway walks by itself and knows where it went.
      if (r.homeward || this.deps.joinsItself) woken = woken.filter((h) => h.reason !== "arrived");
      for (const h of woken)
        if (h.message !== undefined && !byResident(h)) r.heardFrom.set(h.fromEntityId, info.serverTsMs);
      // A move it is asked to make comes only after it made the last: the game paces itself.
      const admitted = woken.filter((h) =>
        h.reason === "arrived" || h.reason === "your_move"
          ? true
          : byResident(h)
            ? mayTalk(this.talk, r.actor.entityId, h.fromEntityId, now)
            : withinShare(r.people, h.fromEntityId, now, share),
      );
      for (const h of woken)
        if (!admitted.includes(h)) r.refused[byResident(h) ? "talkBudget" : "personShare"] += 1;
      if (admitted.length === 0) continue;
      // An older call to the same move is the same news: the turn reads the object as it is then.
      for (const h of admitted)
        if (h.objectId !== undefined) {
          const older = r.pending.findIndex((p) => p.objectId === h.objectId);
          if (older >= 0) r.pending.splice(older, 1);
        }
      r.pending.push(...admitted);
      if (r.pending.length > MAX_PENDING) r.pending.splice(0, r.pending.length - MAX_PENDING);
      this.schedule(r);
    }
  }

  /** Starts a turn now if pacing allows, or sets one timer for when it will. */
  private schedule(r: Resident): void {
    if (this.stopped || r.timer !== undefined) return;
    const decision = nextStart(r.ledger, r.pending.length, this.clock.now(), r.pacing, this.world);
    r.waitingFor = decision.kind === "wait" ? decision.cause : undefined;
    if (decision.kind === "wait" && decision.cause === "world_budget") r.refused.worldBudget += 1;
    if (decision.kind === "now") this.startTurn(r);
    else if (decision.kind === "wait") {
      r.timer = this.clock.setTimeout(() => {
        r.timer = undefined;
        try {
          this.schedule(r);
        } catch (error) {
          this.deps.logger.warn(`openclawworld: resident ${r.agentId}: ${describe(error)}`);
        }
      }, decision.ms);
    }
  }

  /** Walks each resident to where it belongs (home, or its routine's stop by simulation time): when
   * the stop changes, and when a turn left it elsewhere (a place it walked someone to, in this room
   * or through portals) and it has stood there alone for `returnHomeAfterSec`. Only between turns,
   * standing, with nobody else near: it does not walk off from a conversation or from someone it
   * walks with. Another room is left by the portal toward home (places.ts `portalToward`). */
  private followRoutines(simulationMs: number): void {
    const reads = this.deps.service.reads;
    for (const r of this.residents) {
      if (r.asleep) continue;
      const self = reads.getEntity(r.actor.entityId);
      if (!self) continue;
      // News waiting for a turn counts as busy: arriving through a portal, it goes on first.
      const occupied =
        r.turn ||
        r.pending.length > 0 ||
        self.lead?.state === "walking" ||
        self.lead?.state === "waiting" ||
        this.inConversation(r, self, simulationMs);
      // What it tends is seen to with people near too (they watch it water the plants), not in a
      // turn, a talk or a walk with someone.
      if (!occupied && r.config.tends && this.tend(r, self, simulationMs)) {
        r.busyAtMs = simulationMs;
        continue;
      }
      if (occupied || (self.speed ?? 0) > 0 || this.hasCompany(self)) {
        r.busyAtMs = simulationMs;
        continue;
      }
      r.busyAtMs ??= simulationMs;
      const home = r.config.home;
      // A stop the world blocks now (a closed place, a shut door) is not walked to.
      const stop = routineStop(r.config.routine, home, simulationMs, (tile) =>
        reads.isBlocked(home.roomId, tile),
      );
      const inHomeRoom = self.roomId === home.roomId;
      const spot = inHomeRoom ? standingSpot(reads, home.roomId, stop.tile, self) : undefined;
      const onStop = self.tile.tx === stop.tile.tx && self.tile.ty === stop.tile.ty;
      const nearStop =
        Math.max(Math.abs(self.tile.tx - stop.tile.tx), Math.abs(self.tile.ty - stop.tile.ty)) <= STOP_RINGS;
      const there = spot !== undefined && (spot.beside ? !onStop && nearStop : onStop);
      if (there) {
        r.routineIndex = stop.index;
        r.homeward = false;
        continue;
      }
      const strayed = simulationMs - r.busyAtMs >= r.config.returnHomeAfterSec * 1000;
      const moved = stop.index !== r.routineIndex;
      // Reached the stop with another on it (they came together): it steps beside.
      const crowded = spot?.beside === true && onStop;
      if (!moved && !strayed && !crowded && !(r.homeward && inHomeRoom)) continue;
      const portal = inHomeRoom ? undefined : portalToward(reads.definition, self.roomId, home.roomId);
      if (!inHomeRoom && !portal) continue;
      r.routineIndex = stop.index;
      r.homeward = !inHomeRoom;
      r.busyAtMs = simulationMs;
      // Through the same door as its ocw_move_to (one txId per walk).
      this.deps.service
        .call("moveTo", r.agentId, {
          agentId: r.agentId,
          roomId: self.roomId,
          txId: `tx_routine_${r.agentId}_${simulationMs}`,
          dest: portal ? { tx: portal.tx, ty: portal.ty } : (spot?.tile ?? stop.tile),
        })
        .then((walked) => {
          if (walked.status !== "ok" && !this.stopped)
            this.deps.logger.warn(`openclawworld: resident ${r.agentId}'s way home: ${walked.error.message}`);
        })
        .catch(() => undefined);
    }
  }

  /** A resident that tends objects (its `tends`) sees to one that needs it: walks into its reach
   * (`approach`), then does what it needs (`interact`), through the same doors as a person's clicks.
   * True while it is at it (its routine waits); once done, its routine walks it back to its stop. An
   * object it cannot reach or use is left for CHORE_RETRY_MS. */
  private tend(r: Resident, self: Entity, simulationMs: number): boolean {
    const chore = r.chore;
    if (chore) {
      const giveUp = (why?: string) => this.endChore(r, chore, simulationMs, why);
      if (chore.step === "asked" || chore.step === "using") return true;
      if (chore.step === "walking") {
        const arrived = chore.dest && self.tile.tx === chore.dest.tx && self.tile.ty === chore.dest.ty;
        if (!arrived || (self.speed ?? 0) > 0) {
          if (simulationMs - chore.sinceMs > CHORE_WALK_MS) giveUp("it did not get there");
          return true;
        }
      }
      chore.step = "using";
      this.deps.service
        .call("interact", r.agentId, {
          agentId: r.agentId,
          roomId: self.roomId,
          txId: `tx_tend_use_${r.agentId}_${simulationMs}`,
          targetId: chore.objectId,
          action: chore.action,
        })
        .then((used) => {
          if (used.status !== "ok") giveUp(used.error.message);
          else if (used.data.outcome.type === "ok" || used.data.outcome.type === "no_effect") giveUp();
          else giveUp(used.data.outcome.message ?? used.data.outcome.type);
        })
        .catch((error: unknown) => giveUp(describe(error)));
      return true;
    }
    if (self.roomId !== r.config.home.roomId) return false;
    const next = nextChore(this.deps.service.reads, self, r.config.tends ?? [], simulationMs, r.choreSkip);
    if (!next) return false;
    const asked: NonNullable<Resident["chore"]> = { ...next, step: "asked", sinceMs: simulationMs };
    r.chore = asked;
    const giveUp = (why?: string) => this.endChore(r, asked, simulationMs, why);
    this.deps.service
      .call("approach", r.agentId, {
        agentId: r.agentId,
        roomId: self.roomId,
        txId: `tx_tend_walk_${r.agentId}_${simulationMs}`,
        targetId: next.objectId,
      })
      .then((walked) => {
        if (r.chore !== asked) return;
        if (walked.status !== "ok") return giveUp(walked.error.message);
        asked.dest = walked.data.dest;
        asked.step = walked.data.result === "accepted" ? "walking" : "there";
      })
      .catch((error: unknown) => giveUp(describe(error)));
    return true;
  }

  /** The chore is over (done, or given up on `why`): its routine walks it back to its stop. */
  private endChore(r: Resident, chore: NonNullable<Resident["chore"]>, simulationMs: number, why?: string) {
    if (r.chore !== chore) return;
    r.chore = undefined;
    r.routineIndex = undefined;
    if (why === undefined) return;
    r.choreSkip.set(chore.objectId, simulationMs + CHORE_RETRY_MS);
    if (!this.stopped)
      this.deps.logger.warn(`openclawworld: resident ${r.agentId} could not tend ${chore.objectId}: ${why}`);
  }

  /** A resident walking with someone (the world's lead) says so when it stops to wait for them, and
   * gives up politely when the world's lead does (it then stands, and its routine takes it home once
   * alone). Said as the resident, through the same door as its ocw_chat_send. */
  private watchLeads(simulationMs: number): void {
    const reads = this.deps.service.reads;
    for (const r of this.residents) {
      if (r.asleep) continue;
      const self = reads.getEntity(r.actor.entityId);
      const lead = self?.lead;
      const before = r.lead;
      r.lead = lead ? { with: lead.with, state: lead.state } : undefined;
      if (!self || !lead || (before?.with === lead.with && before.state === lead.state)) continue;
      const name = reads.getEntity(lead.with)?.name ?? "friend";
      let line: string | undefined;
      if (lead.state === "waiting") {
        if (r.toldWaitingAtMs !== undefined && simulationMs - r.toldWaitingAtMs < LEAD_WAIT_LINE_EVERY_MS)
          continue;
        r.toldWaitingAtMs = simulationMs;
        line = leadWaitingLine(name);
      } else if (lead.state === "left_behind") line = leadGaveUpLine(name);
      if (!line) continue;
      this.deps.service
        .call("chatSend", r.agentId, {
          agentId: r.agentId,
          roomId: self.roomId,
          txId: `tx_lead_${r.agentId}_${lead.state}_${reads.tick}`,
          channel: "proximity",
          message: line,
        })
        .catch(() => undefined);
    }
  }

  /** Someone other than a resident is near it (a person or an agent it may be with). */
  private hasCompany(self: Entity): boolean {
    const reads = this.deps.service.reads;
    const radius =
      reads.definition.proximityRadiusTiles * (reads.definition.rooms[self.roomId]?.tileSize ?? 32);
    return reads
      .queryRadius(self.roomId, self.pos, radius, 4)
      .some(
        ({ entity }) => entity.id !== self.id && entity.kind !== "object" && !this.residentIds.has(entity.id),
      );
  }

  /** Someone who spoke to it within the last returnHomeAfterSec is still within hearing (the chat
   * radius, which reaches further than "near"): it does not walk off in the middle of a talk. */
  private inConversation(r: Resident, self: Entity, simulationMs: number): boolean {
    const since = simulationMs - r.config.returnHomeAfterSec * 1000;
    for (const [id, atMs] of r.heardFrom) if (atMs < since) r.heardFrom.delete(id);
    if (r.heardFrom.size === 0) return false;
    const reads = this.deps.service.reads;
    const radius = reads.definition.chatRadiusTiles * (reads.definition.rooms[self.roomId]?.tileSize ?? 32);
    return reads
      .queryRadius(self.roomId, self.pos, radius, 8)
      .some(({ entity }) => r.heardFrom.has(entity.id));
  }

  /** An asleep resident tells one who comes near how to wake it (once an hour each): with no model
   * the world still shows its residents, and how to bring them to life. */
  private hintAsleep(
    r: Resident,
    events: readonly TickInfo["events"][number][],
    residents: Pick<ReadonlySet<string>, "has">,
  ): void {
    const hint = this.deps.asleepHint?.(r.agentId);
    if (!hint) return;
    const now = this.clock.now();
    for (const event of events) {
      const other = event.payload.otherId;
      if (event.type !== "proximity.enter" || event.payload.subjectId !== r.actor.entityId) continue;
      if (typeof other !== "string" || residents.has(other) || !withinShare(r.hinted, other, now, 1))
        continue;
      chargePeople(r.hinted, [other], now);
      // Through the same door as its ocw_chat_send (one txId per person told).
      this.deps.service
        .call("chatSend", r.agentId, {
          agentId: r.agentId,
          roomId: event.roomId,
          txId: `tx_asleep_${r.agentId}_${other}_${event.tick}`,
          channel: "proximity",
          message: hint,
        })
        .catch(() => undefined);
    }
  }

  /** One line to the room when a resident asleep at the last stop wakes with a model: the "asleep"
   * lines it said to people before are still in their chat. */
  private async sayAwake(r: Resident, roomId: string): Promise<void> {
    const said = await this.deps.service.call("chatSend", r.agentId, {
      agentId: r.agentId,
      roomId,
      txId: `tx_awake_${r.agentId}_${this.deps.service.reads.tick}`,
      channel: "global",
      message: AWAKE_LINE,
    });
    if (said.status !== "ok" && !this.stopped)
      this.deps.logger.warn(
        `openclawworld: resident ${r.agentId} could not say it woke: ${said.error.message}`,
      );
  }

  private startTurn(r: Resident): void {
    let happenings = r.pending.splice(0);
    // Talk between residents is held to the world's talk budget as the turn starts too (several
    // may have been woken on one tick): what no longer fits is dropped, and counted.
    const talk = happenings.filter(byResident);
    if (talk.length > 0) {
      const now = this.clock.now();
      const self = r.actor.entityId;
      const refused = talk.filter((h) => !mayTalk(this.talk, self, h.fromEntityId, now));
      r.refused.talkBudget += refused.length;
      happenings = happenings.filter((h) => !refused.includes(h));
      const talking = talk.filter((h) => !refused.includes(h)).map((h) => h.fromEntityId);
      if (talking.length > 0) chargeTalk(this.talk, self, talking, now);
      if (happenings.length === 0) return;
    }
    const reads = this.deps.service.reads;
    const self = reads.getEntity(r.actor.entityId);
    if (!self) {
      r.pending.unshift(...happenings);
      return;
    }
    const person = (entityId: string): PromptPerson => {
      const e = reads.getEntity(entityId);
      return {
        name: e?.name ?? entityId,
        kind: entityId.startsWith("hum_") ? "human" : "agent",
        ...(e && e.roomId === self.roomId
          ? { tiles: Math.max(Math.abs(e.tile.tx - self.tile.tx), Math.abs(e.tile.ty - self.tile.ty)) }
          : {}),
      };
    };
    const radius = reads.definition.chatRadiusTiles * (reads.definition.rooms[self.roomId]?.tileSize ?? 32);
    const nearby = reads
      .queryRadius(self.roomId, self.pos, radius, 8)
      .filter(({ entity }) => entity.id !== self.id && entity.kind !== "object")
      .map(({ entity }) => person(entity.id));
    const reply = replyChannel(happenings);
    const prompt = wakePrompt({
      agentId: r.agentId,
      name: r.config.name,
      roomName: reads.definition.rooms[self.roomId]?.name ?? self.roomId,
      tile: self.tile,
      happenings: happenings.map((h) => ({
        ...h,
        from: person(h.fromEntityId),
        ...(h.objectId ? this.objectOf(h.objectId) : {}),
      })),
      nearby,
      replyChannel: reply,
      ...(r.config.persona ? { persona: r.config.persona } : {}),
      ...this.placesOf(r.agentId, self.roomId),
      ...this.leadOf(r, happenings),
    });
    // Its last turn answered another resident: what it says wakes no resident (a reply goes
    // unanswered, so two residents exchange a line each and stop).
    if (happenings.some((h) => h.reason === "resident_spoke")) this.talk.replying.add(r.actor.entityId);
    else this.talk.replying.delete(r.actor.entityId);
    const now = this.clock.now();
    const record: TurnRecord = {
      wokeAtTick: Math.min(...happenings.map((h) => h.tick)),
      startedAtTick: reads.tick,
      startedAtMs: now,
      happenings: happenings.length,
      modelRequests: 0,
      prompt,
    };
    r.ledger.inFlight = true;
    r.ledger.starts.push(now);
    this.world.starts.push(now);
    pruneLedger(this.world, now);
    chargePeople(
      r.people,
      happenings.map((h) => h.fromEntityId),
      now,
    );
    r.lastTurn = record;
    const controller = new AbortController();
    this.runs += 1;
    const runId = `openclawworld-${r.agentId}-${now}-${this.runs}`;
    const wokenBy = happenings.map(({ reason, tick, roomId, fromEntityId }) => ({
      reason,
      tick,
      roomId,
      fromEntityId,
    }));
    const session = this.sessionOf(r);
    const retry = r.retrying;
    r.retrying = false;
    const done = this.runTurn(r, {
      prompt,
      runId,
      controller,
      record,
      session,
      reply,
      wokenBy,
      happenings,
      retry,
    });
    r.turn = { runId, controller, done, record, calls: new Set() };
    this.deps.onTurnStart?.(r.agentId, record);
  }

  /** Whom a resident that may walk with someone would lead: the newest who spoke to it or came near
   * (not a resident), else, arriving through a portal, the one it led there. */
  /** An object that waits for a move, as the prompt tells it (its name, state in words, what it takes). */
  private objectOf(objectId: string): { object?: PromptObject } {
    const reads = this.deps.service.reads;
    const view = reads.objectView(objectId);
    if (!view) return {};
    const def = Object.values(reads.definition.rooms)
      .flatMap((room) => room.objects)
      .find((o) => o.id === objectId);
    const words = objectStateInWords(view.objectType, view.state);
    return {
      object: {
        id: objectId,
        name: def?.name ?? objectId,
        ...(words ? { words } : {}),
        affords: view.affords.map((a) => `${a.action} (${a.label})`),
      },
    };
  }

  private leadOf(r: Resident, happenings: readonly Happening[]): { leadWith?: string } {
    if (!this.deps.mayLead?.(r.agentId)) return {};
    const asker = happenings.findLast((h) => h.reason !== "arrived" && !byResident(h))?.fromEntityId;
    const leadWith = asker ?? (happenings.some((h) => h.reason === "arrived") ? r.lead?.with : undefined);
    return leadWith ? { leadWith } : {};
  }

  private placesOf(agentId: string, roomId: string): { places?: Place[] } {
    const places = this.deps.placesFor?.(agentId, roomId);
    return places ? { places: [...places] } : {};
  }

  /** The session a resident's next turn runs in: the same for `sessionTurns` turns, then a fresh
   * one, so a resident that lives for days sends its model a bounded conversation. */
  private sessionOf(r: Resident): string {
    if (r.session.turns >= r.config.sessionTurns)
      r.session = { generation: r.session.generation + 1, turns: 0 };
    r.session.turns += 1;
    return `${this.epoch}-${r.session.generation}`;
  }

  private async runTurn(
    r: Resident,
    turn: {
      prompt: string;
      runId: string;
      controller: AbortController;
      record: TurnRecord;
      session: string;
      reply: "proximity" | "global";
      wokenBy: TurnRequest["wokenBy"];
      happenings: Happening[];
      /** It tries again what a turn refused for its held session was woken by. */
      retry: boolean;
    },
  ): Promise<void> {
    const timeoutMs = r.config.turnTimeoutSec * 1000;
    const timeout = this.clock.setTimeout(
      () =>
        turn.controller.abort(
          new CapReached("timeout", `the turn took longer than ${r.config.turnTimeoutSec} s`),
        ),
      timeoutMs,
    );
    let failure: unknown;
    try {
      // The mark goes up on the next tick while the turn already starts (it waits for no tick).
      const marked = this.setThinking(r, true).catch(() => undefined);
      const run = this.deps.runTurn({
        agentId: r.agentId,
        prompt: turn.prompt,
        runId: turn.runId,
        session: turn.session,
        replyChannel: turn.reply,
        wokenBy: turn.wokenBy,
        timeoutMs,
        signal: turn.controller.signal,
      });
      await this.endOf(run, turn.controller.signal, r.agentId);
      await marked;
    } catch (error) {
      failure = error;
      const cap = turn.controller.signal.reason;
      if (cap instanceof CapReached) r.refused[cap.cap] += 1;
      turn.record.error =
        cap instanceof CapReached
          ? error instanceof TurnAbandoned
            ? `${cap.message}; ${error.message}`
            : cap.message
          : describe(error);
      if (!this.stopped)
        this.deps.logger.warn(`openclawworld: resident ${r.agentId}'s turn failed: ${turn.record.error}`);
    } finally {
      this.clock.clearTimeout(timeout);
      turn.record.endedAtMs = this.clock.now();
      this.deps.onTurnEnd?.(r.agentId, turn.record, turn.wokenBy);
      r.turn = undefined;
      r.ledger.inFlight = false;
      if (!this.stopped) this.recordOutcome(r, turn, failure);
      await this.setThinking(r, false).catch(() => undefined);
      // What happened during the turn goes into the next one.
      try {
        this.schedule(r);
      } catch (error) {
        this.deps.logger.warn(`openclawworld: resident ${r.agentId}: ${describe(error)}`);
      }
    }
  }

  /** Waits for a turn to end; once it is cancelled, for TURN_END_GRACE_MS more at most. */
  private endOf(run: Promise<void>, signal: AbortSignal, agentId: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let grace: unknown;
      let ended = false;
      const end = (settle: () => void) => {
        if (ended) return;
        ended = true;
        if (grace !== undefined) this.clock.clearTimeout(grace);
        signal.removeEventListener("abort", onAbort);
        settle();
      };
      const onAbort = () => {
        grace = this.clock.setTimeout(
          () => end(() => reject(new TurnAbandoned(TURN_END_GRACE_MS))),
          TURN_END_GRACE_MS,
        );
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      run.then(
        () => end(resolve),
        (error: unknown) => {
          if (ended && !this.stopped)
            this.deps.logger.info(
              `openclawworld: resident ${agentId}'s abandoned turn ended at last: ${describe(error)}`,
            );
          end(() => reject(error));
        },
      );
    });
  }

  /** After a turn: one that ended well clears a failure; a failed one is recorded as failing (not a
   * turn cut at its cap on model requests: the resident is well, its model talked too much). A turn
   * that did not end by itself, or found its session held, leaves that session: the next turn starts
   * a fresh one. What a held session refused is tried once more, and what a busy gateway refused a few
   * times more, BUSY_RETRY_MS apart (not a failure until then); otherwise those who spoke are told. */
  private recordOutcome(
    r: Resident,
    turn: {
      controller: AbortController;
      record: TurnRecord;
      happenings: Happening[];
      retry: boolean;
      reply: "proximity" | "global";
    },
    failure: unknown,
  ): void {
    const cap = turn.controller.signal.reason;
    const capped =
      cap instanceof CapReached && cap.cap === "modelRequests" && !(failure instanceof TurnAbandoned);
    if (failure === undefined || capped) {
      r.busyRefusals = 0;
      if (r.failure) void this.mark(r, { kind: "unwell", unwell: false }).catch(() => undefined);
      r.failure = undefined;
      return;
    }
    const now = this.clock.now();
    if (failure instanceof GatewayBusy && r.busyRefusals < BUSY_RETRIES) {
      r.busyRefusals += 1;
      forget(r.ledger.starts, turn.record.startedAtMs);
      forget(this.world.starts, turn.record.startedAtMs);
      r.ledger.retryAtMs = now + BUSY_RETRY_MS;
      r.pending.unshift(...turn.happenings);
      if (r.pending.length > MAX_PENDING) r.pending.splice(MAX_PENDING);
      return;
    }
    r.busyRefusals = 0;
    const wasWell = r.failure === undefined;
    r.failure = {
      error: turn.record.error ?? describe(failure),
      sinceMs: r.failure?.sinceMs ?? now,
      lastAtMs: now,
      turns: (r.failure?.turns ?? 0) + 1,
    };
    if (wasWell) void this.mark(r, { kind: "unwell", unwell: true }).catch(() => undefined);
    const held = failure instanceof SessionStuck;
    if (held || turn.controller.signal.aborted)
      r.session = { generation: r.session.generation + 1, turns: 0 };
    if (held && !turn.retry) {
      r.pending.unshift(...turn.happenings);
      if (r.pending.length > MAX_PENDING) r.pending.splice(MAX_PENDING);
      r.retrying = true;
      return;
    }
    this.tellFailing(r, turn.happenings, turn.reply);
  }

  /** Tells the people whose words the failed turn was to answer that it cannot answer now: said as
   * the resident, where its answer would have been heard (as often as their words wake it: pacing
   * and their share bound it). */
  private tellFailing(r: Resident, happenings: readonly Happening[], channel: "proximity" | "global"): void {
    const self = this.deps.service.reads.getEntity(r.actor.entityId);
    const failure = r.failure;
    // An agent outside the gateway speaks for itself: the world says nothing in its name.
    if (!self || !failure || this.deps.joinsItself) return;
    if (!happenings.some((h) => !byResident(h) && h.reason !== "arrived")) return;
    // Through the same door as its ocw_chat_send (one txId per failure told).
    this.deps.service
      .call("chatSend", r.agentId, {
        agentId: r.agentId,
        roomId: self.roomId,
        txId: `tx_failing_${r.agentId}_${this.deps.service.reads.tick}_${failure.turns}`,
        channel,
        message: FAILING_LINE,
      })
      .catch(() => undefined);
  }

  private setThinking(r: Resident, thinking: boolean): Promise<void> {
    return this.mark(r, { kind: "thinking", thinking });
  }

  /** Sets one of its marks the page shows (thinking, asleep). */
  private async mark(r: Resident, input: Parameters<AicService["act"]>[1]): Promise<void> {
    // A stopped world applies nothing; start() clears a mark left in its saved state.
    if (this.stopped) return;
    const result = await this.deps.service.act(r.actor, input);
    if (result.status !== "ok" && !this.stopped)
      this.deps.logger.warn(
        `openclawworld: resident ${r.agentId}'s ${input.kind} mark: ${result.error.message}`,
      );
  }
}

/** Takes one start time out of a ledger's starts (a turn that never ran). */
function forget(starts: number[], atMs: number): void {
  const i = starts.lastIndexOf(atMs);
  if (i >= 0) starts.splice(i, 1);
}

/** A cancelled turn that did not end within its grace: it is let go of. */
class TurnAbandoned extends Error {
  constructor(graceMs: number) {
    super(`it did not end within ${graceMs / 1000} s of being cancelled`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
