// What an actor sees, as a short digest (seed 002's guards): the actor's own room and
// tile, and everyone and everything within VIEW_RADIUS_TILES of it, each with the tile it stands on
// (an object with its state version). Two equal digests mean nothing near the actor moved, came,
// went or changed between two looks; the `view_is` guard refuses an action decided on a view that
// no longer holds. A digest rather than a counter: a counter per actor would be state the world
// updates every tick for every actor, or that reads would write (reads are not in the log).
// Also the entity views the reads answer with (actorView, objectEntityView).
import type { Actor } from "./actor.ts";
import { objectTile, type Room, type WorldObject } from "./room.ts";
import { sha256Hex } from "./snapshot.ts";
import type { EntityView, WorldDefinition } from "./types.ts";

/** How far an actor's view reaches (tiles): also how far the heartbeat looks for suggestions. */
export const VIEW_RADIUS_TILES = 8;
/** Hex digits of a view digest: 48 bits, short enough for a model's context, and collisions between
 * two looks of one actor are out of reach. */
export const VIEW_DIGEST_CHARS = 12;
export const VIEW_DIGEST_PATTERN = /^[0-9a-f]{12}$/;

export interface SeenThing {
  id: string;
  tile: { tx: number; ty: number };
  /** An object's state version (most objects do not move; their state does). */
  version?: number;
}

/** The digest of one actor's view. `seen` in any order: it is sorted here. */
export function viewDigest(
  roomId: string,
  tile: { tx: number; ty: number },
  seen: readonly SeenThing[],
): string {
  const parts = seen
    .map((s) => `${s.id}@${s.tile.tx},${s.tile.ty}${s.version === undefined ? "" : `#${s.version}`}`)
    .sort();
  return sha256Hex(`${roomId}@${tile.tx},${tile.ty}|${parts.join("|")}`).slice(0, VIEW_DIGEST_CHARS);
}

/** What observers see of an actor (PRD EntityBase). */
export function actorView(def: WorldDefinition, actor: Actor): EntityView {
  return {
    id: actor.id,
    kind: actor.kind,
    name: actor.name,
    roomId: actor.roomId,
    pos: { x: actor.x, y: actor.y },
    tile: { tx: actor.tx, ty: actor.ty },
    facing: actor.facing,
    speed: actor.moving ? def.walkSpeed : 0,
    ...(actor.thinking ? { thinking: true as const } : {}),
    ...(actor.asleep ? { asleep: true as const } : {}),
    ...(actor.unwell ? { unwell: true as const } : {}),
    ...(actor.away ? { away: true as const } : {}),
    ...(actor.lead ? { lead: { with: actor.lead.with, state: actor.lead.state } } : {}),
  };
}

/** What observers see of an object, in its room. */
export function objectEntityView(room: Room, obj: WorldObject): EntityView {
  const ts = room.tileSize;
  const { tx, ty } = objectTile(obj);
  return {
    id: obj.def.id,
    kind: "object",
    name: obj.def.name,
    roomId: obj.def.roomId,
    pos: { x: (tx + 0.5) * ts, y: (ty + 0.5) * ts },
    tile: { tx, ty },
    facing: "down",
    speed: 0,
    meta: { objectType: obj.def.objectType },
  };
}
