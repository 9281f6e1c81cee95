// The live host of one World: queues inputs from every transport, drives step() on a fixed
// interval, and tells listeners (long-polls, SSE, WebSocket sessions) what each tick produced.
// Wall-clock timers live here, never in src/world.
// With a journal, every tick is written durably before any of its answers is released (results to
// submitters, events to listeners): group commit per tick, so nothing acknowledged can be lost.
import type { Input, InputResult, StepResult, WorldApi, WorldEvent } from "../world/types.ts";

/** Durable storage of applied ticks. `commit` must not return before the tick is durable; when it
 * throws, the tick's answers are withheld and `recover` must return the world as last committed
 * (or throw: the runtime then stops). A store reached over the network (the cluster's shared log)
 * returns a promise: the tick's answers and events wait for it, and no next tick is stepped until it
 * settles, so the log holds ticks in order and never one the world did not confirm. */
export interface TickJournal {
  commit(inputs: readonly Input[], result: StepResult): void | Promise<void>;
  recover(): WorldApi;
}

export interface RuntimeLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface TickInfo {
  tick: number;
  serverTsMs: number;
  events: WorldEvent[];
  /** The inputs the tick applied, in order: the world is deterministic, so a replica that steps
   * the same inputs is the same world (the browsers' fan-out process keeps one). */
  inputs: readonly Input[];
}

export interface RuntimeHealth {
  running: boolean;
  ticks: number;
  failedTicks: number;
  /** Inputs whose application threw (each failed alone; the rest of its tick applied). */
  failedInputs: number;
  failedListeners: number;
  /** Ticks whose journal write failed (their answers were withheld and the world rolled back). */
  failedCommits: number;
  /** Wall-clock duration of recent ticks, for metrics (never fed back into the world). */
  lastTickMs: number;
  /** Recent busy share of the tick interval (step + listeners, smoothed); above 1 the tick falls behind.
   * Adapters shed new load (connections, joins) before it gets there. */
  load: number;
  queueDepth: number;
  /** Inputs refused because the queue was full (InputQueueFullError). */
  refusedInputs: number;
}

/** Thrown to callers whose input could not be applied because the host stopped or failed. */
export class RuntimeUnavailableError extends Error {
  readonly code: "room_not_ready" | "internal";
  constructor(code: "room_not_ready" | "internal", message: string) {
    super(message);
    this.code = code;
  }
}

interface Pending {
  input: Input;
  resolve(result: InputResult): void;
  reject(error: Error): void;
}

/** Thrown to a caller whose input found the queue full: the world is behind, and growing the queue
 * would only grow memory and every queued caller's wait. Retryable after about one tick. */
export class InputQueueFullError extends Error {
  readonly retryAfterMs: number;
  constructor(limit: number, retryAfterMs: number) {
    super(`the world is busy (${limit} inputs already wait for the next tick); retry shortly`);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Inputs that may wait for one tick. Far above what the rate limits let 1,000 participants send in
 * a tick (a handful each), so only a stalled or overloaded world reaches it (Nakama's match loop
 * drops input the same way when its bounded queue is full). */
export const DEFAULT_MAX_QUEUED_INPUTS = 10_000;

type TickListener = (info: TickInfo) => void;

/** Wall-clock cost of one applied tick: the world's step, and the whole tick (step, durable commit,
 * answers and every listener, e.g. the browsers' view sync), which is what bounds the tick rate. */
export interface TickTiming {
  stepMs: number;
  totalMs: number;
}

/** Ticks one timer callback may run when the loop is behind schedule (see schedule()). */
const MAX_TICKS_PER_TURN = 2;

export class WorldRuntime {
  private current: WorldApi;
  private readonly logger: RuntimeLogger;
  private readonly now: () => number;
  private queue: Pending[] = [];
  private readonly listeners = new Set<TickListener>();
  private readonly timingListeners = new Set<(timing: TickTiming) => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextDueMs = 0;
  private epoch = 0;
  /** A tick whose asynchronous commit has not settled: the next one waits for it. */
  private committing = false;
  /** The events of the tick whose journal write is in flight: not durable yet, and gone if the write
   * fails (the next owner of a cluster room numbers its own events the same), so no reader may see
   * them (firstUnreleasedSeq). */
  private unreleased: readonly WorldEvent[] = [];
  private stats = {
    ticks: 0,
    failedTicks: 0,
    failedInputs: 0,
    failedListeners: 0,
    failedCommits: 0,
    lastTickMs: 0,
    busyMs: 0,
  };
  /** Durable log of applied ticks; none = volatile (state lives only in memory until a snapshot). */
  journal: TickJournal | undefined;
  private readonly maxQueued: number;
  private refusedInputs = 0;
  /** The scene listeners were last told of: a tick that changed it (a host's `redefine`) counts as
   * a new world for them, like a restore (worldEpoch). */
  private toldScene: string;

  constructor(
    world: WorldApi,
    logger: RuntimeLogger,
    now: () => number = () => performance.now(),
    maxQueued: number = DEFAULT_MAX_QUEUED_INPUTS,
  ) {
    this.current = world;
    this.toldScene = world.definition.sceneHash;
    this.logger = logger;
    this.now = now;
    this.maxQueued = maxQueued;
  }

  /** The live world. It can be replaced between ticks (operator restore, journal rollback), so
   * callers read it through here each time instead of keeping it. */
  get world(): WorldApi {
    return this.current;
  }

  /** How many times the world was replaced (operator restore): adapters that keep a view of it (the
   * browsers' view sync) compare it to resend the whole view instead of a delta against a world that
   * no longer exists. A journal rollback does not count: it returns to what listeners were told. */
  get worldEpoch(): number {
    return this.epoch;
  }

  /** Swap in another world between ticks; queued inputs apply to it at the next tick. */
  replaceWorld(world: WorldApi): void {
    this.current = world;
    this.toldScene = world.definition.sceneHash;
    this.epoch += 1;
  }

  get tickMs(): number {
    return 1000 / this.world.definition.tickRate;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Queue an input; resolves with its result after the tick that applies it. */
  submit(input: Input): Promise<InputResult> {
    if (this.queue.length >= this.maxQueued) {
      this.refusedInputs += 1;
      return Promise.reject(new InputQueueFullError(this.maxQueued, Math.ceil(this.tickMs)));
    }
    return new Promise<InputResult>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
    });
  }

  /** Subscribe to tick results; the listener's own errors are caught and counted. */
  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribe to the timing of each applied tick (metrics); never fed back into the world. */
  onTickTiming(listener: (timing: TickTiming) => void): () => void {
    this.timingListeners.add(listener);
    return () => this.timingListeners.delete(listener);
  }

  /** Apply everything queued and advance one tick. The loop calls this; tests may call it directly. */
  stepNow(): StepResult | undefined {
    if (this.committing) return undefined;
    const batch = this.queue;
    this.queue = [];
    const started = this.now();
    const cpuStarted = process.cpuUsage();
    let result: StepResult;
    const inputs = batch.map((p) => p.input);
    try {
      result = this.world.step(inputs);
    } catch (error) {
      // The cause is for the operator (this log), never for the public status.
      this.stats.failedTicks += 1;
      this.logger.error(`openclawworld: tick failed: ${describe(error)}`);
      for (const p of batch)
        p.reject(new RuntimeUnavailableError("internal", "the world failed to apply this tick"));
      return undefined;
    } finally {
      this.stats.lastTickMs = this.now() - started;
    }
    if (this.journal) {
      const committed = this.commit(batch, result);
      if (committed === false) return undefined;
      if (committed !== true) {
        this.committing = true;
        this.unreleased = result.events;
        committed.then(
          (ok) => {
            this.committing = false;
            this.unreleased = [];
            if (ok) this.release(batch, result, started, cpuStarted);
          },
          (error: unknown) => {
            this.committing = false;
            this.unreleased = [];
            this.logger.error(`openclawworld: tick ${result.tick} release failed: ${describe(error)}`);
          },
        );
        return result;
      }
    }
    this.release(batch, result, started, cpuStarted);
    return result;
  }

  /** Answers the tick's callers and tells its listeners: only once the tick is durable. */
  private release(batch: Pending[], result: StepResult, started: number, cpuStarted: NodeJS.CpuUsage): void {
    this.stats.ticks += 1;
    if (this.world.definition.sceneHash !== this.toldScene) {
      // The maps changed under every view: browsers are sent their room whole (its map again).
      this.toldScene = this.world.definition.sceneHash;
      this.epoch += 1;
    }
    for (const failure of result.failures ?? []) {
      this.stats.failedInputs += 1;
      const input = batch[failure.index]?.input;
      this.logger.error(
        `openclawworld: tick ${result.tick}: ${input?.kind ?? "?"} input of ${input?.entityId ?? "?"} failed: ${failure.message}`,
      );
    }
    batch.forEach((p, i) => {
      const r = result.results[i];
      if (r) p.resolve(r);
      else p.reject(new RuntimeUnavailableError("internal", "the world returned no result for an input"));
    });
    const info: TickInfo = {
      tick: result.tick,
      serverTsMs: result.serverTsMs,
      events: result.events,
      inputs: batch.map((p) => p.input),
    };
    for (const listener of this.listeners) {
      try {
        listener(info);
      } catch (error) {
        this.stats.failedListeners += 1;
        this.logger.warn(`openclawworld: tick listener failed: ${describe(error)}`);
      }
    }
    // CPU time this process spent on the tick, not wall time: on a machine busy with other processes
    // the wall clock stretches while our own work does not, and that must not shed our humans.
    const cpu = process.cpuUsage(cpuStarted);
    this.stats.busyMs = this.stats.busyMs * 0.8 + ((cpu.user + cpu.system) / 1000) * 0.2;
    const totalMs = this.now() - started;
    if (this.timingListeners.size > 0) {
      const timing = { stepMs: this.stats.lastTickMs, totalMs };
      for (const listener of this.timingListeners) {
        try {
          listener(timing);
        } catch (error) {
          this.stats.failedListeners += 1;
          this.logger.warn(`openclawworld: tick timing listener failed: ${describe(error)}`);
        }
      }
    }
  }

  /** Writes the tick durably. On failure the tick never happened for anyone: its callers get a
   * retryable error (a retry with the same txId applies once), listeners hear nothing, and the world
   * goes back to the last committed state. */
  private commit(batch: Pending[], result: StepResult): boolean | Promise<boolean> {
    const journal = this.journal!;
    try {
      const pending = journal.commit(
        batch.map((p) => p.input),
        result,
      );
      if (!pending) return true;
      return pending.then(
        () => true,
        (error: unknown) => this.commitFailed(journal, batch, result, error),
      );
    } catch (error) {
      return this.commitFailed(journal, batch, result, error);
    }
  }

  private commitFailed(journal: TickJournal, batch: Pending[], result: StepResult, error: unknown): false {
    this.stats.failedCommits += 1;
    // The cause is for the operator (this log), never for the public status.
    this.logger.error(`openclawworld: tick ${result.tick} not saved, rolled back: ${describe(error)}`);
    for (const p of batch)
      p.reject(new RuntimeUnavailableError("internal", "the world could not save this tick; retry"));
    try {
      this.current = journal.recover();
    } catch (recoverError) {
      this.logger.error(
        `openclawworld: could not reload the saved world, stopping: ${describe(recoverError)}`,
      );
      this.stop();
    }
    return false;
  }

  /** The seq of the first event in `roomId` of a tick whose journal write is still in flight, if
   * any: event readers stop before it. Reads of state may run ahead of the journal, but an event
   * cursor must not: one past events that were never stored would skip the events that take
   * their numbers in the world restored from the journal (docs/cluster.md). */
  firstUnreleasedSeq(roomId: string): number | undefined {
    let first: number | undefined;
    for (const event of this.unreleased)
      if (event.roomId === roomId && (first === undefined || event.seq < first)) first = event.seq;
    return first;
  }

  start(): void {
    if (this.timer) return;
    this.nextDueMs = this.now() + this.tickMs;
    this.schedule();
    this.logger.info(
      `openclawworld: world "${this.world.definition.name}" ticking at ${this.world.definition.tickRate} Hz`,
    );
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.queue;
    this.queue = [];
    for (const p of pending) p.reject(new RuntimeUnavailableError("room_not_ready", "the world is stopping"));
  }

  health(): RuntimeHealth {
    return {
      running: this.running,
      ticks: this.stats.ticks,
      failedTicks: this.stats.failedTicks,
      failedInputs: this.stats.failedInputs,
      failedListeners: this.stats.failedListeners,
      failedCommits: this.stats.failedCommits,
      lastTickMs: this.stats.lastTickMs,
      load: this.stats.busyMs / this.tickMs,
      queueDepth: this.queue.length,
      refusedInputs: this.refusedInputs,
    };
  }

  // A self-correcting timeout chain: a late tick is followed by a shorter wait, and after a long
  // stall the schedule resets instead of bursting to catch up. In between, a tick that is already
  // due when the previous one ends runs right after it, up to MAX_TICKS_PER_TURN per callback (the
  // fixed-timestep catch-up of game loops): on a loop busy with I/O, a timer fires once per turn,
  // and one tick per turn would let simulation time fall behind the wall clock.
  private schedule(): void {
    const delay = Math.max(0, this.nextDueMs - this.now());
    this.timer = setTimeout(() => {
      for (let ran = 0; ran < MAX_TICKS_PER_TURN; ran++) {
        try {
          this.stepNow();
        } catch (error) {
          this.stats.failedTicks += 1;
          this.logger.error(`openclawworld: tick loop error: ${describe(error)}`);
        }
        if (!this.timer) return;
        this.nextDueMs += this.tickMs;
        const now = this.now();
        if (now - this.nextDueMs > this.tickMs * 5) this.nextDueMs = now + this.tickMs;
        if (this.nextDueMs > now) break;
      }
      this.schedule();
    }, delay);
    this.timer.unref?.();
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
