// A running world taking a new definition (the host's `redefine` input, World.redefine): what of
// its state fits the new maps is kept as it was. Actors keep their ids and rooms; one whose room is
// gone goes to the default room, one a new wall stands on goes to the nearest open tile, and each is
// told. Objects keep their state where they still exist as the same type; the others start afresh.
// A creature its new map no longer holds where it was (its region moved, a wall or dry land there)
// is put on the nearest tile it may be on, or starts afresh when there is none.
// Pure: the state in, the fitted state out.

import { objectType } from "./objects/object-registry.ts";
import type { WorldState } from "./snapshot.ts";
import type { TileCoord, WorldDefinition, WorldSnapshot } from "./types.ts";

/** Sent as a chat line to whoever a change moved: the world speaks, not a person. */
export const WORLD_NOTICE_ENTITY_ID = "obj_world.notice";
export const WORLD_NOTICE_NAME = "The world";

/** One actor a definition change moved, and why. */
export interface Relocation {
  entityId: string;
  fromRoomId: string;
  fromTile: TileCoord;
  roomId: string;
  tile: TileCoord;
  reason: "room_removed" | "blocked";
}

/** What a definition change may not touch without a restart: the clock (tick rate, epoch) and
 * the world's name (its store's identity). Undefined when `next` may replace `current` live. */
export function redefineProblem(current: WorldDefinition, next: WorldDefinition): string | undefined {
  if (next.name !== current.name)
    return `the world's name changed ("${current.name}" to "${next.name}"): that is another world, restart to open it`;
  if (next.tickRate !== current.tickRate)
    return `tick_rate changed (${current.tickRate} to ${next.tickRate}): it needs a restart`;
  if (next.epochMs !== current.epochMs) return "epoch changed: it needs a restart";
  return undefined;
}

type ActorRecord = WorldState["actors"][number];

function sameBlocked(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The snapshot of a world under `current`, fitted to `next`: rooms, objects, regions and memory
 * sources that `next` lacks are dropped; actors whose room is gone are taken out (`homeless`: the
 * caller places them anew); objects' records of actors go with their objects; actors off the new map are put on its edge; walks planned on a map that
 * changed are stopped (their paths may cross a new wall). */
export function fitSnapshot(
  snapshot: WorldSnapshot & { state: WorldState },
  current: WorldDefinition,
  next: WorldDefinition,
): { snapshot: WorldSnapshot & { state: WorldState }; homeless: ActorRecord[] } {
  // Not a deep copy: a snapshot's lists and records are its own, and what it shares with the world
  // (events, chat messages, memory entries, idempotent results) the world never changes. What is
  // changed below is copied first (actors, memory records), so the snapshot in stays as it was.
  // Copying the whole state was a fifth of the reload tick (World.redefine builds the new world
  // from this state without copying it again).
  const state = { ...snapshot.state, rooms: {} } as WorldState;
  const homeless: ActorRecord[] = [];
  const actors: ActorRecord[] = [];
  for (const record of state.actors) {
    const actor = { ...record };
    const room = next.rooms[actor.roomId];
    if (!room) {
      homeless.push(actor);
      continue;
    }
    const was = current.rooms[actor.roomId];
    if (was && !sameBlocked(was.blocked, room.blocked)) {
      actor.path = [];
      actor.pathIndex = 0;
      actor.dest = -1;
      delete actor.lead;
    }
    const ts = room.tileSize;
    const tx = Math.min(Math.max(Math.floor(actor.x / ts), 0), room.widthTiles - 1);
    const ty = Math.min(Math.max(Math.floor(actor.y / ts), 0), room.heightTiles - 1);
    if (tx !== Math.floor(actor.x / ts) || ty !== Math.floor(actor.y / ts)) {
      actor.x = (tx + 0.5) * ts;
      actor.y = (ty + 0.5) * ts;
    }
    actors.push(actor);
  }
  const present = new Map(actors.map((a) => [a.id, a.roomId]));
  // A lead names a partner: one who left with the room is no partner any more.
  for (const actor of actors) if (actor.lead && !present.has(actor.lead.with)) delete actor.lead;
  state.actors = actors;
  state.proximity = state.proximity.filter((p) => present.has(p.a) && present.has(p.b));

  const objectDefs = new Map(
    Object.values(next.rooms).flatMap((r) => r.objects.map((o) => [o.id, o] as const)),
  );
  const oldObjectDefs = new Map(
    Object.values(current.rooms).flatMap((r) => r.objects.map((o) => [o.id, o] as const)),
  );
  state.objects = state.objects.flatMap((o) => {
    const def = objectDefs.get(o.id);
    const was = oldObjectDefs.get(o.id);
    if (!def || !was || def.objectType !== was.objectType || def.roomId !== was.roomId) return [];
    const handler = objectType(def.objectType);
    if (!handler) return [];
    if (handler.checkState?.(o.state, def)) return [];
    const holder = handler.holder?.(o.state);
    if (holder !== undefined && present.get(holder) !== def.roomId) return [];
    if (!handler.refit) return [o];
    // A creature whose region moved, or whose ground became a wall, goes back inside.
    const fitted = handler.refit(o.state, def, next.rooms[def.roomId]!);
    return fitted ? [{ ...o, state: fitted as typeof o.state }] : [];
  });

  for (const [roomId, room] of Object.entries(snapshot.state.rooms)) {
    const nextRoom = next.rooms[roomId];
    if (!nextRoom) continue;
    const regionIds = new Set(nextRoom.regions.map((r) => r.id));
    const copied = structuredClone({ ...room, events: [] }) as typeof room;
    copied.events = room.events;
    if (copied.signals) {
      for (const bucket of copied.signals)
        for (const id of Object.keys(bucket.regions)) if (!regionIds.has(id)) delete bucket.regions[id];
    }
    state.rooms[roomId] = copied;
  }
  if (state.records) {
    // An object's records go with it; a record its new definition refuses (a tour's stops changed)
    // starts afresh.
    state.records = state.records.filter((r) => {
      const def = objectDefs.get(r.objectId);
      const was = oldObjectDefs.get(r.objectId);
      const handler = def && objectType(def.objectType);
      return (
        def !== undefined &&
        was?.objectType === def.objectType &&
        handler?.checkRecord !== undefined &&
        handler.checkRecord(r.record, def) === undefined
      );
    });
    if (state.records.length === 0) delete state.records;
  }
  if (state.memory)
    state.memory = state.memory.map((memory) => ({
      ...memory,
      reflections: memory.reflections.map((reflection) =>
        reflection.sources.every((s) => next.rooms[s.roomId] !== undefined)
          ? reflection
          : { ...reflection, sources: reflection.sources.filter((s) => next.rooms[s.roomId] !== undefined) },
      ),
    }));

  return {
    snapshot: { ...snapshot, world: next.name, sceneHash: next.sceneHash, state },
    homeless,
  };
}

/** What a moved actor is told. */
export function relocationNotice(moved: Relocation, fromRoomName: string, roomName: string): string {
  const at = `(${moved.tile.tx}, ${moved.tile.ty})`;
  return moved.reason === "room_removed"
    ? `The world changed: ${fromRoomName} is gone. You are now in ${roomName} at ${at}.`
    : `The world changed: your tile (${moved.fromTile.tx}, ${moved.fromTile.ty}) became a wall. You were moved to ${at}.`;
}
