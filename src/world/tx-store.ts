// Idempotent results by key, expiring in simulation time. Entries are kept in insertion order, which
// is also expiry order (the TTL is fixed), so the sweep only looks at the front.
import type { InputResult, WorldError } from "./types.ts";

/** The one answer to a reused idempotency key with a different payload, whether the first request
 * was applied ticks ago (the AIC service finds it before queueing) or in this same tick. */
export function txPayloadMismatch(): WorldError {
  return {
    code: "conflict",
    message: "this idempotency key (txId) was already used with a different payload",
    details: { reason: "tx_payload_mismatch" },
  };
}

/** `result` is never changed once stored (a replay answers a copy; snapshots share it). */
export interface TxEntry {
  key: string;
  payloadHash: string;
  result: InputResult;
  expiresAtMs: number;
}

export class TxStore {
  private readonly byKey = new Map<string, TxEntry>();
  private queue: TxEntry[] = [];
  private head = 0;

  get(key: string, nowMs: number): TxEntry | undefined {
    const entry = this.byKey.get(key);
    return entry && entry.expiresAtMs > nowMs ? entry : undefined;
  }

  put(entry: TxEntry): void {
    this.byKey.set(entry.key, entry);
    this.queue.push(entry);
  }

  sweep(nowMs: number): void {
    while (this.head < this.queue.length && this.queue[this.head]!.expiresAtMs <= nowMs) {
      const entry = this.queue[this.head++]!;
      if (this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
    }
    if (this.head >= 256 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** Live entries in insertion order. */
  entries(): TxEntry[] {
    return this.queue.slice(this.head).filter((e) => this.byKey.get(e.key) === e);
  }

  restore(entries: TxEntry[]): void {
    this.byKey.clear();
    this.queue = [];
    this.head = 0;
    for (const e of entries) this.put(e);
  }
}
