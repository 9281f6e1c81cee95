// World events as the browser receives them: a chat line carries its speaker's name, and an object's
// state change carries the object's affordances after the change (a door that opened now offers
// "close"), so the client never acts on stale affordances.
import type { WorldReads } from "../../aic/reads.ts";
import type { WireEvent } from "./protocol.ts";

export function wireEvent(
  world: Pick<WorldReads, "getEntity" | "objectView">,
  e: { type: string; seq: number; tsMs: number; payload: Record<string, unknown> },
): WireEvent {
  const base = { type: e.type, seq: e.seq, tsMs: e.tsMs };
  if (e.type === "chat.message") {
    const from = world.getEntity(String(e.payload.fromEntityId));
    return { ...base, payload: { ...e.payload, fromName: from?.name ?? String(e.payload.fromEntityId) } };
  }
  if (e.type === "object.state_changed") {
    const view = world.objectView(String(e.payload.objectId));
    if (view) return { ...base, payload: { ...e.payload, affords: view.affords } };
  }
  return { ...base, payload: e.payload };
}
