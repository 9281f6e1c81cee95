// One event's AIC envelope (PRD 9.3) and its JSON, made once and shared by every reader. In a crowd a
// global chat is read by hundreds of agents; serializing it again for each page made a page of 50
// events ~3x dearer (bench:aic "event pages", figures in docs/performance-history.md), and the
// cursors alone were 2.7 % of the gateway's time at 1,000 participants.
import type { WorldEvent } from "../world/types.ts";
import { encodeCursor } from "./cursor.ts";
import type { AicResult } from "./errors.ts";
import type { EventEnvelopeT } from "./schemas.ts";

/** Where an event keeps its envelope and the envelope its JSON: a symbol-keyed, non-enumerable
 * property, which JSON, snapshots and equality checks never see. Not a WeakMap: an event lives for
 * seconds (long enough to reach the old generation), and tens of thousands of WeakMap entries made
 * every garbage collection walk them as ephemerons. */
const SLOT = Symbol("aic.envelope");

interface Slot {
  envelope: EventEnvelopeT;
  /** The envelope's JSON, once a page needed it (the envelope is frozen, so it never goes stale). */
  text: string | undefined;
}

type Carrier = { [SLOT]?: Slot };

/** The event's envelope: the same frozen object for every reader of the event. */
export function envelopeOf(event: WorldEvent): EventEnvelopeT {
  const carrier = event as WorldEvent & Carrier;
  let slot = carrier[SLOT];
  if (!slot) {
    const envelope: EventEnvelopeT = {
      cursor: encodeCursor(event.roomId, event.seq),
      type: event.type,
      roomId: event.roomId,
      tsMs: event.tsMs,
      payload: event.payload,
    };
    slot = { envelope, text: undefined };
    Object.defineProperty(envelope, SLOT, { value: slot });
    Object.freeze(envelope);
    if (Object.isExtensible(event)) Object.defineProperty(event, SLOT, { value: slot });
  }
  return slot.envelope;
}

/** An envelope's JSON: serialized once for envelopes made by envelopeOf. */
export function envelopeJson(envelope: EventEnvelopeT): string {
  const slot = (envelope as EventEnvelopeT & Carrier)[SLOT];
  if (!slot) return JSON.stringify(envelope);
  slot.text ??= JSON.stringify(envelope);
  return slot.text;
}

/** A result as JSON, exactly JSON.stringify's text; a page of events (`data.events` first, as pages
 * are built) is joined from its envelopes' shared texts instead of serialized again. */
export function resultJson(result: AicResult<unknown>): string {
  const data = result.status === "ok" ? result.data : undefined;
  if (typeof data !== "object" || data === null) return JSON.stringify(result);
  const keys = Object.keys(data);
  const events = (data as { events?: unknown }).events;
  if (keys[0] !== "events" || !Array.isArray(events)) return JSON.stringify(result);
  if (!events.every((e) => typeof e === "object" && e !== null)) return JSON.stringify(result);
  const { events: _, ...rest } = data as Record<string, unknown>;
  const tail = JSON.stringify(rest);
  const parts = events.map((e) => envelopeJson(e as EventEnvelopeT));
  return `{"status":"ok","data":{"events":[${parts.join(",")}]${tail === "{}" ? "}" : `,${tail.slice(1)}`}}`;
}
