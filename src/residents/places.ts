// The places a resident that may walk is told of: its room's named regions, largest first, each with
// a tile it can walk to near the middle (not blocked, no object on it), so "take me to the café"
// becomes one ocw_move_to. Pure: it reads the room's definition only (doors that close are objects,
// and no place's tile is an object's).
import type { WorldReads } from "../aic/reads.ts";

export interface Place {
  name: string;
  tx: number;
  ty: number;
}

type Room = WorldReads["definition"]["rooms"][string];

/** The free tile nearest to (cx, cy) within `reach` rings, or undefined. */
function freeTileNear(
  room: Room,
  cx: number,
  cy: number,
  reach: number,
): { tx: number; ty: number } | undefined {
  const taken = new Set(room.objects.map((o) => o.tile.ty * room.widthTiles + o.tile.tx));
  const free = (tx: number, ty: number) =>
    tx >= 0 &&
    ty >= 0 &&
    tx < room.widthTiles &&
    ty < room.heightTiles &&
    room.blocked[ty * room.widthTiles + tx] === 0 &&
    !taken.has(ty * room.widthTiles + tx);
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
