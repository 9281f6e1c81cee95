// The room's Tiled map as the page reads it: the same file the server loads, so its places and its
// blocked tiles are the ones the world goes by.
import * as Phaser from "phaser";
import type { OpeningHours } from "../../src/world/opening-hours.ts";
import type { PlaceRect } from "../../src/world/places.ts";

/** A named region of the room's map (its "regions" layer), as the server loaded it. */
export interface MapPlace extends PlaceRect {
  name: string;
  hours?: OpeningHours;
}

interface TiledRegion {
  name?: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  properties?: { name: string; value: unknown }[];
}

/** The parts of a Tiled map file the page reads beside what Phaser draws. */
export interface MapData {
  layers: { name: string; type: string; data?: number[]; objects?: TiledRegion[] }[];
}

/** The map file at `url`. */
export async function fetchMap(url: string): Promise<MapData> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`map ${url}: HTTP ${res.status}`);
  return (await res.json()) as MapData;
}

/** The map's ground and decor drawn into the scene from the file's data (cached under `key`). */
export function drawTilemap(
  scene: Phaser.Scene,
  key: string,
  mapData: MapData,
): {
  map: Phaser.Tilemaps.Tilemap;
  layers: (Phaser.Tilemaps.TilemapLayer | Phaser.Tilemaps.TilemapGPULayer)[];
} {
  scene.cache.tilemap.add(key, { format: Phaser.Tilemaps.Formats.TILED_JSON, data: mapData });
  const map = scene.make.tilemap({ key });
  // A world folder without its tile image (a new world, a typo) answers 404 and Phaser has no texture.
  if (!scene.textures.exists("tiles"))
    throw new Error("this world's tile image (/world/tiles.png) did not load, so its map cannot be drawn");
  const tileset = map.addTilesetImage("tiles", "tiles");
  if (!tileset) throw new Error("the map has no tileset named tiles");
  const layers: (Phaser.Tilemaps.TilemapLayer | Phaser.Tilemaps.TilemapGPULayer)[] = [];
  for (const name of ["ground", "decor"]) {
    const layer = map.createLayer(name, tileset, 0, 0);
    if (layer) layers.push(layer.setDepth(name === "ground" ? 0 : 1));
  }
  playAnimationsOnCanvas(scene, tileset, layers);
  return { map, layers };
}

/** Phaser plays a tileset's Tiled animations (the water) in its WebGL renderer only: on Canvas (a
 * browser without WebGL, or whose WebGL context could not be made, as on a busy machine) the water
 * stood still. There the page plays them itself, by the same frames and durations. */
function playAnimationsOnCanvas(
  scene: Phaser.Scene,
  tileset: Phaser.Tilemaps.Tileset,
  layers: readonly (Phaser.Tilemaps.TilemapLayer | Phaser.Tilemaps.TilemapGPULayer)[],
): void {
  if (scene.game.renderer.type !== Phaser.CANVAS) return;
  const animated: { tile: Phaser.Tilemaps.Tile; base: number }[] = [];
  for (const layer of layers)
    (layer as Phaser.Tilemaps.TilemapLayer).forEachTile((tile) => {
      const data = tileset.getTileData(tile.index) as { animation?: unknown } | null;
      if (tile.index > 0 && data?.animation) animated.push({ tile, base: tile.index });
    });
  if (animated.length === 0) return;
  const timer = scene.time.addEvent({
    delay: 50,
    loop: true,
    callback: () => {
      for (const a of animated) a.tile.index = tileset.getAnimatedTileId(a.base, scene.time.now) ?? a.base;
    },
  });
  layers[0]?.once(Phaser.GameObjects.Events.DESTROY, () => timer.remove());
}

/** Which tiles are walls, row by row (its "collision" layer). */
export function blockedOf(mapData: MapData): boolean[] {
  const collision = mapData.layers.find((l) => l.name === "collision")?.data ?? [];
  return collision.map((gid) => gid !== 0);
}

/** The map's named regions (the server validated them when it loaded the same file). */
export function placesOf(mapData: MapData, tileSize: number): MapPlace[] {
  const objects = mapData.layers.find((l) => l.name === "regions")?.objects ?? [];
  return objects.flatMap((o) => {
    const prop = (name: string) => o.properties?.find((p) => p.name === name)?.value;
    const label = prop("label");
    if (typeof o.name !== "string" || typeof label !== "string") return [];
    const opens = prop("opens");
    const closes = prop("closes");
    return [
      {
        id: o.name,
        name: label,
        tile: { tx: Math.floor((o.x ?? 0) / tileSize), ty: Math.floor((o.y ?? 0) / tileSize) },
        widthTiles: Math.round((o.width ?? 0) / tileSize),
        heightTiles: Math.round((o.height ?? 0) / tileSize),
        ...(typeof opens === "string" && typeof closes === "string" ? { hours: { opens, closes } } : {}),
      },
    ];
  });
}
