// The ONE rate limiter (PRD 12): a token bucket per (key, class). Shared by HTTP, tools and
// WebSocket through AicService. Memory is bounded: buckets that refilled completely carry no
// information and are swept; beyond `maxBuckets` the least recently used go first.

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
  /** Held-direction movement from humans (WASD changes); not an AIC endpoint. */
  moveDir: { perSec: 20, burst: 40 },
};

export interface RateLimitConfig {
  disabled?: boolean;
  classes?: Record<string, RateClass>;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export interface RateLimiterOptions extends RateLimitConfig {
  /** Monotonic milliseconds. */
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
  /** Requests refused, per class, since this limiter was made (for metrics). */
  private readonly denied = new Map<string, number>();

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
    this.now = options.now ?? (() => performance.now());
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
    const id = `${className}\u0000${key}`;
    const previous = this.buckets.get(id);
    let tokens = rate.burst;
    if (previous) {
      tokens = Math.min(
        rate.burst,
        previous.tokens + (Math.max(0, now - previous.updatedMs) * rate.perSec) / 1000,
      );
      this.buckets.delete(id);
    }
    if (++this.callsSinceSweep >= 1024) this.sweep(now);
    if (tokens >= 1) {
      this.buckets.set(id, { tokens: tokens - 1, updatedMs: now });
      this.evictOverflow();
      return { allowed: true };
    }
    this.buckets.set(id, { tokens, updatedMs: now });
    this.evictOverflow();
    this.denied.set(className, (this.denied.get(className) ?? 0) + 1);
    return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate.perSec)) };
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
      const rate = this.classes[id.slice(0, id.indexOf("\u0000"))];
      if (!rate) {
        this.buckets.delete(id);
        continue;
      }
      const refillMs = ((rate.burst - bucket.tokens) * 1000) / rate.perSec;
      if (now - bucket.updatedMs >= refillMs) this.buckets.delete(id);
    }
  }

  private evictOverflow(): void {
    while (this.buckets.size > this.maxBuckets) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
  }
}
