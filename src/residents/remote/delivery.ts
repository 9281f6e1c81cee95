// Delivering wakes to targets outside the gateway so that nothing the world does waits on them
// (docs/wake-targets.md). Per target URL: a bounded queue holding at most one wake per agent (a new
// wake for an agent whose wake still waits is coalesced into it), one request in flight, retries with
// exponential back-off and jitter on 5xx, timeouts and network errors, none on 4xx (or a 3xx: no
// redirect is followed), and a circuit that opens after repeated failures, refuses wakes while open,
// and lets one through after its cool-down. `wake` returns at once; its promise settles when the
// wake is delivered or given up. Every timer callback and promise here catches its own errors.

export interface WakeRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request; resolves with its HTTP status, rejects on a network error or when aborted. */
export type Transport = (request: WakeRequest & { signal: AbortSignal }) => Promise<number>;

export interface DeliveryClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface DeliveryOptions {
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  queuePerTarget: number;
  breakerFailures: number;
  breakerCooldownMs: number;
}

/** How a delivery went; `answered`/`unanswered` are set later by whoever waits for the reply. */
export type DeliveryOutcome =
  | "queued"
  | "sending"
  | "retrying"
  | "delivered"
  | "answered"
  | "unanswered"
  | "failed";

export interface DeliveryRecord {
  deliveryId: string;
  agentId: string;
  reasons: string[];
  /** The target's origin (scheme, host, port): its path and credentials stay out of status. */
  target: string;
  outcome: DeliveryOutcome;
  attempts: number;
  queuedAtMs: number;
  deliveredAtMs?: number;
  answeredAtMs?: number;
  lastStatus?: number;
  error?: string;
  /** Wakes folded into this one while it waited. */
  coalesced: number;
}

export interface TargetStatus {
  target: string;
  circuit: "closed" | "open" | "half_open";
  consecutiveFailures: number;
  queued: number;
  sending: boolean;
  sent: number;
  delivered: number;
  failed: number;
  coalesced: number;
  refusedWhileOpen: number;
  openUntilMs?: number;
}

export class DeliveryFailed extends Error {
  readonly record: DeliveryRecord;
  constructor(record: DeliveryRecord) {
    super(`wake ${record.deliveryId} to ${record.target} failed: ${record.error ?? "unknown"}`);
    this.record = record;
  }
}

/** What one wake needs: who, why, and how to build its request (built at each attempt, so a
 * coalesced wake sends the freshest one). */
export interface WakeOrder {
  agentId: string;
  reasons: readonly string[];
  url: string;
  build: (deliveryId: string, nowMs: number) => WakeRequest;
  /** Checks the URL against the operator's policy before each send (throws to refuse it). */
  check?: (url: string) => Promise<void>;
}

interface Entry {
  order: WakeOrder;
  record: DeliveryRecord;
  waiters: { resolve: (r: DeliveryRecord) => void; reject: (e: Error) => void }[];
  /** Waiting for a retry: not in the queue, not in flight. */
  retryTimer?: unknown;
}

interface Target {
  key: string;
  queue: Entry[];
  sending?: Entry;
  retrying: Set<Entry>;
  consecutiveFailures: number;
  openUntilMs?: number;
  stats: { sent: number; delivered: number; failed: number; coalesced: number; refusedWhileOpen: number };
}

/** Records kept for status (newest last). */
const RECENT_MAX = 100;
/** A retry never waits longer than this, whatever the attempt. */
const RETRY_MAX_MS = 60_000;

export interface DeliveryDeps {
  transport: Transport;
  clock: DeliveryClock;
  options: DeliveryOptions;
  /** [0, 1): the jitter; injected so tests are exact. */
  random?: () => number;
  logger?: { warn(m: string): void };
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "invalid";
  }
}

/** A target is its URL without the query: one queue and circuit per endpoint. */
const targetKey = (url: string) => originOf(url) + new URL(url, "http://invalid").pathname;

const STOPPING = "the world is stopping";

export class WakeDeliveries {
  private readonly targets = new Map<string, Target>();
  private readonly recent: DeliveryRecord[] = [];
  private readonly deps: DeliveryDeps;
  private readonly random: () => number;
  private ids = 0;
  private stopped = false;
  /** The attempts in flight: stop cuts them rather than leaving them to their time limit. */
  private readonly inFlight = new Set<AbortController>();

  constructor(deps: DeliveryDeps) {
    this.deps = deps;
    this.random = deps.random ?? Math.random;
  }

  /** Queues a wake and returns at once; the promise settles when it is delivered or given up. */
  wake(order: WakeOrder): Promise<DeliveryRecord> {
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      const target = this.targetOf(order.url);
      const pending = [...target.queue, ...target.retrying].find((e) => e.order.agentId === order.agentId);
      if (pending) {
        pending.order = { ...order, reasons: [...new Set([...pending.order.reasons, ...order.reasons])] };
        pending.record.reasons = [...pending.order.reasons];
        pending.record.coalesced += 1;
        target.stats.coalesced += 1;
        pending.waiters.push(waiter);
        return;
      }
      const record = this.newRecord(order);
      const entry: Entry = { order, record, waiters: [waiter] };
      if (this.stopped) return this.fail(target, entry, STOPPING);
      if (this.circuit(target) === "open") {
        target.stats.refusedWhileOpen += 1;
        return this.fail(target, entry, "circuit open: the target failed repeatedly");
      }
      if (target.queue.length >= this.deps.options.queuePerTarget)
        return this.fail(target, entry, "queue full");
      target.queue.push(entry);
      this.pump(target);
    });
  }

  /** Marks a delivered wake as answered (its agent replied in the world) or not (timed out). */
  settle(deliveryId: string, outcome: "answered" | "unanswered"): void {
    const record = this.recent.find((r) => r.deliveryId === deliveryId);
    if (!record || (record.outcome !== "delivered" && record.outcome !== "failed")) return;
    if (record.outcome === "failed") return;
    record.outcome = outcome;
    if (outcome === "answered") record.answeredAtMs = this.deps.clock.now();
  }

  status(): { targets: TargetStatus[]; recent: DeliveryRecord[] } {
    return {
      targets: [...this.targets.values()].map((t) => ({
        target: t.key,
        circuit: this.circuit(t),
        consecutiveFailures: t.consecutiveFailures,
        queued: t.queue.length + t.retrying.size,
        sending: t.sending !== undefined,
        ...t.stats,
        ...(t.openUntilMs !== undefined ? { openUntilMs: t.openUntilMs } : {}),
      })),
      recent: this.recent.map((r) => ({ ...r, reasons: [...r.reasons] })),
    };
  }

  /** Gives up every waiting wake and cuts every one in flight (its address check too): a reload's
   * drain must not find a request of a stopped world still running. */
  stop(): void {
    this.stopped = true;
    for (const controller of this.inFlight) controller.abort(new Error(STOPPING));
    for (const target of this.targets.values()) {
      for (const entry of [...target.queue, ...target.retrying]) {
        if (entry.retryTimer !== undefined) this.deps.clock.clearTimeout(entry.retryTimer);
        this.fail(target, entry, STOPPING);
      }
      target.queue = [];
      target.retrying.clear();
    }
  }

  /** Keeps only the targets of these URLs (the ones in force): a replaced or removed target's row
   * and circuit go. A wake still on its way to one ends as it would have. */
  retain(urls: readonly string[]): void {
    const kept = new Set(urls.map(targetKey));
    for (const key of this.targets.keys()) if (!kept.has(key)) this.targets.delete(key);
  }

  private targetOf(url: string): Target {
    const key = targetKey(url);
    let target = this.targets.get(key);
    if (!target) {
      target = {
        key: originOf(url),
        queue: [],
        retrying: new Set(),
        consecutiveFailures: 0,
        stats: { sent: 0, delivered: 0, failed: 0, coalesced: 0, refusedWhileOpen: 0 },
      };
      this.targets.set(key, target);
    }
    return target;
  }

  private newRecord(order: WakeOrder): DeliveryRecord {
    this.ids += 1;
    const now = this.deps.clock.now();
    const record: DeliveryRecord = {
      deliveryId: `wk_${now.toString(36)}_${this.ids}`,
      agentId: order.agentId,
      reasons: [...order.reasons],
      target: originOf(order.url),
      outcome: "queued",
      attempts: 0,
      queuedAtMs: now,
      coalesced: 0,
    };
    this.recent.push(record);
    if (this.recent.length > RECENT_MAX) this.recent.splice(0, this.recent.length - RECENT_MAX);
    return record;
  }

  private circuit(target: Target): TargetStatus["circuit"] {
    if (target.openUntilMs === undefined) return "closed";
    return this.deps.clock.now() < target.openUntilMs ? "open" : "half_open";
  }

  /** Starts the next send when none is in flight (half open: only one probe until it succeeds). */
  private pump(target: Target): void {
    if (this.stopped || target.sending) return;
    const entry = target.queue.shift();
    if (!entry) return;
    target.sending = entry;
    this.attempt(target, entry).catch((error: unknown) => {
      this.deps.logger?.warn(`openclawworld: wake delivery: ${(error as Error).message}`);
    });
  }

  private async attempt(target: Target, entry: Entry): Promise<void> {
    const { record, order } = entry;
    record.outcome = "sending";
    record.attempts += 1;
    target.stats.sent += 1;
    let status: number | undefined;
    let error: string | undefined;
    const controller = new AbortController();
    const timer = this.deps.clock.setTimeout(
      () => controller.abort(new Error(`no answer within ${this.deps.options.timeoutMs} ms`)),
      this.deps.options.timeoutMs,
    );
    this.inFlight.add(controller);
    const cut = new Promise<never>((_, reject) =>
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason as Error), {
        once: true,
      }),
    );
    cut.catch(() => undefined);
    try {
      // The address check resolves the host: a slow resolver is bounded by the same time limit.
      await Promise.race([order.check?.(order.url), cut]);
      const request = order.build(record.deliveryId, this.deps.clock.now());
      status = await Promise.race([this.deps.transport({ ...request, signal: controller.signal }), cut]);
    } catch (e) {
      error = (e as Error).message;
      if ((e as { code?: string }).code === "target_refused") status = 0;
    } finally {
      this.deps.clock.clearTimeout(timer);
      this.inFlight.delete(controller);
      target.sending = undefined;
    }
    record.lastStatus = status;
    if (status !== undefined && status >= 200 && status < 300) {
      target.consecutiveFailures = 0;
      target.openUntilMs = undefined;
      target.stats.delivered += 1;
      record.outcome = "delivered";
      record.deliveredAtMs = this.deps.clock.now();
      for (const w of entry.waiters) w.resolve(record);
    } else if (status !== undefined && status < 500) {
      // 4xx: the target refused this wake (token, agent, body): sending it again would not help. A
      // 3xx is not followed (a redirect could lead anywhere), and a URL the policy refuses is final.
      this.fail(target, entry, error ?? `refused with HTTP ${status}`);
    } else {
      target.consecutiveFailures += 1;
      const opens = target.consecutiveFailures >= this.deps.options.breakerFailures;
      if (opens) target.openUntilMs = this.deps.clock.now() + this.deps.options.breakerCooldownMs;
      const why = error ?? `HTTP ${status}`;
      if (opens || record.attempts >= this.deps.options.maxAttempts || this.stopped) {
        this.fail(target, entry, opens ? `${why}; circuit opened` : why);
        if (opens) for (const queued of target.queue.splice(0)) this.fail(target, queued, "circuit open");
      } else this.retryLater(target, entry, why);
    }
    this.pump(target);
  }

  private retryLater(target: Target, entry: Entry, why: string): void {
    const { retryBaseMs } = this.deps.options;
    const backoff = Math.min(RETRY_MAX_MS, retryBaseMs * 2 ** (entry.record.attempts - 1));
    // Equal jitter: half the back-off always, the other half at random, so targets failing together
    // are not all retried in the same instant.
    const delay = Math.round(backoff / 2 + (this.random() * backoff) / 2);
    entry.record.outcome = "retrying";
    entry.record.error = why;
    target.retrying.add(entry);
    entry.retryTimer = this.deps.clock.setTimeout(() => {
      entry.retryTimer = undefined;
      target.retrying.delete(entry);
      if (this.stopped) return;
      if (this.circuit(target) === "open") return this.fail(target, entry, "circuit open");
      target.queue.unshift(entry);
      this.pump(target);
    }, delay);
  }

  private fail(target: Target, entry: Entry, why: string): void {
    target.stats.failed += 1;
    entry.record.outcome = "failed";
    entry.record.error = why;
    const error = new DeliveryFailed(entry.record);
    for (const w of entry.waiters) w.reject(error);
  }
}
