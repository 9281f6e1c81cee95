// A human or agent enters a room (the world's default room unless it names one); joining another
// room is a leave and a join; a resident asks for its home tile.
import { fail } from "../core.ts";
import { AGENT_ENTITY_PREFIX, HUMAN_ENTITY_PREFIX, nameProblem, ROOM_ID_PATTERN } from "../ids.ts";
import { homeTile, newActor, pickSpawn, placeActor, removeActor } from "../placement.ts";
import type { ActorKind, TileCoord } from "../types.ts";
import { bad, defineAction, isInt, isPlainObject } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    join: {
      actorKind: ActorKind;
      name: string;
      /** Room to join; the world's default room when omitted. */
      joinRoomId?: string;
      /** Where to appear (a resident's home); a random spawn point when omitted, blocked or outside. */
      at?: TileCoord;
    };
  }
  interface ActionValues {
    join: { entityId: string; roomId: string; tile: TileCoord };
  }
}

export const join = defineAction({
  kind: "join",
  rateClass: "session",
  freeText: true,
  check(i) {
    if (i.actorKind !== "human" && i.actorKind !== "agent")
      return bad('actorKind must be "human" or "agent"');
    const prefix = i.actorKind === "human" ? HUMAN_ENTITY_PREFIX : AGENT_ENTITY_PREFIX;
    if (!i.entityId.startsWith(prefix)) return bad(`a ${i.actorKind} entityId starts with ${prefix}`);
    if (typeof i.name !== "string" || i.name.length < 1 || i.name.length > 64)
      return bad("name must be 1..64 chars");
    const refused = nameProblem(i.name, i.actorKind);
    if (refused) return bad(refused);
    if (
      i.joinRoomId !== undefined &&
      (typeof i.joinRoomId !== "string" || !ROOM_ID_PATTERN.test(i.joinRoomId))
    ) {
      return bad(`joinRoomId must match ${ROOM_ID_PATTERN.source}`);
    }
    if (i.at !== undefined) {
      const at = i.at as Record<string, unknown>;
      if (!isPlainObject(at) || !isInt(at.tx) || !isInt(at.ty)) return bad("at must be {tx, ty} integers");
    }
    return undefined;
  },
  apply(w, input) {
    const roomId = input.joinRoomId ?? input.roomId ?? w.definition.defaultRoomId;
    const room = w.rooms.get(roomId);
    if (!room) return fail("not_found", `room "${roomId}" does not exist`);
    w.transfers.returned(input.entityId);
    const existing = w.actors.get(input.entityId);
    if (existing && existing.roomId === roomId) {
      return {
        ok: true,
        value: { kind: "join", entityId: existing.id, roomId, tile: { tx: existing.tx, ty: existing.ty } },
      };
    }
    // Moving between rooms is a leave + join; "disconnect" is the closest reason the events schema allows.
    if (existing) removeActor(w, existing, "disconnect");
    const tile = homeTile(room, input.at) ?? pickSpawn(w, room);
    const actor = newActor(w, input.entityId, input.actorKind, input.name, room, tile);
    placeActor(w, actor, room);
    return { ok: true, value: { kind: "join", entityId: actor.id, roomId, tile } };
  },
});
