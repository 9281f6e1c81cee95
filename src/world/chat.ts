// Bounded per-room chat history (simulation time window plus a hard cap).
import type { ChatChannel, ChatMessageRecord } from "./types.ts";

/** History kept per room, in simulation ms (the contract asks for at least 300 s). */
export const CHAT_HISTORY_MS = 600_000;
export const CHAT_HISTORY_MAX = 5_000;

/** A record is never changed once added: readers get copies, snapshots share them. */
export class RoomChatLog {
  private records: ChatMessageRecord[] = [];
  private start = 0;

  add(record: ChatMessageRecord): void {
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
      out.push({ ...r, heardBy: [...r.heardBy] });
    }
    return out;
  }

  all(): ChatMessageRecord[] {
    return this.records.slice(this.start);
  }

  restore(records: ChatMessageRecord[]): void {
    this.records = records;
    this.start = 0;
  }
}
