// Idempotent results by key, expiring in simulation time and bounded per actor. Entries are kept in
// insertion order, which is also expiry order (the TTL is fixed), so the sweep only looks at the
// front. Each actor keeps at most `maxPerOwner` live results (under a flood of distinct
// txIds the records, not the rate limits, decided how large the world and its store grew): beyond
// that its oldest goes first, so one actor's flood never costs another actor a record.
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
  /** The entity whose input it answered (absent in snapshots written before the bound). */
  owner?: string;
}

/** A queue of entries with a moving head: shift without copying, compacted now and then. */
class EntryQueue {
  items: TxEntry[] = [];
  head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  first(): TxEntry | undefined {
    return this.items[this.head];
  }

  shift(): TxEntry | undefined {
    const entry = this.items[this.head];
    if (entry) this.head += 1;
    if (this.head >= 256 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return entry;
  }
}

export class TxStore {
  private readonly byKey = new Map<string, TxEntry>();
  private readonly queue = new EntryQueue();
  private readonly byOwner = new Map<string, EntryQueue>();
  private readonly maxPerOwner: number;

  constructor(maxPerOwner = Number.POSITIVE_INFINITY) {
    this.maxPerOwner = maxPerOwner;
  }

  get(key: string, nowMs: number): TxEntry | undefined {
    const entry = this.byKey.get(key);
    return entry && entry.expiresAtMs > nowMs ? entry : undefined;
  }

  put(entry: TxEntry): void {
    this.byKey.set(entry.key, entry);
    this.queue.items.push(entry);
    // Records restored from a snapshot written before the bound name no owner: they are not bounded
    // (they expire by TTL), so a restore never drops one.
    const owner = entry.owner;
    if (owner === undefined) return;
    let mine = this.byOwner.get(owner);
    if (!mine) {
      mine = new EntryQueue();
      this.byOwner.set(owner, mine);
    }
    mine.items.push(entry);
    while (mine.length > this.maxPerOwner) this.forget(mine.shift()!);
  }

  sweep(nowMs: number): void {
    while (this.queue.length > 0 && this.queue.first()!.expiresAtMs <= nowMs) {
      const entry = this.queue.shift()!;
      this.forget(entry);
      // Per owner, insertion order is expiry order too: an expired entry is at its queue's front
      // (unless the bound already took it).
      if (entry.owner === undefined) continue;
      const mine = this.byOwner.get(entry.owner);
      if (mine?.first() === entry) mine.shift();
      if (mine && mine.length === 0) this.byOwner.delete(entry.owner);
    }
  }

  /** Live entries in insertion order. */
  entries(): TxEntry[] {
    return this.queue.items.slice(this.queue.head).filter((e) => this.byKey.get(e.key) === e);
  }

  /** Live results held (tests and metrics). */
  get size(): number {
    return this.byKey.size;
  }

  restore(entries: TxEntry[]): void {
    this.byKey.clear();
    this.queue.items = [];
    this.queue.head = 0;
    this.byOwner.clear();
    for (const e of entries) this.put(e);
  }

  private forget(entry: TxEntry): void {
    if (this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
  }
}
