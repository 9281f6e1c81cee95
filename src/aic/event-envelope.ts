// One event's AIC envelope (PRD 9.3), made once and shared by every reader (its JSON too, see
// shared-json.ts). In a crowd a global chat is read by hundreds of agents; building, cursor-encoding
// and serializing it again for each page was a tenth of the gateway's time at 1,000 participants.
import type { WorldEvent } from "../world/types.ts";
import { encodeCursor } from "./cursor.ts";
import type { EventEnvelopeT } from "./schemas.ts";
import { share } from "./shared-json.ts";

const envelopes = new WeakMap<WorldEvent, EventEnvelopeT>();

/** The event's envelope: the same frozen object for every reader of the event. */
export function envelopeOf(event: WorldEvent): EventEnvelopeT {
  let envelope = envelopes.get(event);
  if (!envelope) {
    envelope = share(
      Object.freeze({
        cursor: encodeCursor(event.roomId, event.seq),
        type: event.type,
        roomId: event.roomId,
        tsMs: event.tsMs,
        payload: event.payload,
      }),
    );
    envelopes.set(event, envelope);
  }
  return envelope;
}
