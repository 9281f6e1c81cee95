// The places a resident that may walk is told of: its room's named regions, largest first, each with
// a tile it can walk to near the middle (not blocked, no object on it), so "take me to the café"
// becomes one ocw_move_to. Pure: it reads the room's definition only (doors that close are objects,
// and no place's tile is an object's). A place in another room of this world is told with the portal
// that leads there (a resident steps on it and is told again on the other side), and the same
// portals bring a resident home (`portalToward`).
import type { WorldReads } from "../aic/reads.ts";

export interface Place {
  name: string;
  tx: number;
  ty: number;
  /** A place in another room: that room's name, and the portal tile here that leads to it. */
  beyond?: { roomName: string; portal: { tx: number; ty: number } };
}

type Definition = WorldReads["definition"];
type Room = Definition["rooms"][string];

export interface Portal {
  tx: number;
  ty: number;
  toRoomId: string;
}

/** The room's portals to other rooms of this world (one to another world is another gateway's). */
export function portalsOf(room: Room | undefined): Portal[] {
  if (!room) return [];
  return room.objects
    .filter((o) => o.objectType === "portal" && o.props.targetWorld === undefined)
    .map((o) => ({ tx: o.tile.tx, ty: o.tile.ty, toRoomId: String(o.props.targetRoom) }))
    .filter((p) => p.toRoomId !== room.roomId);
}

/** The portal in `fromRoomId` on the fewest crossings to `toRoomId` (breadth first, portals in map
 * order), or undefined when none leads there. */
export function portalToward(def: Definition, fromRoomId: string, toRoomId: string): Portal | undefined {
  const firstStep = new Map<string, Portal>();
  const queue: string[] = [fromRoomId];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const roomId = queue.shift()!;
    for (const portal of portalsOf(def.rooms[roomId])) {
      if (seen.has(portal.toRoomId)) continue;
      seen.add(portal.toRoomId);
      const first = firstStep.get(roomId) ?? portal;
      if (portal.toRoomId === toRoomId) return first;
      firstStep.set(portal.toRoomId, first);
      queue.push(portal.toRoomId);
    }
  }
  return undefined;
}

/** The free tile nearest to (cx, cy) within `reach` rings (open, no object on it, not `occupied`),
 * or undefined. */
function freeTileNear(
  room: Room,
  cx: number,
  cy: number,
  reach: number,
  occupied: (tx: number, ty: number) => boolean = () => false,
): { tx: number; ty: number } | undefined {
  const taken = new Set(room.objects.map((o) => o.tile.ty * room.widthTiles + o.tile.tx));
  const free = (tx: number, ty: number) =>
    tx >= 0 &&
    ty >= 0 &&
    tx < room.widthTiles &&
    ty < room.heightTiles &&
    room.blocked[ty * room.widthTiles + tx] === 0 &&
    !taken.has(ty * room.widthTiles + tx) &&
    !occupied(tx, ty);
  for (let ring = 0; ring <= reach; ring++)
    for (let dy = -ring; dy <= ring; dy++)
      for (let dx = -ring; dx <= ring; dx++)
        if (Math.max(Math.abs(dx), Math.abs(dy)) === ring && free(cx + dx, cy + dy))
          return { tx: cx + dx, ty: cy + dy };
  return undefined;
}

/** The room's places, largest first (a name once), each at a walkable tile near its middle. */
export function placesOf(room: Room | undefined): Place[] {
  if (!room) return [];
  const seen = new Set<string>();
  const places: Place[] = [];
  const bySize = [...room.regions].sort(
    (a, b) => b.widthTiles * b.heightTiles - a.widthTiles * a.heightTiles,
  );
  for (const region of bySize) {
    if (seen.has(region.name)) continue;
    const cx = region.tile.tx + Math.floor(region.widthTiles / 2);
    const cy = region.tile.ty + Math.floor(region.heightTiles / 2);
    const tile = freeTileNear(room, cx, cy, Math.max(region.widthTiles, region.heightTiles));
    if (!tile) continue;
    seen.add(region.name);
    places.push({ name: region.name, ...tile });
  }
  return places;
}

/** The places a resident in `roomId` is told of: its room's, then those of each room one portal
 * away (with that portal), `perRoom` of each room at most. */
export function placesFrom(def: Definition, roomId: string, perRoom: number): Place[] {
  const here = placesOf(def.rooms[roomId]).slice(0, perRoom);
  const told = new Set([roomId]);
  const beyond: Place[] = [];
  for (const portal of portalsOf(def.rooms[roomId])) {
    if (told.has(portal.toRoomId)) continue;
    told.add(portal.toRoomId);
    const room = def.rooms[portal.toRoomId];
    const roomName = room?.name ?? portal.toRoomId;
    for (const place of placesOf(room).slice(0, perRoom))
      beyond.push({ ...place, beyond: { roomName, portal: { tx: portal.tx, ty: portal.ty } } });
  }
  return [...here, ...beyond];
}

type Tile = { tx: number; ty: number };

/** Where a resident stands for a stop of its routine: the stop's tile, or while someone else stands
 * there, the free tile nearest it (two rings at most), so two never end a walk on one tile. `beside`
 * says the stop is taken (standing anywhere within those rings but on it then counts as being
 * there). Two who reached one tile together: the one with the greater id yields (deterministic). */
export function standingSpot(
  reads: Pick<WorldReads, "definition" | "queryRadius">,
  roomId: string,
  stop: Tile,
  self: { id: string; tile: Tile },
): { tile: Tile; beside: boolean } {
  const room = reads.definition.rooms[roomId];
  if (!room) return { tile: stop, beside: false };
  const ts = room.tileSize;
  const centre = { x: (stop.tx + 0.5) * ts, y: (stop.ty + 0.5) * ts };
  const standing = new Set(
    reads
      .queryRadius(roomId, centre, STOP_RINGS * 1.5 * ts, 32)
      .filter(
        ({ entity }) =>
          entity.id !== self.id &&
          entity.kind !== "object" &&
          !((entity.speed ?? 0) > 0) &&
          !(entity.tile.tx === self.tile.tx && entity.tile.ty === self.tile.ty && entity.id > self.id),
      )
      .map(({ entity }) => entity.tile.ty * room.widthTiles + entity.tile.tx),
  );
  const occupied = (tx: number, ty: number) => standing.has(ty * room.widthTiles + tx);
  if (!occupied(stop.tx, stop.ty)) return { tile: stop, beside: false };
  return { tile: freeTileNear(room, stop.tx, stop.ty, STOP_RINGS, occupied) ?? stop, beside: true };
}

export const STOP_RINGS = 2;
