// A world definition as plain JSON, so it can ride in an input (the host's `redefine`): the tick log
// and the replay history store inputs as JSON, and a replay must rebuild the very definition the
// live world took. Only the tile layers are not JSON already (Uint8Array): written as "0"/"1" text.
import type { RoomDefinition, WorldDefinition } from "./types.ts";

export type RoomDefinitionWire = Omit<RoomDefinition, "blocked" | "water"> & {
  blocked: string;
  /** Absent in inputs written before worlds had water: no water. */
  water?: string;
};
export type WorldDefinitionWire = Omit<WorldDefinition, "rooms"> & {
  rooms: Record<string, RoomDefinitionWire>;
};

function layerText(cells: Uint8Array): string {
  let text = "";
  for (const cell of cells) text += cell === 1 ? "1" : "0";
  return text;
}

function layerCells(text: string): Uint8Array {
  const cells = new Uint8Array(text.length);
  for (let i = 0; i < cells.length; i++) cells[i] = text.charCodeAt(i) === 49 ? 1 : 0;
  return cells;
}

export function definitionToWire(def: WorldDefinition): WorldDefinitionWire {
  const rooms: Record<string, RoomDefinitionWire> = {};
  for (const [roomId, room] of Object.entries(def.rooms)) {
    const plain = structuredClone({ ...room, blocked: undefined, water: undefined });
    rooms[roomId] = { ...plain, blocked: layerText(room.blocked), water: layerText(room.water) };
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
    const cellCount = room?.widthTiles * room?.heightTiles;
    for (const layer of ["blocked", "water"] as const) {
      const text = room?.[layer];
      if (layer === "water" && text === undefined) continue;
      if (typeof text !== "string" || !/^[01]*$/.test(text))
        return `room ${roomId}: ${layer} is not a 0/1 layer`;
      if (text.length !== cellCount)
        return `room ${roomId}: ${layer} has ${text.length} cells, not ${room.widthTiles}x${room.heightTiles}`;
    }
    const plain = structuredClone({ ...room, blocked: undefined, water: undefined });
    rooms[roomId] = {
      ...plain,
      blocked: layerCells(room.blocked),
      water: room.water === undefined ? new Uint8Array(cellCount) : layerCells(room.water),
    } as RoomDefinition;
  }
  if (!rooms[w.defaultRoomId]) return `default room ${w.defaultRoomId} is not among the rooms`;
  return { ...structuredClone({ ...w, rooms: undefined }), rooms } as WorldDefinition;
}
