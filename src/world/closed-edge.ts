// A held walk (the arrow keys) that comes to a stop against a place closed by its hours is told why,
// in the words a click into it is refused with (closedNotice): otherwise the person only sees their
// figure halt at an invisible wall. Told once per stop: when the held walk stops there, or when a key
// is pressed while already standing flush against it; a key held on against the edge says nothing more.
import type { Actor } from "./actor.ts";
import { moveWithCollision } from "./collision.ts";
import type { WorldCore } from "./core.ts";
import { WORLD_NOTICE_ENTITY_ID, WORLD_NOTICE_NAME } from "./fit-definition.ts";
import { closedNotice } from "./opening-hours.ts";
import type { Room } from "./room.ts";
import type { RegionDefinition } from "./types.ts";

/** The closed place the actor's held direction leads into from its tile, if any. */
export function closedPlaceAhead(room: Room, actor: Actor): RegionDefinition | undefined {
  const { dirX: dx, dirY: dy } = actor;
  if (dx === 0 && dy === 0) return undefined;
  const ahead = [
    [actor.tx + dx, actor.ty + dy],
    [actor.tx + dx, actor.ty],
    [actor.tx, actor.ty + dy],
  ] as const;
  for (const [tx, ty] of ahead) {
    if (!room.inBounds(tx, ty) || (tx === actor.tx && ty === actor.ty)) continue;
    const place = room.closedPlaceAt(tx, ty);
    if (place) return place;
  }
  return undefined;
}

/** Whether the actor's held direction moves its body at all from where it stands. */
function stuckAsHeld(room: Room, actor: Actor): boolean {
  const out = { x: 0, y: 0 };
  const nudge = room.tileSize / 100;
  moveWithCollision(room, room.tileSize, actor.x, actor.y, actor.dirX * nudge, actor.dirY * nudge, out);
  return out.x === actor.x && out.y === actor.y;
}

function tellClosed(w: WorldCore, room: Room, actor: Actor, place: RegionDefinition): void {
  w.sayTo(room, actor.id, WORLD_NOTICE_ENTITY_ID, WORLD_NOTICE_NAME, closedNotice(place.name, place.hours!));
}

/** After a tick of held walking: a walk that moved last tick and stopped this one at a closed place. */
export function tellIfStoppedAtClosed(
  w: WorldCore,
  room: Room,
  actor: Actor,
  movedBefore: boolean,
  movedNow: boolean,
): void {
  if (!movedBefore || movedNow) return;
  const place = closedPlaceAhead(room, actor);
  if (place) tellClosed(w, room, actor, place);
}

/** A key pressed (moveDir) while standing flush against a closed place: no walk starts to stop. */
export function tellIfPressedIntoClosed(w: WorldCore, actor: Actor): void {
  const room = w.rooms.get(actor.roomId);
  if (!room || !stuckAsHeld(room, actor)) return;
  const place = closedPlaceAhead(room, actor);
  if (place) tellClosed(w, room, actor, place);
}
