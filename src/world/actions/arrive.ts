// A traveller from another world (transfers.ts), sent only by the cluster host from the target
// world's handoff stream. Placed once per transfer id: a record delivered again (a new owner of the
// source re-sending it) is answered as applied and places nobody. It lands on its portal's target
// tile, or on a spawn when that room or tile is not there (the traveller is not lost on the way).
import { AGENT_ENTITY_PREFIX, HUMAN_ENTITY_PREFIX, ROOM_ID_PATTERN } from "../ids.ts";
import { homeTile, newActor, pickSpawn, placeActor, removeActor } from "../placement.ts";
import type { TileCoord, Transfer } from "../types.ts";
import { bad, defineAction, isInt, isPlainObject } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** A traveller from another world (transfers.ts): placed once per transfer id; `entityId` is the
     * traveller's. Only the cluster host sends it, from the target world's handoff stream. */
    arrive: { transfer: Transfer };
  }
  interface ActionValues {
    /** `duplicate`: this transfer was applied before; nobody was placed again. */
    arrive: { entityId: string; roomId: string; tile: TileCoord; duplicate?: true };
  }
}

export const arrive = defineAction({
  kind: "arrive",
  check(i) {
    if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
      return bad("an arrival names no room, tx or guards");
    const t = i.transfer as Record<string, unknown>;
    if (!isPlainObject(t)) return bad("transfer must be an object");
    if (t.entityId !== i.entityId) return bad("transfer.entityId must be the input's entityId");
    if (typeof t.id !== "string" || t.id.length === 0 || t.id.length > 256)
      return bad("transfer.id must be a 1..256 char string");
    for (const field of ["fromWorld", "toWorld", "roomId"] as const) {
      const v = t[field];
      if (typeof v !== "string" || !ROOM_ID_PATTERN.test(v))
        return bad(`transfer.${field} must match ${ROOM_ID_PATTERN.source}`);
    }
    const tile = t.tile as Record<string, unknown>;
    if (!isPlainObject(tile) || !isInt(tile.tx) || !isInt(tile.ty) || tile.tx < 0 || tile.ty < 0)
      return bad("transfer.tile must be {tx, ty} non-negative integers");
    if (!isInt(t.tick) || t.tick < 0) return bad("transfer.tick must be a non-negative integer");
    const prefix = t.actorKind === "human" ? HUMAN_ENTITY_PREFIX : AGENT_ENTITY_PREFIX;
    if ((t.actorKind !== "human" && t.actorKind !== "agent") || !String(i.entityId).startsWith(prefix))
      return bad('transfer.actorKind must be "human" or "agent", matching the entityId');
    if (typeof t.name !== "string" || t.name.length < 1 || t.name.length > 64)
      return bad("transfer.name must be 1..64 chars");
    return undefined;
  },
  apply(w, { transfer }) {
    if (w.transfers.wasApplied(transfer.id)) {
      const here = w.actors.get(transfer.entityId);
      return {
        ok: true,
        value: {
          kind: "arrive",
          entityId: transfer.entityId,
          roomId: here?.roomId ?? transfer.roomId,
          tile: here ? { tx: here.tx, ty: here.ty } : transfer.tile,
          duplicate: true,
        },
      };
    }
    const room = w.rooms.get(transfer.roomId) ?? w.rooms.get(w.definition.defaultRoomId)!;
    const tile = homeTile(room, transfer.tile) ?? pickSpawn(w, room);
    const existing = w.actors.get(transfer.entityId);
    if (existing) removeActor(w, existing, "disconnect");
    w.transfers.arrived(transfer.id, transfer.entityId);
    const actor = newActor(w, transfer.entityId, transfer.actorKind, transfer.name, room, tile);
    placeActor(w, actor, room);
    w.remember(actor.id, "entered", `came through a portal from ${transfer.fromWorld}`);
    const roomId = room.def.roomId;
    return { ok: true, value: { kind: "arrive", entityId: actor.id, roomId, tile } };
  },
});
