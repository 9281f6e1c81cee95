// Recent chat shown to a player who joins or reloads: what the world says they may read of their room
// (WorldApi.chatHistoryFor: the lines they heard, nearby ones included, and the lines said to the
// whole room), so a reload brings back the conversation they were in, and private rooms stay private.
import type { WorldReads } from "../../aic/reads.ts";
import type { WireEvent } from "./protocol.ts";

export const HISTORY_MAX = 30;
/** Older lines are not worth showing to someone arriving now (simulation ms). */
export const HISTORY_MAX_AGE_MS = 15 * 60_000;

/** The recent lines `entityId` may read in `roomId`, oldest first, as chat events (no seq: the
 * browser tells lines apart by their message id). */
export function chatHistory(
  reads: Pick<WorldReads, "chatHistoryFor" | "serverTsMs">,
  entityId: string,
  roomId: string,
): WireEvent[] {
  const since = Math.max(0, reads.serverTsMs - HISTORY_MAX_AGE_MS);
  return reads.chatHistoryFor(entityId, roomId, since, HISTORY_MAX).map((m) => ({
    type: "chat.message",
    seq: 0,
    tsMs: m.tsMs,
    payload: {
      messageId: m.id,
      fromEntityId: m.fromEntityId,
      fromName: m.fromName,
      channel: m.channel,
      message: m.message,
      tsMs: m.tsMs,
    },
  }));
}
