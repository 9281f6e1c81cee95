// Residents that live outside this gateway (docs/wake-targets.md): AIC agents the world
// wakes through a webhook or another OpenClaw gateway's wake hook. Each one is a resident of a
// ResidentScheduler (the same wake rules, pacing and world-wide budget as the gateway's own; the
// budget's ledger is shared), whose "turn" is: deliver a wake (delivery.ts, never awaited by the
// tick), then wait for the agent's reply in the world. The scheduler keeps its thinking mark up from
// the wake until that reply or the turn's time limit.

import { encodeCursor, START_CURSOR } from "../../aic/cursor.ts";
import { agentEntityId, type TickInfo } from "../../aic/reads.ts";
import type { AicService } from "../../aic/service.ts";
import type { WakeDeliveryConfig, WakeTargetConfig } from "../../config/config.ts";
import type { TalkBudget, WorldBudget } from "../pacing.ts";
import {
  type ResidentClock,
  ResidentScheduler,
  type ResidentState,
  realClock,
  type SchedulerDeps,
  type TurnRequest,
} from "../scheduler.ts";
import { type DeliveryRecord, type Transport, WakeDeliveries } from "./delivery.ts";
import { WAKE_NOTICE, wakeRequest } from "./payload.ts";
import { checkTargetUrl, type Resolve } from "./url-policy.ts";

export interface RemoteResidentsDeps {
  service: AicService;
  worldName: string;
  delivery: WakeDeliveryConfig;
  /** The AIC agent's name in the world (what wakes it when said). */
  nameOf: (agentId: string) => string;
  worldBudget: WorldBudget;
  /** The residents' talk budget, shared with the gateway's own residents: a remote resident whose
   * `wake.residents` is on talks with the others within it. */
  talkBudget?: TalkBudget;
  /** The gateway's own residents (their speech wakes no resident). */
  otherResidents?: () => ReadonlySet<string>;
  logger: { info(m: string): void; warn(m: string): void };
  clock?: ResidentClock;
  transport?: Transport;
  resolve?: Resolve;
  random?: () => number;
  /** Told as each wake ends (a remote turn: what woke it, how long the delivery took). */
  onTurnEnd?: SchedulerDeps["onTurnEnd"];
}

/** Sends with fetch, never following a redirect (the status of a 3xx comes back as it is). */
export const fetchTransport: Transport = async ({ url, headers, body, signal }) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    redirect: "manual",
    signal,
  });
  await res.body?.cancel().catch(() => undefined);
  return res.status;
};

/** Ticks whose first event seq per room is kept (a wake's cursor points just before it). */
const SEQ_TICKS = 1200;

interface Remote {
  config: WakeTargetConfig;
  scheduler: ResidentScheduler;
}

export class RemoteResidents {
  readonly deliveries: WakeDeliveries;
  private readonly remotes = new Map<string, Remote>();
  private readonly clock: ResidentClock;
  private readonly deps: RemoteResidentsDeps;
  /** tick -> room -> the seq of its first event that tick. */
  private readonly firstSeq = new Map<number, Map<string, number>>();
  private readonly replyWaiters = new Set<{ entityId: string; resolve: () => void }>();
  private unsubscribe: (() => void) | undefined;
  private started = false;
  /** ids(), kept until the set of remote residents changes. */
  private idSet: ReadonlySet<string> | undefined;
  private union: { own: ReadonlySet<string>; ids: ReadonlySet<string>; all: ReadonlySet<string> } | undefined;

  constructor(deps: RemoteResidentsDeps) {
    this.deps = deps;
    this.clock = deps.clock ?? realClock;
    this.deliveries = new WakeDeliveries({
      transport: deps.transport ?? fetchTransport,
      clock: this.clock,
      options: deps.delivery,
      ...(deps.random ? { random: deps.random } : {}),
      logger: deps.logger,
    });
  }

  /** The entity ids of every remote resident (the gateway's own scheduler ignores their speech). */
  ids(): ReadonlySet<string> {
    this.idSet ??= new Set([...this.remotes.keys()].map(agentEntityId));
    return this.idSet;
  }

  /** Every resident's entity id, remote and the gateway's own: none of their speech wakes one. */
  private allResidents(): ReadonlySet<string> {
    const own = this.deps.otherResidents?.();
    if (!own || own.size === 0) return this.ids();
    const ids = this.ids();
    if (this.union?.own !== own || this.union.ids !== ids)
      this.union = { own, ids, all: new Set([...ids, ...own]) };
    return this.union.all;
  }

  async start(targets: Readonly<Record<string, WakeTargetConfig>>): Promise<void> {
    this.started = true;
    this.unsubscribe = this.deps.service.reads.onTick((info) => this.onTick(info));
    for (const [agentId, config] of Object.entries(targets)) {
      try {
        await this.set(agentId, config);
      } catch (error) {
        this.deps.logger.warn(`openclawworld: wake target of ${agentId}: ${(error as Error).message}`);
      }
    }
  }

  /** Sets (or replaces) an agent's wake target; throws TargetRefused when the policy refuses its URL. */
  async set(agentId: string, config: WakeTargetConfig): Promise<void> {
    await checkTargetUrl(config.target.url, this.deps.delivery, this.deps.resolve);
    // The old target's row goes once the new one is in force: one of the same URL keeps its circuit.
    await this.stopRemote(agentId);
    const scheduler = new ResidentScheduler({
      service: this.deps.service,
      residents: { [agentId]: this.residentConfig(agentId, config) },
      runTurn: (turn) => this.wakeAndWait(turn),
      worldBudget: this.deps.worldBudget,
      ...(this.deps.talkBudget ? { talkBudget: this.deps.talkBudget } : {}),
      joinsItself: true,
      otherResidents: () => this.allResidents(),
      logger: this.deps.logger,
      clock: this.clock,
      ...(this.deps.onTurnEnd ? { onTurnEnd: this.deps.onTurnEnd } : {}),
    });
    this.remotes.set(agentId, { config, scheduler });
    this.idSet = undefined;
    this.retainDeliveryTargets();
    if (this.started) await scheduler.start();
  }

  async remove(agentId: string): Promise<boolean> {
    const removed = await this.stopRemote(agentId);
    this.retainDeliveryTargets();
    return removed;
  }

  private async stopRemote(agentId: string): Promise<boolean> {
    const remote = this.remotes.get(agentId);
    if (!remote) return false;
    this.remotes.delete(agentId);
    this.idSet = undefined;
    await remote.scheduler.stop();
    return true;
  }

  private retainDeliveryTargets(): void {
    this.deliveries.retain([...this.remotes.values()].map((r) => r.config.target.url));
  }

  targets(): Record<string, WakeTargetConfig> {
    return Object.fromEntries([...this.remotes].map(([id, r]) => [id, r.config]));
  }

  status(): {
    residents: (ResidentState & { target: { kind: string; url: string } })[];
    deliveries: ReturnType<WakeDeliveries["status"]>;
  } {
    return {
      residents: [...this.remotes].flatMap(([, r]) =>
        r.scheduler.states().map((s) => ({
          ...s,
          // What the wake said, not a prompt: remote turns are told no words.
          ...(s.lastTurn ? { lastTurn: { ...s.lastTurn, prompt: "" } } : {}),
          target: { kind: r.config.target.kind, url: new URL(r.config.target.url).origin },
        })),
      ),
      deliveries: this.deliveries.status(),
    };
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.deliveries.stop();
    await Promise.allSettled([...this.remotes.values()].map((r) => r.scheduler.stop()));
    for (const waiter of this.replyWaiters) waiter.resolve();
    this.replyWaiters.clear();
  }

  /** A resident's config for the scheduler: the target's wake rules and pacing; what only a turn in
   * this gateway uses (home, model requests, sessions) is never read for one that joins itself. */
  private residentConfig(agentId: string, c: WakeTargetConfig) {
    return {
      name: this.deps.nameOf(agentId),
      home: { roomId: "", tx: 0, ty: 0 },
      wake: c.wake,
      minIntervalSec: c.minIntervalSec,
      maxTurnsPerHour: c.maxTurnsPerHour,
      maxTurnsPerPersonPerHour: c.maxTurnsPerPersonPerHour,
      turnTimeoutSec: c.turnTimeoutSec,
      maxModelRequestsPerTurn: 100,
      sessionTurns: 1000,
      // It walks by itself: the scheduler never walks a remote resident home.
      returnHomeAfterSec: 86_400,
      // Its turns run in another gateway: nothing here to ready.
      prepareTurns: false,
    };
  }

  private onTick(info: TickInfo): void {
    const rooms = new Map<string, number>();
    for (const event of info.events) {
      if (!rooms.has(event.roomId)) rooms.set(event.roomId, event.seq);
      if (event.type !== "chat.message") continue;
      const from = event.payload.fromEntityId;
      for (const waiter of this.replyWaiters)
        if (waiter.entityId === from) {
          this.replyWaiters.delete(waiter);
          waiter.resolve();
        }
    }
    if (rooms.size > 0) this.firstSeq.set(info.tick, rooms);
    for (const tick of this.firstSeq.keys()) {
      if (tick > info.tick - SEQ_TICKS) break;
      this.firstSeq.delete(tick);
    }
  }

  /** The cursor just before the first event of `tick` in `roomId` (a start cursor when forgotten). */
  private cursorAt(roomId: string, tick: number): string {
    const seq = this.firstSeq.get(tick)?.get(roomId);
    return seq === undefined ? START_CURSOR : encodeCursor(roomId, seq - 1);
  }

  /** One remote "turn": the wake is delivered, then the agent's next word in the world ends it. */
  private async wakeAndWait(turn: TurnRequest): Promise<void> {
    const remote = this.remotes.get(turn.agentId);
    if (!remote) throw new Error("its wake target was removed");
    const entityId = agentEntityId(turn.agentId);
    const first = turn.wokenBy.reduce((a, b) => (b.tick < a.tick ? b : a), turn.wokenBy[0]!);
    const reasons = [...new Set(turn.wokenBy.map((w) => w.reason))];
    const { signal } = turn;
    // Listening starts before the wake goes out: a fast agent may answer before delivery settles.
    let replied!: () => void;
    const reply = new Promise<void>((resolve) => {
      replied = resolve;
    });
    const waiter = { entityId, resolve: () => replied() };
    this.replyWaiters.add(waiter);
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => undefined);
    let record: DeliveryRecord | undefined;
    try {
      record = await Promise.race([
        this.deliveries.wake({
          agentId: turn.agentId,
          reasons,
          url: remote.config.target.url,
          check: (url) => checkTargetUrl(url, this.deps.delivery, this.deps.resolve),
          build: (deliveryId, nowMs) =>
            wakeRequest(
              remote.config.target,
              {
                type: "openclawworld.wake",
                version: 1,
                deliveryId,
                world: {
                  name: this.deps.worldName,
                  ...(this.deps.delivery.publicBaseUrl
                    ? { aicBaseUrl: `${this.deps.delivery.publicBaseUrl.replace(/\/+$/, "")}/aic/v0.1` }
                    : {}),
                },
                agentId: turn.agentId,
                entityId,
                roomId: first.roomId,
                reasons,
                fromEntityIds: [...new Set(turn.wokenBy.map((w) => w.fromEntityId))],
                tick: first.tick,
                cursor: this.cursorAt(first.roomId, first.tick),
                notice: WAKE_NOTICE,
              },
              nowMs,
            ),
        }),
        aborted,
      ]);
      await Promise.race([reply, aborted]);
      this.deliveries.settle(record.deliveryId, "answered");
    } catch (error) {
      if (record) this.deliveries.settle(record.deliveryId, "unanswered");
      throw error;
    } finally {
      this.replyWaiters.delete(waiter);
    }
  }
}
