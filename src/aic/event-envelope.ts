// One event's AIC envelope (PRD 9.3): what pollEvents pages and the SSE stream carry.
import type { WorldEvent } from "../world/types.ts";
import { encodeCursor } from "./cursor.ts";
import type { EventEnvelopeT } from "./schemas.ts";

export function envelopeOf(event: WorldEvent): EventEnvelopeT {
  return {
    cursor: encodeCursor(event.roomId, event.seq),
    type: event.type,
    roomId: event.roomId,
    tsMs: event.tsMs,
    payload: event.payload,
  };
}
