// Where a creature may be by its map alone: inside its home region (its whole room without one), on
// water when it swims, else on a tile the collision layer leaves open. One rule for both callers:
// each tick's roam adds what changes as the world runs (roam.ts: closed doors, private places), and
// a new definition puts a creature its map no longer holds back inside (fit-definition.ts).
import type { ObjectDefinition, RegionDefinition, RoomDefinition, TileCoord } from "./types.ts";

export interface Home {
  tx: number;
  ty: number;
  widthTiles: number;
  heightTiles: number;
}

export const within = (r: Home, tx: number, ty: number): boolean =>
  tx >= r.tx && ty >= r.ty && tx < r.tx + r.widthTiles && ty < r.ty + r.heightTiles;

export const regionRect = (r: RegionDefinition): Home => ({
  ...r.tile,
  widthTiles: r.widthTiles,
  heightTiles: r.heightTiles,
});

export const wholeRoom = (room: RoomDefinition): Home => ({
  tx: 0,
  ty: 0,
  widthTiles: room.widthTiles,
  heightTiles: room.heightTiles,
});

/** Its `region` property's rectangle, or the whole room; undefined when it names a region the room
 * does not have (a new definition took it away). */
export function homeOf(room: RoomDefinition, def: ObjectDefinition): Home | undefined {
  const id = def.props.region;
  if (typeof id !== "string") return wholeRoom(room);
  const region = room.regions.find((r) => r.id === id);
  return region && regionRect(region);
}

/** Whether the map lets it be on a tile: in its home, on water if it swims, on open ground if not.
 * `blocked` is the room's layer to read (the live one, with doors, while the world runs). */
export function habitable(
  room: RoomDefinition,
  home: Home,
  swims: boolean,
  blocked: Uint8Array = room.blocked,
): (tx: number, ty: number) => boolean {
  const { widthTiles: width, heightTiles: height } = room;
  return (tx, ty) => {
    if (tx < 0 || ty < 0 || tx >= width || ty >= height || !within(home, tx, ty)) return false;
    const i = ty * width + tx;
    return swims ? room.water[i] === 1 : blocked[i] !== 1;
  };
}

/** The tile nearest `from` that `allows`, itself first: ring by ring outwards, the straightest within
 * a ring (least squared distance), ties in row order. */
export function nearestTile(
  room: RoomDefinition,
  from: TileCoord,
  allows: (tx: number, ty: number) => boolean,
): TileCoord | undefined {
  const reach = Math.max(room.widthTiles, room.heightTiles);
  for (let r = 0; r <= reach; r++) {
    let best: { tx: number; ty: number; d: number } | undefined;
    for (let ty = from.ty - r; ty <= from.ty + r; ty++) {
      const edgeRow = ty === from.ty - r || ty === from.ty + r;
      for (let tx = from.tx - r; tx <= from.tx + r; tx += edgeRow || r === 0 ? 1 : 2 * r) {
        const d = (tx - from.tx) ** 2 + (ty - from.ty) ** 2;
        if ((!best || d < best.d) && allows(tx, ty)) best = { tx, ty, d };
      }
    }
    if (best) return { tx: best.tx, ty: best.ty };
  }
  return undefined;
}
