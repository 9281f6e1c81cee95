// world.toml + Tiled maps -> WorldDefinition. Pure: the caller supplies the files (see
// src/runtime/load-world-dir.ts for the directory reader).
import { createHash } from "node:crypto";
import { parse as parseToml } from "smol-toml";
import { CHAT_MESSAGE_MAX_CHARS, ROOM_ID_PATTERN } from "./ids.ts";
import { objectType } from "./objects/object-registry.ts";
import { MAX_NEIGHBORS_BOUND } from "./proximity.ts";
import { tomlSyntaxProblem } from "./text-errors.ts";
import { parseTiledMap } from "./tiled.ts";
import { parseIsoToMs } from "./time.ts";
import type { RoomDefinition, WorldDefinition } from "./types.ts";
import { WorldLoadError } from "./world-errors.ts";

export const WORLD_TOML = "world.toml";

export type WorldFiles = ReadonlyMap<string, Uint8Array | string>;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

function bytesOf(content: Uint8Array | string): Uint8Array {
  return typeof content === "string" ? utf8Encoder.encode(content) : content;
}

function textOf(file: string, content: Uint8Array | string): string {
  if (typeof content === "string") return content;
  try {
    return utf8.decode(content);
  } catch {
    throw new WorldLoadError(file, undefined, "not valid UTF-8 text");
  }
}

/** SHA-256 over the files sorted by path: each contributes `path \0 byteLength \0 bytes`. */
export function computeSceneHash(files: WorldFiles): string {
  const hash = createHash("sha256");
  const paths = [...files.keys()].sort();
  for (const path of paths) {
    const bytes = bytesOf(files.get(path)!);
    hash.update(`${path}\0${bytes.byteLength}\0`);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isTomlDate(v);
}

function isTomlDate(v: unknown): v is { getTime(): number; isLocal(): boolean; isDate(): boolean } {
  return typeof v === "object" && v !== null && typeof (v as { getTime?: unknown }).getTime === "function";
}

class Fields {
  readonly table: Table;
  readonly prefix: string;
  constructor(table: Table, prefix: string) {
    this.table = table;
    this.prefix = prefix;
  }
  private fail(key: string, problem: string): never {
    throw new WorldLoadError(WORLD_TOML, `${this.prefix}${key}`, problem);
  }
  string(key: string, fallback?: string): string {
    const v = this.table[key];
    if (v === undefined) {
      if (fallback !== undefined) return fallback;
      this.fail(key, "missing required field");
    }
    if (typeof v !== "string" || v.length === 0)
      this.fail(key, `expected a non-empty string, got ${describe(v)}`);
    return v;
  }
  number(key: string, opts: { fallback?: number; min: number; max: number; integer?: boolean }): number {
    let v = this.table[key];
    if (v === undefined) {
      if (opts.fallback !== undefined) return opts.fallback;
      this.fail(key, "missing required field");
    }
    if (typeof v === "bigint") v = Number(v);
    if (typeof v !== "number" || !Number.isFinite(v)) this.fail(key, `expected a number, got ${describe(v)}`);
    if (opts.integer && !Number.isInteger(v)) this.fail(key, `expected an integer, got ${v}`);
    if (v < opts.min || v > opts.max) this.fail(key, `${v} is out of range ${opts.min}..${opts.max}`);
    return v;
  }
}

function describe(v: unknown): string {
  if (typeof v === "bigint") return String(v);
  if (isTomlDate(v)) return "a date";
  return JSON.stringify(v) ?? String(v);
}

function parseEpoch(v: unknown): number {
  if (v === undefined) return 0;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === "bigint" && v >= 0n) return Number(v);
  if (typeof v === "string") {
    const ms = parseIsoToMs(v);
    if (ms !== undefined && ms >= 0) return ms;
  }
  if (isTomlDate(v) && !v.isLocal()) {
    const ms = v.getTime();
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  throw new WorldLoadError(
    WORLD_TOML,
    "epoch",
    `expected an ISO date-time with offset (e.g. 2026-02-10T00:00:00Z) or integer ms >= 0, got ${describe(v)}`,
  );
}

/** Parse a world directory's files (paths relative to the directory, `/`-separated). */
export function parseWorld(files: WorldFiles): WorldDefinition {
  const tomlContent = files.get(WORLD_TOML);
  if (tomlContent === undefined) throw new WorldLoadError(WORLD_TOML, undefined, "missing file");
  let doc: Table;
  try {
    doc = parseToml(textOf(WORLD_TOML, tomlContent)) as Table;
  } catch (error) {
    if (error instanceof WorldLoadError) throw error;
    const { problem, at } = tomlSyntaxProblem(error as Error);
    throw new WorldLoadError(WORLD_TOML, undefined, `unreadable TOML: ${problem}`, at);
  }
  const top = new Fields(doc, "");
  const name = top.string("name");
  const version = top.string("version");
  const seed = top.number("seed", { min: 0, max: 2 ** 32 - 1, integer: true });
  const tickRate = top.number("tick_rate", { fallback: 20, min: 10, max: 20, integer: true });
  const epochMs = parseEpoch(doc.epoch);
  const defaultRoomId = top.string("default_room");
  const simRaw = doc.simulation ?? {};
  if (!isTable(simRaw)) throw new WorldLoadError(WORLD_TOML, "simulation", "expected a table");
  const sim = new Fields(simRaw, "simulation.");
  const chatRadiusTiles = sim.number("chat_radius_tiles", { fallback: 6, min: 0.5, max: 256 });
  const proximityRadiusTiles = sim.number("proximity_radius_tiles", { fallback: 4, min: 0.5, max: 256 });
  const interactRangeTiles = sim.number("interact_range_tiles", { fallback: 2, min: 0.5, max: 256 });
  const proximityDebounceTicks = sim.number("proximity_debounce_ticks", {
    fallback: 2,
    min: 1,
    max: 1000,
    integer: true,
  });
  const proximityMaxNeighbors = sim.number("proximity_max_neighbors", {
    fallback: 12,
    min: 1,
    max: MAX_NEIGHBORS_BOUND,
    integer: true,
  });
  const eventRetention = sim.number("event_retention", {
    fallback: 5000,
    min: 10,
    max: 1_000_000,
    integer: true,
  });
  const eventRetentionPerRecipient = sim.number("event_retention_per_recipient", {
    fallback: 32,
    min: 10,
    max: 100_000,
    integer: true,
  });
  const walkSpeed = sim.number("walk_speed", { fallback: 128, min: 1, max: 2000 });
  const chatMaxLength = sim.number("chat_max_length", {
    fallback: CHAT_MESSAGE_MAX_CHARS,
    min: 1,
    max: CHAT_MESSAGE_MAX_CHARS,
    integer: true,
  });
  const txTtlSec = sim.number("tx_ttl_sec", { fallback: 600, min: 1, max: 86_400, integer: true });
  const txMaxPerActor = sim.number("tx_max_per_actor", {
    fallback: 1_000,
    min: 1,
    max: 1_000_000,
    integer: true,
  });

  const roomsRaw = doc.rooms;
  if (roomsRaw === undefined)
    throw new WorldLoadError(WORLD_TOML, "rooms", "missing required field ([[rooms]])");
  if (!Array.isArray(roomsRaw) || roomsRaw.length === 0) {
    throw new WorldLoadError(WORLD_TOML, "rooms", "expected a non-empty array of tables ([[rooms]])");
  }
  const rooms: Record<string, RoomDefinition> = {};
  roomsRaw.forEach((raw, i) => {
    if (!isTable(raw)) throw new WorldLoadError(WORLD_TOML, `rooms[${i}]`, "expected a table");
    const f = new Fields(raw, `rooms[${i}].`);
    const roomId = f.string("id");
    if (!ROOM_ID_PATTERN.test(roomId))
      throw new WorldLoadError(WORLD_TOML, `rooms[${i}].id`, `expected ${ROOM_ID_PATTERN}`);
    if (rooms[roomId]) throw new WorldLoadError(WORLD_TOML, `rooms[${i}].id`, `duplicate room "${roomId}"`);
    const mapFile = f.string("map");
    const mapContent = files.get(mapFile);
    if (mapContent === undefined)
      throw new WorldLoadError(mapFile, undefined, `missing map file (rooms[${i}].map)`);
    rooms[roomId] = parseTiledMap(mapFile, textOf(mapFile, mapContent), {
      roomId,
      name: f.string("name", roomId),
      mapId: f.string("map_id", roomId),
      mapFile,
    });
  });
  if (!rooms[defaultRoomId]) {
    throw new WorldLoadError(WORLD_TOML, "default_room", `room "${defaultRoomId}" is not among [[rooms]]`);
  }
  const regionRooms = new Map<string, string>();
  for (const room of Object.values(rooms)) {
    for (const region of room.regions) {
      const other = regionRooms.get(region.id);
      if (other !== undefined) {
        throw new WorldLoadError(
          room.mapFile,
          `layers.regions.${region.id}`,
          `duplicate region id "${region.id}" (also in ${other}); region ids are unique across the world`,
        );
      }
      regionRooms.set(region.id, room.mapFile);
    }
  }
  const seen = new Map<string, string>();
  for (const room of Object.values(rooms)) {
    for (const obj of room.objects) {
      const other = seen.get(obj.id);
      if (other !== undefined) {
        throw new WorldLoadError(
          room.mapFile,
          `layers.objects (${obj.name})`,
          `duplicate object id "${obj.id}" (also in ${other})`,
        );
      }
      seen.set(obj.id, room.mapFile);
      const problem = objectType(obj.objectType)?.validate?.(obj, rooms);
      // Named as the map's own checks name an object's property (tiled.ts), by its layer and name;
      // its place (x, y) is the Tiled object's own, not a property.
      if (problem) {
        const where = /^(x|y|x\/y)$/.test(problem.field) ? problem.field : `properties.${problem.field}`;
        throw new WorldLoadError(room.mapFile, `layers.objects (${obj.name}).${where}`, problem.problem);
      }
    }
  }
  return {
    name,
    version,
    seed,
    tickRate,
    epochMs,
    defaultRoomId,
    chatRadiusTiles,
    proximityRadiusTiles,
    interactRangeTiles,
    proximityDebounceTicks,
    proximityMaxNeighbors,
    eventRetention,
    eventRetentionPerRecipient,
    walkSpeed,
    chatMaxLength,
    txTtlSec,
    txMaxPerActor,
    sceneHash: computeSceneHash(files),
    rooms,
  };
}
