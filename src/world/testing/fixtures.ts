// Builders for small synthetic worlds (tests and the benchmark). Pure: returns file contents.
import { parseWorld } from "../definition.ts";
import { hoursProperties } from "../opening-hours.ts";
import type { WorldDefinition } from "../types.ts";
import { WorldLoadError } from "../world-errors.ts";

export interface FixtureObject {
  type: string;
  name: string;
  tx: number;
  ty: number;
  props?: Record<string, string | number | boolean>;
}

/** A named region of a fixture map: top-left tile and size in tiles. */
export interface FixtureRegion {
  id: string;
  label: string;
  tx: number;
  ty: number;
  w: number;
  h: number;
  /** Opening hours: the region's `opens` and `closes` properties. */
  hours?: { opens: string; closes: string };
}

/** A Tiled map from ASCII rows: `#` blocked (stone wall), `~` water (blocked, its tile marked water
 * in the tileset: fish swim there), anything else grass. With `regions`, the map gets a "regions"
 * object layer. */
const WATER_GID = 5;

export function tiledMapJson(
  rows: readonly string[],
  objects: readonly FixtureObject[],
  regions?: readonly FixtureRegion[],
): string {
  const height = rows.length;
  const width = rows[0]!.length;
  const ground: number[] = [];
  const collision: number[] = [];
  for (const row of rows) {
    for (const ch of row) {
      ground.push(ch === "#" ? 4 : ch === "~" ? WATER_GID : 1);
      collision.push(ch === "#" || ch === "~" ? 4 : 0);
    }
  }
  const layer = (id: number, name: string, data: number[], visible = true) => ({
    id,
    name,
    type: "tilelayer",
    x: 0,
    y: 0,
    width,
    height,
    opacity: 1,
    visible,
    data,
  });
  return JSON.stringify({
    type: "map",
    orientation: "orthogonal",
    renderorder: "right-down",
    infinite: false,
    width,
    height,
    tilewidth: 32,
    tileheight: 32,
    tilesets: [
      {
        firstgid: 1,
        name: "tiles",
        image: "../tiles.png",
        imagewidth: 256,
        imageheight: 64,
        tilewidth: 32,
        tileheight: 32,
        columns: 8,
        tilecount: 16,
        // Only a map with water marks its tile, so the maps of older fixtures stay as they were.
        ...(ground.includes(WATER_GID)
          ? { tiles: [{ id: WATER_GID - 1, properties: [{ name: "water", type: "bool", value: true }] }] }
          : {}),
      },
    ],
    layers: [
      layer(1, "ground", ground),
      layer(2, "decor", new Array(width * height).fill(0)),
      layer(3, "collision", collision, false),
      {
        id: 4,
        name: "objects",
        type: "objectgroup",
        objects: objects.map((o, i) => ({
          id: i + 1,
          name: o.name,
          type: o.type,
          x: o.tx * 32,
          y: o.ty * 32,
          width: 32,
          height: 32,
          properties: Object.entries(o.props ?? {}).map(([name, value]) => ({
            name,
            type: typeof value === "boolean" ? "bool" : typeof value === "number" ? "int" : "string",
            value,
          })),
        })),
      },
      ...(regions
        ? [
            {
              id: 5,
              name: "regions",
              type: "objectgroup",
              objects: regions.map((r, i) => ({
                id: 100 + i,
                name: r.id,
                type: "region",
                x: r.tx * 32,
                y: r.ty * 32,
                width: r.w * 32,
                height: r.h * 32,
                properties: [{ name: "label", type: "string", value: r.label }, ...hoursProperties(r.hours)],
              })),
            },
          ]
        : []),
    ],
  });
}

/** Open rows of `width` x `height` with a wall border. */
export function openRoom(width: number, height: number): string[] {
  const rows: string[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(y === 0 || y === height - 1 ? "#".repeat(width) : `#${".".repeat(width - 2)}#`);
  }
  return rows;
}

export interface FixtureRoom {
  id: string;
  rows: readonly string[];
  objects: readonly FixtureObject[];
  regions?: readonly FixtureRegion[];
}

export function worldToml(
  rooms: readonly FixtureRoom[],
  sim: Record<string, number> = {},
  top: Record<string, string | number> = {},
): string {
  const head = {
    name: "testworld",
    version: "0.0.1",
    seed: 7,
    tick_rate: 20,
    epoch: 1_000_000,
    default_room: rooms[0]!.id,
    ...top,
  };
  const lines = Object.entries(head).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  lines.push("[simulation]");
  const simulation = {
    chat_radius_tiles: 5,
    proximity_radius_tiles: 3,
    interact_range_tiles: 2,
    proximity_debounce_ticks: 2,
    event_retention: 1000,
    walk_speed: 128,
    chat_max_length: 500,
    tx_ttl_sec: 600,
    ...sim,
  };
  for (const [k, v] of Object.entries(simulation)) lines.push(`${k} = ${v}`);
  for (const room of rooms)
    lines.push("[[rooms]]", `id = "${room.id}"`, `name = "${room.id}"`, `map = "maps/${room.id}.json"`);
  return `${lines.join("\n")}\n`;
}

export function fixtureFiles(
  rooms: readonly FixtureRoom[],
  sim: Record<string, number> = {},
): Map<string, string> {
  const files = new Map<string, string>();
  files.set("world.toml", worldToml(rooms, sim));
  for (const room of rooms)
    files.set(`maps/${room.id}.json`, tiledMapJson(room.rows, room.objects, room.regions));
  return files;
}

export function fixtureWorld(
  rooms: readonly FixtureRoom[],
  sim: Record<string, number> = {},
): WorldDefinition {
  return parseWorld(fixtureFiles(rooms, sim));
}

/** A 20x12 room "a" split by a wall at x=10 whose only gap (row 9) holds an open door, a sign, a door, a portal to room "b". */
export function smallWorld(sim: Record<string, number> = {}): WorldDefinition {
  const rows = openRoom(20, 12).map((row, y) =>
    y >= 1 && y <= 10 && y !== 9 ? `${row.slice(0, 10)}#${row.slice(11)}` : row,
  );
  return fixtureWorld(
    [
      {
        id: "a",
        rows,
        objects: [
          { type: "spawn", name: "s1", tx: 2, ty: 2 },
          { type: "sign", name: "sign_hello", tx: 4, ty: 2, props: { text: "Hello there" } },
          { type: "door", name: "door_a", tx: 10, ty: 9, props: { open: true } },
          {
            type: "portal",
            name: "portal_ab",
            tx: 15,
            ty: 5,
            props: { targetRoom: "b", targetTx: 3, targetTy: 3 },
          },
        ],
      },
      {
        id: "b",
        rows: openRoom(12, 10),
        objects: [
          { type: "spawn", name: "s2", tx: 2, ty: 2 },
          {
            type: "portal",
            name: "portal_ba",
            tx: 5,
            ty: 5,
            props: { targetRoom: "a", targetTx: 14, targetTy: 5 },
          },
        ],
      },
    ],
    sim,
  );
}

/** World `name`: one 12x8 room `roomId` with a spawn at (2, 2) and, at (8, 4), a portal to room
 * `toRoom` (tile (3, 3)) of world `toWorld`: two of these, each leading to the other, are a cluster
 * of two worlds (docs/cluster.md, portals between gateways). */
export function portalWorldFiles(
  name: string,
  roomId: string,
  toWorld: string,
  toRoom: string,
): Map<string, string> {
  const rooms: FixtureRoom[] = [
    {
      id: roomId,
      rows: openRoom(12, 8),
      objects: [
        { type: "spawn", name: "s1", tx: 2, ty: 2 },
        {
          type: "portal",
          name: `portal_${toWorld}`,
          tx: 8,
          ty: 4,
          props: { targetWorld: toWorld, targetRoom: toRoom, targetTx: 3, targetTy: 3 },
        },
      ],
    },
  ];
  const files = new Map<string, string>();
  files.set("world.toml", worldToml(rooms, {}, { name }));
  for (const room of rooms) files.set(`maps/${room.id}.json`, tiledMapJson(room.rows, room.objects));
  return files;
}

export function portalWorld(name: string, roomId: string, toWorld: string, toRoom: string): WorldDefinition {
  return parseWorld(portalWorldFiles(name, roomId, toWorld, toRoom));
}

/** The WorldLoadError the files raise; anything else (no error, another error) is thrown. */
export function worldLoadError(files: ReadonlyMap<string, string>): WorldLoadError {
  try {
    parseWorld(files);
  } catch (error) {
    if (error instanceof WorldLoadError) return error;
    throw error;
  }
  throw new Error("expected a WorldLoadError, and the world loaded");
}
