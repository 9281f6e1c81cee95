// Bounded per-room chat history (simulation time window plus a hard cap).
import type { ChatChannel, ChatMessageRecord } from "./types.ts";

/** History kept per room, in simulation ms (the contract asks for at least 300 s). */
export const CHAT_HISTORY_MS = 600_000;
export const CHAT_HISTORY_MAX = 5_000;

/** A record is never changed once added (its heardBy is frozen): readers get copies of the record,
 * snapshots share them. */
export class RoomChatLog {
  private records: ChatMessageRecord[] = [];
  private start = 0;

  add(record: ChatMessageRecord): void {
    Object.freeze(record.heardBy);
    this.records.push(record);
    this.prune(record.tsMs);
  }

  prune(nowMs: number): void {
    while (
      this.start < this.records.length &&
      (this.records.length - this.start > CHAT_HISTORY_MAX ||
        this.records[this.start]!.tsMs < nowMs - CHAT_HISTORY_MS)
    ) {
      this.start++;
    }
    if (this.start >= 256 && this.start * 2 >= this.records.length) {
      this.records = this.records.slice(this.start);
      this.start = 0;
    }
  }

  visibleTo(recipientId: string, sinceTsMs: number, channel?: ChatChannel): ChatMessageRecord[] {
    const out: ChatMessageRecord[] = [];
    for (let i = this.start; i < this.records.length; i++) {
      const r = this.records[i]!;
      if (r.tsMs < sinceTsMs || (channel && r.channel !== channel) || !r.heardBy.includes(recipientId))
        continue;
      out.push({ ...r });
    }
    return out;
  }

  /** The newest `limit` records since `sinceTsMs` that `recipientId` heard or that were said to the
   * whole room (global, not inside a private room), oldest first: what someone arriving now may read.
   * Scans from the newest, so it stops after `limit` however long the log is. */
  historyFor(recipientId: string, sinceTsMs: number, limit: number): ChatMessageRecord[] {
    const out: ChatMessageRecord[] = [];
    for (let i = this.records.length - 1; i >= this.start && out.length < limit; i--) {
      const r = this.records[i]!;
      if (r.tsMs < sinceTsMs) break;
      if ((r.channel === "global" && r.zone === undefined) || r.heardBy.includes(recipientId))
        out.push({ ...r });
    }
    return out.reverse();
  }

  all(): ChatMessageRecord[] {
    return this.records.slice(this.start);
  }

  /** Consecutive records heard by the same ids share one frozen array again, as they did live. */
  restore(records: ChatMessageRecord[]): void {
    let previous: readonly string[] | undefined;
    for (const r of records) {
      if (previous && sameIds(previous, r.heardBy)) r.heardBy = previous;
      else previous = Object.freeze(r.heardBy);
    }
    this.records = records;
    this.start = 0;
  }
}

/** Whether two lists of ids are equal (the same array, at once). */
export function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
