// Tiled JSON map (orthogonal, one embedded "tiles" tileset) -> RoomDefinition.

import { REGION_ID_PATTERN, REGION_NAME_MAX_CHARS } from "./ids.ts";
import { objectType } from "./objects/object-registry.ts";
import { clockMinutes, type OpeningHours } from "./opening-hours.ts";
import { MAX_REGIONS_PER_ROOM } from "./signals.ts";
import { jsonSyntaxProblem } from "./text-errors.ts";
import type { ObjectDefinition, RegionDefinition, RoomDefinition, SpawnPoint } from "./types.ts";
import { WorldLoadError } from "./world-errors.ts";

export const TILE_SIZE = 32;
const GID_MASK = 0x1fffffff; // Tiled stores flip flags in the top 3 bits.
const NAME_RE = /^[a-zA-Z0-9._-]{1,60}$/;

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function int(file: string, field: string, v: unknown, min = 0): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw new WorldLoadError(file, field, `expected an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export interface RoomMeta {
  roomId: string;
  name: string;
  mapId: string;
  mapFile: string;
}

function parseLayerData(
  file: string,
  layer: Json,
  field: string,
  width: number,
  height: number,
  maxGid: number,
): number[] {
  const data = layer.data;
  if (!Array.isArray(data))
    throw new WorldLoadError(file, `${field}.data`, "expected an array of gids (CSV encoding)");
  if (data.length !== width * height) {
    throw new WorldLoadError(file, `${field}.data`, `expected ${width * height} gids, got ${data.length}`);
  }
  const out = new Array<number>(data.length);
  for (let i = 0; i < data.length; i++) {
    const raw = data[i];
    if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) {
      throw new WorldLoadError(file, `${field}.data[${i}]`, `expected a gid, got ${JSON.stringify(raw)}`);
    }
    const gid = raw & GID_MASK;
    if (gid > maxGid) {
      throw new WorldLoadError(
        file,
        `${field}.data[${i}]`,
        `unknown tile id ${gid} at (${i % width}, ${Math.floor(i / width)}); the tileset has gids 1..${maxGid}`,
      );
    }
    out[i] = gid;
  }
  return out;
}

function readProps(file: string, field: string, obj: Json): Record<string, string | number | boolean> {
  const props: Record<string, string | number | boolean> = {};
  if (obj.properties === undefined) return props;
  if (!Array.isArray(obj.properties))
    throw new WorldLoadError(file, `${field}.properties`, "expected an array");
  obj.properties.forEach((p, i) => {
    if (!isObj(p) || typeof p.name !== "string") {
      throw new WorldLoadError(file, `${field}.properties[${i}]`, "expected {name, type, value}");
    }
    const v = p.value;
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      throw new WorldLoadError(
        file,
        `${field}.properties.${p.name}`,
        "expected a string, number or boolean value",
      );
    }
    props[p.name] = v;
  });
  return props;
}

export function parseTiledMap(file: string, text: string, meta: RoomMeta): RoomDefinition {
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch (error) {
    const { problem, at } = jsonSyntaxProblem(text, error as Error);
    throw new WorldLoadError(file, undefined, `unreadable JSON: ${problem}`, at);
  }
  if (!isObj(map)) throw new WorldLoadError(file, undefined, "expected a Tiled map object");
  if (map.orientation !== "orthogonal")
    throw new WorldLoadError(file, "orientation", 'expected "orthogonal"');
  const width = int(file, "width", map.width, 1);
  const height = int(file, "height", map.height, 1);
  const tileSize = int(file, "tilewidth", map.tilewidth, 1);
  if (tileSize !== TILE_SIZE || map.tileheight !== TILE_SIZE) {
    throw new WorldLoadError(file, "tilewidth", `expected ${TILE_SIZE}x${TILE_SIZE} tiles`);
  }
  if (!Array.isArray(map.tilesets) || map.tilesets.length !== 1 || !isObj(map.tilesets[0])) {
    throw new WorldLoadError(file, "tilesets", 'expected exactly one embedded tileset named "tiles"');
  }
  const ts = map.tilesets[0];
  if (ts.name !== "tiles") throw new WorldLoadError(file, "tilesets[0].name", 'expected "tiles"');
  const firstGid = int(file, "tilesets[0].firstgid", ts.firstgid, 1);
  const tileCount = int(file, "tilesets[0].tilecount", ts.tilecount, 1);
  const maxGid = firstGid + tileCount - 1;
  if (!Array.isArray(map.layers)) throw new WorldLoadError(file, "layers", "expected an array");
  const layers = new Map<string, Json>();
  for (const layer of map.layers) {
    if (isObj(layer) && typeof layer.name === "string") layers.set(layer.name, layer);
  }
  const tileLayer = (name: string): Json => {
    const layer = layers.get(name);
    if (layer?.type !== "tilelayer") throw new WorldLoadError(file, `layers.${name}`, "missing tile layer");
    if (layer.width !== width || layer.height !== height) {
      throw new WorldLoadError(file, `layers.${name}`, `expected ${width}x${height}`);
    }
    return layer;
  };
  const ground = parseLayerData(file, tileLayer("ground"), "layers.ground", width, height, maxGid);
  parseLayerData(file, tileLayer("decor"), "layers.decor", width, height, maxGid);
  const collision = parseLayerData(file, tileLayer("collision"), "layers.collision", width, height, maxGid);
  const blocked = new Uint8Array(width * height);
  for (let i = 0; i < collision.length; i++) blocked[i] = collision[i] !== 0 ? 1 : 0;
  const waterGids = waterTiles(file, ts, firstGid);
  const water = new Uint8Array(width * height);
  for (let i = 0; i < ground.length; i++) water[i] = waterGids.has(ground[i]!) ? 1 : 0;

  const group = layers.get("objects");
  if (group?.type !== "objectgroup" || !Array.isArray(group.objects)) {
    throw new WorldLoadError(file, "layers.objects", "missing object group");
  }
  const spawns: SpawnPoint[] = [];
  const spawnNames = new Set<string>();
  const objects: ObjectDefinition[] = [];
  group.objects.forEach((raw, i) => {
    const field = `layers.objects.objects[${i}]`;
    if (!isObj(raw)) throw new WorldLoadError(file, field, "expected an object");
    const type = typeof raw.type === "string" && raw.type !== "" ? raw.type : raw.class;
    if (typeof type !== "string" || type === "")
      throw new WorldLoadError(file, `${field}.type`, "missing object type");
    const name = raw.name;
    if (typeof name !== "string" || !NAME_RE.test(name)) {
      throw new WorldLoadError(
        file,
        `${field}.name`,
        `expected a name matching ${NAME_RE}, got ${JSON.stringify(name)}`,
      );
    }
    if (
      typeof raw.x !== "number" ||
      typeof raw.y !== "number" ||
      !Number.isFinite(raw.x) ||
      !Number.isFinite(raw.y)
    ) {
      throw new WorldLoadError(file, `${field}.x`, "expected numeric x and y");
    }
    const tile = { tx: Math.floor(raw.x / tileSize), ty: Math.floor(raw.y / tileSize) };
    if (tile.tx < 0 || tile.ty < 0 || tile.tx >= width || tile.ty >= height) {
      throw new WorldLoadError(
        file,
        `${field} (${name})`,
        `tile (${tile.tx}, ${tile.ty}) is outside the map`,
      );
    }
    const props = readProps(file, `${field} (${name})`, raw);
    if (type === "spawn") {
      if (blocked[tile.ty * width + tile.tx]) {
        throw new WorldLoadError(
          file,
          `${field} (${name})`,
          `spawn tile (${tile.tx}, ${tile.ty}) is blocked`,
        );
      }
      if (spawnNames.has(name)) throw new WorldLoadError(file, `${field}.name`, `duplicate spawn "${name}"`);
      spawnNames.add(name);
      spawns.push({ name, tile });
      return;
    }
    const handler = objectType(type);
    if (!handler) throw new WorldLoadError(file, `${field}.type`, `unknown object type "${type}"`);
    const optional = Object.entries(handler.optionalProps ?? {}).filter(
      ([prop]) => props[prop] !== undefined,
    );
    for (const [prop, kind] of [...Object.entries(handler.props), ...optional]) {
      const v = props[prop];
      const ok =
        kind === "string"
          ? typeof v === "string" && v.length > 0
          : kind === "int"
            ? typeof v === "number" && Number.isInteger(v)
            : typeof v === "boolean";
      if (!ok) {
        throw new WorldLoadError(
          file,
          `${field} (${name}).properties.${prop}`,
          `expected a ${kind}, got ${JSON.stringify(v)}`,
        );
      }
    }
    objects.push({ id: `obj_${name}`, objectType: type, name, roomId: meta.roomId, tile, props });
  });
  if (spawns.length === 0)
    throw new WorldLoadError(file, "layers.objects", "a room needs at least one spawn object");
  objects.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const regions = parseRegions(file, layers.get(REGIONS_LAYER), meta.roomId, width, height, tileSize);
  return {
    ...meta,
    widthTiles: width,
    heightTiles: height,
    tileSize,
    blocked,
    water,
    spawns,
    objects,
    regions,
  };
}

/** The gids of the tileset's tiles marked water (the bool property `water`, set in Tiled's tileset
 * editor): a ground tile of one of them is water, where creatures that swim (fish) may go. */
function waterTiles(file: string, tileset: Json, firstGid: number): Set<number> {
  const gids = new Set<number>();
  if (tileset.tiles === undefined) return gids;
  if (!Array.isArray(tileset.tiles)) throw new WorldLoadError(file, "tilesets[0].tiles", "expected an array");
  tileset.tiles.forEach((tile, i) => {
    const field = `tilesets[0].tiles[${i}]`;
    if (!isObj(tile) || typeof tile.id !== "number")
      throw new WorldLoadError(file, field, "expected {id, ...}");
    const water = readProps(file, field, tile).water;
    if (water !== undefined && typeof water !== "boolean")
      throw new WorldLoadError(
        file,
        `${field}.properties.water`,
        `expected a bool, got ${JSON.stringify(water)}`,
      );
    if (water) gids.add(firstGid + tile.id);
  });
  return gids;
}

/** A region's opening hours: string properties `opens` and `closes` (HH:MM), both or neither. */
function regionHours(
  file: string,
  field: string,
  props: Record<string, string | number | boolean>,
): OpeningHours | undefined {
  if (props.opens === undefined && props.closes === undefined) return undefined;
  for (const key of ["opens", "closes"] as const) {
    if (clockMinutes(props[key]) === undefined)
      throw new WorldLoadError(
        file,
        `${field}.properties.${key}`,
        `expected a clock HH:MM (opens and closes go together), got ${JSON.stringify(props[key])}`,
      );
  }
  if (props.opens === props.closes)
    throw new WorldLoadError(
      file,
      `${field}.properties.closes`,
      "a place closes at another time than it opens",
    );
  return { opens: props.opens as string, closes: props.closes as string };
}

/** The optional object layer of named regions. */
export const REGIONS_LAYER = "regions";
const RECT_ONLY_KEYS = ["gid", "point", "ellipse", "polygon", "polyline", "text"] as const;

/** Named rectangles, tile-aligned and inside the map: `name` is the region id, the string property
 * `label` its human name. A map without the layer has no regions. */
function parseRegions(
  file: string,
  layer: Json | undefined,
  roomId: string,
  width: number,
  height: number,
  tileSize: number,
): RegionDefinition[] {
  if (layer === undefined) return [];
  if (layer.type !== "objectgroup" || !Array.isArray(layer.objects)) {
    throw new WorldLoadError(file, `layers.${REGIONS_LAYER}`, "expected an object group of rectangles");
  }
  if (layer.objects.length > MAX_REGIONS_PER_ROOM) {
    throw new WorldLoadError(
      file,
      `layers.${REGIONS_LAYER}`,
      `${layer.objects.length} regions; a room has at most ${MAX_REGIONS_PER_ROOM}`,
    );
  }
  const regions: RegionDefinition[] = [];
  layer.objects.forEach((raw, i) => {
    let field = `layers.${REGIONS_LAYER}.objects[${i}]`;
    if (!isObj(raw)) throw new WorldLoadError(file, field, "expected an object");
    const id = raw.name;
    if (typeof id !== "string" || !REGION_ID_PATTERN.test(id)) {
      throw new WorldLoadError(
        file,
        `${field}.name`,
        `expected a region id matching ${REGION_ID_PATTERN}, got ${JSON.stringify(id)}`,
      );
    }
    field = `${field} (${id})`;
    const type = typeof raw.type === "string" && raw.type !== "" ? raw.type : raw.class;
    if (type !== "region")
      throw new WorldLoadError(file, `${field}.type`, `expected "region", got ${JSON.stringify(type)}`);
    for (const key of RECT_ONLY_KEYS) {
      if (raw[key] !== undefined && raw[key] !== false)
        throw new WorldLoadError(file, `${field}.${key}`, "a region is a plain rectangle");
    }
    if (raw.rotation !== undefined && raw.rotation !== 0)
      throw new WorldLoadError(file, `${field}.rotation`, "a region cannot be rotated");
    const px = (key: "x" | "y" | "width" | "height"): number => {
      const v = raw[key];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v % tileSize !== 0) {
        throw new WorldLoadError(
          file,
          `${field}.${key}`,
          `expected a multiple of the tile size (${tileSize}), got ${JSON.stringify(v)}`,
        );
      }
      return v / tileSize;
    };
    const tile = { tx: px("x"), ty: px("y") };
    const widthTiles = px("width");
    const heightTiles = px("height");
    if (widthTiles === 0 || heightTiles === 0)
      throw new WorldLoadError(file, `${field}.width`, "a region covers at least one tile");
    if (tile.tx + widthTiles > width || tile.ty + heightTiles > height) {
      throw new WorldLoadError(
        file,
        field,
        `tiles (${tile.tx}, ${tile.ty})..(${tile.tx + widthTiles - 1}, ${tile.ty + heightTiles - 1}) reach outside the ${width}x${height} map`,
      );
    }
    const props = readProps(file, field, raw);
    const label = props.label;
    if (typeof label !== "string" || label.trim() === "" || label.length > REGION_NAME_MAX_CHARS) {
      throw new WorldLoadError(
        file,
        `${field}.properties.label`,
        `expected the region's human name (a string of 1..${REGION_NAME_MAX_CHARS} characters), got ${JSON.stringify(label)}`,
      );
    }
    if (regions.some((r) => r.id === id))
      throw new WorldLoadError(file, `${field}.name`, `duplicate region "${id}"`);
    const hours = regionHours(file, field, props);
    regions.push({ id, name: label, roomId, tile, widthTiles, heightTiles, ...(hours ? { hours } : {}) });
  });
  return regions;
}
