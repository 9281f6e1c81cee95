// World events as the browser receives them: a chat line carries its speaker's name, an object's
// state change carries the object's affordances after the change (a door that opened now offers
// "close", so the client never acts on stale affordances), and a portal trip names the other room.
import type { WorldEvent, WorldReads } from "../../aic/reads.ts";
import { speakerName } from "../../aic/reads.ts";
import type { WireEvent } from "./protocol.ts";

export function wireEvent(
  world: Pick<WorldReads, "getEntity" | "objectView" | "definition">,
  e: Pick<WorldEvent, "type" | "seq" | "tsMs" | "payload" | "toRoomId" | "fromRoomId">,
): WireEvent {
  const base = { type: e.type, seq: e.seq, tsMs: e.tsMs };
  // A portal trip: the page says "went to the Garden" / "came from the Lobby", not "left" / "joined".
  const roomName = (id: string) => world.definition.rooms[id]?.name ?? id;
  if (e.type === "presence.leave" && e.toRoomId !== undefined)
    return { ...base, payload: { ...e.payload, toRoom: roomName(e.toRoomId) } };
  if (e.type === "presence.join" && e.fromRoomId !== undefined)
    return { ...base, payload: { ...e.payload, fromRoom: roomName(e.fromRoomId) } };
  if (e.type === "chat.message") {
    const fromId = String(e.payload.fromEntityId);
    // The world's own lines (a reload that moved you) and an object's (a tour's guide) come from no
    // actor: named as they sign them.
    const fromName = speakerName(world.definition, fromId) ?? world.getEntity(fromId)?.name ?? fromId;
    return { ...base, payload: { ...e.payload, fromName } };
  }
  if (e.type === "object.state_changed") {
    const view = world.objectView(String(e.payload.objectId));
    if (view) return { ...base, payload: { ...e.payload, affords: view.affords } };
  }
  return { ...base, payload: e.payload };
}
