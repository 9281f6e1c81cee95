// A world definition as plain JSON, so it can ride in an input (the host's `redefine`): the tick log
// and the replay history store inputs as JSON, and a replay must rebuild the very definition the
// live world took. Only the blocked layers are not JSON already (Uint8Array): written as "0"/"1" text.
import type { RoomDefinition, WorldDefinition } from "./types.ts";

export type RoomDefinitionWire = Omit<RoomDefinition, "blocked"> & { blocked: string };
export type WorldDefinitionWire = Omit<WorldDefinition, "rooms"> & {
  rooms: Record<string, RoomDefinitionWire>;
};

export function definitionToWire(def: WorldDefinition): WorldDefinitionWire {
  const rooms: Record<string, RoomDefinitionWire> = {};
  for (const [roomId, room] of Object.entries(def.rooms)) {
    let blocked = "";
    for (const cell of room.blocked) blocked += cell === 1 ? "1" : "0";
    rooms[roomId] = { ...structuredClone({ ...room, blocked: undefined }), blocked };
  }
  return { ...structuredClone({ ...def, rooms: undefined }), rooms };
}

/** The definition a wire form describes; a message naming what is wrong when it is not one. */
export function definitionFromWire(wire: unknown): WorldDefinition | string {
  if (typeof wire !== "object" || wire === null || Array.isArray(wire)) return "definition is not an object";
  const w = wire as Partial<WorldDefinitionWire>;
  if (typeof w.name !== "string" || typeof w.sceneHash !== "string" || typeof w.defaultRoomId !== "string")
    return "definition needs name, sceneHash and defaultRoomId";
  if (typeof w.rooms !== "object" || w.rooms === null) return "definition needs rooms";
  const rooms: Record<string, RoomDefinition> = {};
  for (const [roomId, room] of Object.entries(w.rooms)) {
    if (typeof room?.blocked !== "string" || !/^[01]*$/.test(room.blocked))
      return `room ${roomId}: blocked is not a 0/1 layer`;
    if (room.blocked.length !== room.widthTiles * room.heightTiles)
      return `room ${roomId}: blocked has ${room.blocked.length} cells, not ${room.widthTiles}x${room.heightTiles}`;
    const blocked = new Uint8Array(room.blocked.length);
    for (let i = 0; i < blocked.length; i++) blocked[i] = room.blocked.charCodeAt(i) === 49 ? 1 : 0;
    rooms[roomId] = { ...structuredClone({ ...room, blocked: undefined }), blocked } as RoomDefinition;
  }
  if (!rooms[w.defaultRoomId]) return `default room ${w.defaultRoomId} is not among the rooms`;
  return { ...structuredClone({ ...w, rooms: undefined }), rooms } as WorldDefinition;
}
