// The web surface's chat history before issue #26 (src/http/humans/chat-history.ts then), kept only for
// bench/lib/view-sync-before.ts, the "before" of bench/view-sync.bench.ts. Not used by the product.
// Recent room-wide chat, kept per room so a player who joins or reloads sees the conversation they
// walked into. Only the "global" (room) channel: proximity chat was never theirs to hear.
import type { WireEvent } from "../../src/http/humans/protocol.ts";

export const HISTORY_MAX = 30;
/** Older lines are not worth showing to someone arriving now (simulation ms). */
export const HISTORY_MAX_AGE_MS = 15 * 60_000;

export class ChatHistory {
  private readonly rooms = new Map<string, WireEvent[]>();

  /** Records a wire event if it is a room-wide chat line. */
  add(roomId: string, event: WireEvent): void {
    if (event.type !== "chat.message" || event.payload.channel !== "global") return;
    const lines = this.rooms.get(roomId) ?? [];
    lines.push(event);
    if (lines.length > HISTORY_MAX) lines.splice(0, lines.length - HISTORY_MAX);
    this.rooms.set(roomId, lines);
  }

  /** The recent lines of a room, oldest first. */
  recent(roomId: string, nowMs: number): WireEvent[] {
    return (this.rooms.get(roomId) ?? []).filter((e) => e.tsMs >= nowMs - HISTORY_MAX_AGE_MS);
  }
}
