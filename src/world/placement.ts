// Where actors are and how they get there outside walking: created, placed in a room, removed,
// carried (a portal, a seat), stopped, sent to another world. Shared by the join, leave, arrive and
// interact rules and by the tick (a portal stepped on).
import { type Actor, NO_PATH } from "./actor.ts";
import { bodyOverlapsTile } from "./collision.ts";
import type { WorldCore } from "./core.ts";
import type { ObjectStateValue, OperatorContext } from "./objects/object-type.ts";
import type { Room, WorldObject } from "./room.ts";
import { transferId } from "./transfers.ts";
import type { TileCoord } from "./types.ts";

export function stop(actor: Actor): void {
  actor.path = NO_PATH;
  actor.pathIndex = 0;
  actor.dest = -1;
  actor.dirX = 0;
  actor.dirY = 0;
}

export function newActor(
  w: WorldCore,
  id: string,
  kind: Actor["kind"],
  name: string,
  room: Room,
  tile: TileCoord,
): Actor {
  const ts = room.tileSize;
  return {
    id,
    kind,
    name,
    roomId: room.def.roomId,
    x: (tile.tx + 0.5) * ts,
    y: (tile.ty + 0.5) * ts,
    tx: tile.tx,
    ty: tile.ty,
    facing: "down",
    handle: w.nextActorHandle(),
    path: NO_PATH,
    pathIndex: 0,
    dest: -1,
    dirX: 0,
    dirY: 0,
    moving: false,
    thinking: false,
    asleep: false,
    unwell: false,
    away: false,
    regionMask: 0,
    cell: -1,
    proximityCount: 0,
    rank: 0,
    audience: { kind: "entities", ids: [id] },
  };
}

/** The tile a join asked for, when it is inside the room and walkable. */
export function homeTile(room: Room, at: TileCoord | undefined): TileCoord | undefined {
  if (!at || at.tx < 0 || at.ty < 0 || at.tx >= room.width || at.ty >= room.height) return undefined;
  return room.def.blocked[at.ty * room.width + at.tx] === 1 ? undefined : { tx: at.tx, ty: at.ty };
}

/** A random free spawn point (any spawn when all are occupied), from the seeded RNG. A few random
 * probes first keep joins O(1) in rooms with many spawns; the full scan is the fallback. */
export function pickSpawn(w: WorldCore, room: Room): TileCoord {
  const spawns = room.def.spawns;
  const last = spawns.length - 1;
  for (let probe = 0; probe < 4; probe++) {
    const spawn = spawns[w.rng.int(0, last)]!;
    if (!actorOnTile(room, spawn.tile.tx, spawn.tile.ty)) return { tx: spawn.tile.tx, ty: spawn.tile.ty };
  }
  const free = spawns.filter((s) => !actorOnTile(room, s.tile.tx, s.tile.ty));
  const pool = free.length > 0 ? free : spawns;
  const spawn = pool[w.rng.int(0, pool.length - 1)]!;
  return { tx: spawn.tile.tx, ty: spawn.tile.ty };
}

export function actorOnTile(room: Room, tx: number, ty: number): boolean {
  const ts = room.tileSize;
  let found = false;
  room.grid.forEachWithin((tx + 0.5) * ts, (ty + 0.5) * ts, ts, (other) => {
    if (bodyOverlapsTile(ts, other.x, other.y, tx, ty)) found = true;
  });
  return found;
}

/** `fromRoomId`: it came by portal from that room. */
export function placeActor(w: WorldCore, actor: Actor, room: Room, fromRoomId?: string): void {
  actor.roomId = room.def.roomId;
  actor.regionMask = room.signals.maskAt(actor.tx, actor.ty);
  room.signals.count(w.signalBucket(), actor.regionMask, "arrive");
  w.actors.set(actor.id, actor);
  room.addActor(actor);
  room.grid.insert(actor);
  const event = w.emit(
    room,
    "presence.join",
    { entityId: actor.id, name: actor.name, kind: actor.kind },
    { kind: "room" },
    fromRoomId === undefined ? undefined : { fromRoomId },
  );
  room.log.enter(actor.id, event.seq);
  w.remember(actor.id, "entered", `entered ${room.def.name}`);
  w.arrivedAt(room, actor, actor.regionMask);
}

/** `toRoomId`: it is going by portal to that room (of world `toWorldId` when that is set). */
export function removeActor(
  w: WorldCore,
  actor: Actor,
  reason: "disconnect" | "kicked" | "room_closed",
  toRoomId?: string,
  toWorldId?: string,
): void {
  const room = w.rooms.get(actor.roomId)!;
  releaseHeld(w, actor);
  room.signals.count(w.signalBucket(), actor.regionMask, "depart");
  for (const pair of w.proximity.removeActor(actor)) {
    w.proximitySide(room, pair.a, pair.b, null);
    w.proximitySide(room, pair.b, pair.a, null);
  }
  const event = w.emit(
    room,
    "presence.leave",
    { entityId: actor.id, reason },
    { kind: "room" },
    toRoomId === undefined ? undefined : toWorldId === undefined ? { toRoomId } : { toRoomId, toWorldId },
  );
  room.log.exit(actor.id, event.seq);
  room.removeActor(actor);
  room.grid.remove(actor);
  w.actors.delete(actor.id);
}

/** Through a portal to another world: the traveller leaves this one now, and the handoff is
 * recorded for the host to send (transfers.ts). */
export function depart(w: WorldCore, actor: Actor, toWorld: string, roomId: string, tile: TileCoord): void {
  stop(actor);
  w.transfers.depart({
    id: transferId(w.definition.name, w.tick, actor.id),
    fromWorld: w.definition.name,
    toWorld,
    roomId,
    tile: { tx: tile.tx, ty: tile.ty },
    entityId: actor.id,
    actorKind: actor.kind,
    name: actor.name,
    tick: w.tick,
  });
  removeActor(w, actor, "disconnect", roomId, toWorld);
}

export function teleport(w: WorldCore, actor: Actor, roomId: string, tile: TileCoord): void {
  const target = w.rooms.get(roomId);
  if (!target) return;
  stop(actor);
  const ts = target.tileSize;
  if (actor.roomId !== roomId) {
    // The events schema allows only disconnect|kicked|room_closed as leave reasons; a portal
    // trip is reported as "disconnect" from the old room followed by a join in the new one, each
    // naming the other room (world-internal: toRoomId / fromRoomId).
    const from = actor.roomId;
    removeActor(w, actor, "disconnect", roomId);
    actor.x = (tile.tx + 0.5) * ts;
    actor.y = (tile.ty + 0.5) * ts;
    actor.tx = tile.tx;
    actor.ty = tile.ty;
    actor.handle = w.nextActorHandle();
    placeActor(w, actor, target, from);
    return;
  }
  actor.x = (tile.tx + 0.5) * ts;
  actor.y = (tile.ty + 0.5) * ts;
  actor.tx = tile.tx;
  actor.ty = tile.ty;
  target.grid.update(actor);
  w.enteredTile(target, actor);
}

/** Lets go of whatever object holds the actor (a seat it sat on): it moved off, left or was
 * carried away. Holders are found from the objects' own state, so a snapshot needs nothing more. */
export function releaseHeld(w: WorldCore, actor: Actor): void {
  const room = w.rooms.get(actor.roomId);
  if (!room) return;
  for (const obj of room.objects) {
    if (obj.handler.holder?.(obj.state) === actor.id)
      obj.handler.release?.(operatorContext(w, obj, actor.id));
  }
}

export function operatorContext(
  w: WorldCore,
  obj: WorldObject,
  actorId: string | undefined,
): OperatorContext {
  return {
    objectId: obj.def.id,
    state: obj.state,
    nowMs: w.serverTsMs,
    setState: (field, value) => setObjectState(w, obj, field, value, actorId),
  };
}

export function setObjectState(
  w: WorldCore,
  obj: WorldObject,
  field: string,
  value: ObjectStateValue,
  actorId: string | undefined,
): void {
  obj.state[field] = value;
  obj.version++;
  const room = w.rooms.get(obj.def.roomId)!;
  room.refreshTile(obj.def.tile.tx, obj.def.tile.ty);
  w.emit(
    room,
    "object.state_changed",
    {
      objectId: obj.def.id,
      objectType: obj.def.objectType,
      patch: [{ op: "replace", path: `/${field}`, value }],
      version: obj.version,
    },
    { kind: "room" },
    actorId === undefined ? undefined : { actorId },
  );
}
