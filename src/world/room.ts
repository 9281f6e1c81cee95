// The live state of one room: actors (sorted by id), spatial grid, current collision, event log, chat.
import { type Actor, insertSorted, removeSorted } from "./actor.ts";
import { RoomChatLog } from "./chat-history.ts";
import { type EventRetention, RoomEventLog } from "./events-log.ts";
import { PathFinder, type TileGrid } from "./grid.ts";
import type { ObjectState, ObjectTypeHandler } from "./objects/object-type.ts";
import { isOpenAt } from "./opening-hours.ts";
import { covers } from "./places.ts";
import { RoomSignals } from "./signals.ts";
import { SpatialGrid } from "./spatial-grid.ts";
import type { ObjectDefinition, RegionDefinition, RoomDefinition, TileCoord } from "./types.ts";

export interface WorldObject {
  def: ObjectDefinition;
  handler: ObjectTypeHandler;
  state: ObjectState;
  version: number;
}

/** Where an object stands now: a creature's own tile, any other object's definition's. */
export function objectTile(obj: WorldObject): TileCoord {
  return obj.handler.tileOf?.(obj.state) ?? obj.def.tile;
}

export class Room implements TileGrid {
  readonly def: RoomDefinition;
  readonly width: number;
  readonly height: number;
  readonly tileSize: number;
  /** Static collision plus closed doors and closed places. */
  readonly blocked: Uint8Array;
  /** Who is present, sorted by id; changed only through addActor / removeActor. */
  readonly actors: Actor[] = [];
  /** The ids of `actors`, made on demand and kept until someone joins or leaves. */
  private presentIdsCache: readonly string[] | undefined;
  readonly grid: SpatialGrid;
  readonly log: RoomEventLog;
  readonly chat = new RoomChatLog();
  /** Activity counts per region over the recent window (world signals). */
  readonly signals: RoomSignals;
  /** Objects of this room, sorted by id. */
  readonly objects: WorldObject[] = [];
  /** Objects that act when an actor steps onto their tile (a portal), by tile index. */
  readonly onEnter = new Map<number, WorldObject[]>();
  readonly pathFinder: PathFinder;
  /** The places with opening hours, and those of them closed at the world's time (`applyHours`). */
  private readonly timedPlaces: readonly RegionDefinition[];
  closedPlaces: readonly RegionDefinition[] = [];

  constructor(def: RoomDefinition, proximityRadius: number, eventRetention: EventRetention) {
    this.def = def;
    this.width = def.widthTiles;
    this.height = def.heightTiles;
    this.tileSize = def.tileSize;
    this.blocked = new Uint8Array(def.blocked);
    this.grid = new SpatialGrid(this.width * this.tileSize, this.height * this.tileSize, proximityRadius);
    this.log = new RoomEventLog(def.roomId, eventRetention);
    this.pathFinder = new PathFinder(this.width * this.height);
    this.signals = new RoomSignals(def);
    this.timedPlaces = def.regions.filter((r) => r.hours);
  }

  /** Closes and opens the places by their hours at simulation time `ms`: a closed place's tiles
   * block, like a closed door's. */
  applyHours(ms: number): void {
    if (this.timedPlaces.length === 0) return;
    const closed = this.timedPlaces.filter((r) => !isOpenAt(r.hours!, ms));
    const changed = [
      ...closed.filter((r) => !this.closedPlaces.includes(r)),
      ...this.closedPlaces.filter((r) => !closed.includes(r)),
    ];
    if (changed.length === 0) return;
    this.closedPlaces = closed;
    for (const place of changed) {
      for (let ty = place.tile.ty; ty < place.tile.ty + place.heightTiles; ty++)
        for (let tx = place.tile.tx; tx < place.tile.tx + place.widthTiles; tx++) this.refreshTile(tx, ty);
    }
  }

  /** The closed place covering a tile, if any. */
  closedPlaceAt(tx: number, ty: number): RegionDefinition | undefined {
    for (const place of this.closedPlaces) if (covers(place, tx, ty)) return place;
    return undefined;
  }

  addActor(actor: Actor): void {
    insertSorted(this.actors, actor);
    this.presentIdsCache = undefined;
  }

  removeActor(actor: Actor): void {
    removeSorted(this.actors, actor);
    this.presentIdsCache = undefined;
  }

  /** Everyone present, by id: one frozen array, shared by every global chat said while nobody joins
   * or leaves (a chat keeps who heard it; in a room of 1,000 that was an 8 kB array per message). */
  presentIds(): readonly string[] {
    this.presentIdsCache ??= Object.freeze(this.actors.map((a) => a.id));
    return this.presentIdsCache;
  }

  /** Adds one of the room's objects (the world sorts them once all are added). */
  addObject(obj: WorldObject): void {
    this.objects.push(obj);
    if (obj.handler.enter) {
      const index = obj.def.tile.ty * this.width + obj.def.tile.tx;
      this.onEnter.set(index, [...(this.onEnter.get(index) ?? []), obj]);
    }
  }

  /** The regions made private right now by their objects (objects/private-room.ts). */
  privatePlaces(): RegionDefinition[] {
    const places: RegionDefinition[] = [];
    for (const obj of this.objects) {
      const id = obj.handler.privateRegion?.(obj.state);
      const region = id === undefined ? undefined : this.def.regions.find((r) => r.id === id);
      if (region && !places.includes(region)) places.push(region);
    }
    return places;
  }

  inBounds(tx: number, ty: number): boolean {
    return tx >= 0 && ty >= 0 && tx < this.width && ty < this.height;
  }

  /** Whether a tile blocks only because its place is closed (its floor, not a wall or a shut door). */
  closedFloor(tx: number, ty: number): boolean {
    if (this.def.blocked[ty * this.width + tx] === 1 || this.closedPlaceAt(tx, ty) === undefined)
      return false;
    return !this.objects.some(
      (o) => o.def.tile.tx === tx && o.def.tile.ty === ty && o.handler.blocksTile?.(o.state),
    );
  }

  /** Recomputes one tile's collision from the static layer and the objects standing on it. */
  refreshTile(tx: number, ty: number): void {
    const index = ty * this.width + tx;
    let blocked = this.def.blocked[index] === 1 || this.closedPlaceAt(tx, ty) !== undefined;
    for (const obj of this.objects) {
      if (obj.def.tile.tx === tx && obj.def.tile.ty === ty && obj.handler.blocksTile?.(obj.state))
        blocked = true;
    }
    this.blocked[index] = blocked ? 1 : 0;
  }
}
