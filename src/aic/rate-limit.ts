// The ONE rate limiter (PRD 12): a token bucket per (key, class). Shared by HTTP, tools and
// WebSocket through AicService. Memory is bounded: buckets that refilled completely carry no
// information and are swept; beyond `maxBuckets` the least recently used go first.
// Buckets survive a restart: the clock is wall-clock epoch milliseconds, so a stored
// bucket means the same thing in the next process, and a limiter that `persist`s records which
// buckets changed; the wiring (src/plugin) writes those with the world's tick commits, and an answer
// that does not wait for a tick awaits `settled()`. Only a grant changes a bucket: a refusal
// leaves it as it was (its refill curve is the same), so a refusal has nothing to make durable.

export interface RateClass {
  perSec: number;
  burst: number;
}

export const DEFAULT_RATE_CLASSES: Record<string, RateClass> = {
  observe: { perSec: 2, burst: 5 },
  pollEvents: { perSec: 4, burst: 10 },
  chatSend: { perSec: 1, burst: 3 },
  /** moveTo + interact share one bucket (PRD 12 "moveTo/interact"). */
  action: { perSec: 5, burst: 10 },
  chatObserve: { perSec: 2, burst: 5 },
  /** POST /heartbeat itself; an embedded action also takes from its own endpoint's class. */
  heartbeat: { perSec: 1, burst: 5 },
  /** POST /memory/reflect: reflections are occasional syntheses, not a chat channel. */
  reflect: { perSec: 0.2, burst: 5 },
  /** join + leave. */
  session: { perSec: 1, burst: 5 },
  /** A resident's "thinking" mark, set and cleared around each of its turns, its "asleep" and "unwell" marks;
   * not AIC endpoints. */
  presence: { perSec: 5, burst: 10 },
  /** Held-direction movement from humans (WASD changes); not an AIC endpoint. */
  moveDir: { perSec: 20, burst: 40 },
};

export interface RateLimitConfig {
  disabled?: boolean;
  classes?: Record<string, RateClass>;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/** A bucket as it is stored: tokens left at `updatedMs` (wall-clock epoch ms). */
export interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** One bucket by its (class, key); `bucket` undefined = gone (swept, evicted: a full bucket). */
export interface BucketChange {
  className: string;
  key: string;
  bucket: Bucket | undefined;
}

export interface RateLimiterOptions extends RateLimitConfig {
  /** Milliseconds; wall-clock epoch time by default so stored buckets mean the same after a restart. */
  now?: () => number;
  maxBuckets?: number;
}

export class RateLimiter {
  readonly disabled: boolean;
  private readonly classes: Record<string, RateClass>;
  private readonly now: () => number;
  private readonly maxBuckets: number;
  // Map iteration order is insertion order; re-inserting on use makes it an LRU.
  private readonly buckets = new Map<string, Bucket>();
  private callsSinceSweep = 0;
  /** Calls at the cap until the next sweep there (see evictOverflow). */
  private overflowSweepIn = 0;
  /** Requests refused, per class, since this limiter was made (for metrics). */
  private readonly denied = new Map<string, number>();
  /** Buckets changed since the last `written()`; only recorded once `persist` was called. */
  private changes: Map<string, Bucket | undefined> | undefined;
  private settleHook: (() => void) | undefined;
  /** The write this event-loop turn's callers of `settled()` wait for, once one of them asked. */
  private batch: Promise<void> | undefined;

  constructor(options: RateLimiterOptions = {}) {
    this.disabled = options.disabled === true;
    this.classes = { ...DEFAULT_RATE_CLASSES, ...(options.classes ?? {}) };
    for (const [name, rate] of Object.entries(this.classes)) {
      if (
        !(rate.perSec > 0) ||
        !(rate.burst >= 1) ||
        !Number.isFinite(rate.perSec) ||
        !Number.isFinite(rate.burst)
      ) {
        throw new RangeError(`rate class "${name}" needs perSec > 0 and burst >= 1`);
      }
    }
    this.now = options.now ?? (() => Date.now());
    this.maxBuckets = Math.max(16, options.maxBuckets ?? 10_000);
  }

  classFor(name: string): RateClass {
    const rate = this.classes[name];
    if (!rate) throw new RangeError(`unknown rate class "${name}"`);
    return rate;
  }

  /** Take one token for `key` in `className`. */
  take(key: string, className: string): RateDecision {
    if (this.disabled) return { allowed: true };
    const rate = this.classFor(className);
    const now = this.now();
    const id = bucketId(className, key);
    let previous = this.buckets.get(id);
    if (previous) {
      this.buckets.delete(id);
      // The wall clock went back (NTP step, another machine's clock after a restore): count from now
      // instead of freezing the bucket until the clock catches up.
      if (now < previous.updatedMs) {
        previous = { tokens: previous.tokens, updatedMs: now };
        this.changed(id, previous);
      }
    }
    if (++this.callsSinceSweep >= 1024) this.sweep(now);
    const tokens = previous
      ? Math.min(rate.burst, previous.tokens + ((now - previous.updatedMs) * rate.perSec) / 1000)
      : rate.burst;
    if (tokens >= 1) {
      const bucket = { tokens: tokens - 1, updatedMs: now };
      this.buckets.set(id, bucket);
      this.changed(id, bucket);
      this.evictOverflow(now);
      return { allowed: true };
    }
    // A refusal keeps the bucket as it was (only its LRU position moves): the same refill curve, so
    // the refusal changes nothing that would have to be saved.
    this.buckets.set(id, previous!);
    this.denied.set(className, (this.denied.get(className) ?? 0) + 1);
    return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate.perSec)) };
  }

  /** Start recording which buckets change, for a durable store; `settle` must make every change so
   * far durable before it returns, or throw (the service awaits `settled()` before answering outside a
   * tick). */
  persist(settle: () => void): void {
    this.changes ??= new Map();
    this.settleHook = settle;
  }

  /** Resolves once every change so far is durable; rejects if the store could not write them (they
   * stay pending, for the next write). One write serves every caller of an event-loop turn: the first
   * schedules it with setImmediate, which runs after the poll phase, so all the requests read in that
   * phase share one transaction instead of one each (a write per read was ~7 % of the
   * gateway's thread at 1,000 participants). Nothing pending: resolved at once. */
  settled(): Promise<void> {
    const hook = this.settleHook;
    if (!hook || !this.changes || this.changes.size === 0) return Promise.resolve();
    if (this.batch) return this.batch;
    this.batch = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        // Cleared first: a caller after this write (a continuation of it) needs a write of its own.
        this.batch = undefined;
        try {
          if (this.changes && this.changes.size > 0) hook();
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.batch;
  }

  /** Changes since the last `written()`. */
  pendingChanges(): BucketChange[] {
    if (!this.changes) return [];
    return [...this.changes].map(([id, bucket]) => {
      const [className, key] = splitBucketId(id);
      return { className, key, bucket: bucket ? { ...bucket } : undefined };
    });
  }

  /** The changes last returned by `pendingChanges` are durable. Call it synchronously after them. */
  written(): void {
    this.changes?.clear();
  }

  /** Loads stored buckets (after a restart). Unknown classes are dropped (the config changed), tokens
   * are capped at the class's burst and a bucket from the clock's future counts from now. */
  load(stored: Iterable<BucketChange>): void {
    const now = this.now();
    for (const { className, key, bucket } of stored) {
      const rate = this.classes[className];
      if (!rate || !bucket || !Number.isFinite(bucket.tokens) || !Number.isFinite(bucket.updatedMs)) continue;
      this.buckets.set(bucketId(className, key), {
        tokens: Math.max(0, Math.min(rate.burst, bucket.tokens)),
        updatedMs: Math.min(now, bucket.updatedMs),
      });
    }
    this.evictOverflow(now);
  }

  /** Every bucket held (tests compare limiters with it). */
  allBuckets(): BucketChange[] {
    return [...this.buckets].map(([id, bucket]) => {
      const [className, key] = splitBucketId(id);
      return { className, key, bucket: { ...bucket } };
    });
  }

  /** Refusals per class since this limiter was made. */
  deniedCounts(): ReadonlyMap<string, number> {
    return this.denied;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drop buckets that have refilled completely: they are indistinguishable from new ones. */
  sweep(now = this.now()): void {
    this.callsSinceSweep = 0;
    for (const [id, bucket] of this.buckets) {
      const rate = this.classes[splitBucketId(id)[0]];
      if (!rate) {
        this.buckets.delete(id);
        this.changed(id, undefined);
        continue;
      }
      const refillMs = ((rate.burst - bucket.tokens) * 1000) / rate.perSec;
      if (now - bucket.updatedMs >= refillMs) {
        this.buckets.delete(id);
        this.changed(id, undefined);
      }
    }
  }

  private evictOverflow(now = this.now()): void {
    if (this.buckets.size <= this.maxBuckets) return;
    // Refilled buckets carry nothing, so they go before any LRU eviction: otherwise the cap could
    // forget a limit that still holds (a long class's empty bucket) while keeping ones
    // that no longer do. A sweep that freed little is not repeated for as many calls as it cost.
    if (this.overflowSweepIn <= 0) {
      const before = this.buckets.size;
      this.sweep(now);
      this.overflowSweepIn =
        before - this.buckets.size >= this.maxBuckets / 8 ? 0 : Math.ceil(this.maxBuckets / 8);
    } else this.overflowSweepIn -= 1;
    while (this.buckets.size > this.maxBuckets) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
      this.changed(oldest, undefined);
    }
  }

  private changed(id: string, bucket: Bucket | undefined): void {
    this.changes?.set(id, bucket);
  }
}

function bucketId(className: string, key: string): string {
  return `${className}\u0000${key}`;
}

function splitBucketId(id: string): [className: string, key: string] {
  const at = id.indexOf("\u0000");
  return [id.slice(0, at), id.slice(at + 1)];
}
