// Walking, one tick at a time: along a path of tile centres (moveTo, approach) or in a held
// direction with sliding along walls (moveDir). Called by the tick (World.simulate).
import type { Actor } from "./actor.ts";
import { tellIfStoppedAtClosed } from "./closed-edge.ts";
import { moveWithCollision } from "./collision.ts";
import type { WorldCore } from "./core.ts";
import { freeTileBeside, takenFor } from "./free-tile.ts";
import { holdsBack } from "./leading.ts";
import { enterObject } from "./object-use.ts";
import { stop } from "./placement.ts";
import type { Room, WorldObject } from "./room.ts";
import type { Facing } from "./types.ts";

export function facingFor(dx: number, dy: number, current: Facing): Facing {
  if (dx === 0 && dy === 0) return current;
  if (Math.abs(dx) > Math.abs(dy)) return dx > 0 ? "right" : "left";
  return dy > 0 ? "down" : "up";
}

/** Walks along tile centres; re-paths (or stops) when a door closed on the way. */
export function walkPath(room: Room, actor: Actor, stepLen: number): void {
  let remaining = stepLen;
  const ts = room.tileSize;
  let repathed = false;
  while (remaining > 0 && actor.pathIndex < actor.path.length) {
    const index = actor.path[actor.pathIndex]!;
    if (room.blocked[index]) {
      const from = actor.ty * room.width + actor.tx;
      const path = repathed ? undefined : room.pathFinder.find(room, from, actor.dest);
      if (!path) {
        stop(actor);
        return;
      }
      repathed = true;
      actor.path = path;
      actor.pathIndex = 0;
      continue;
    }
    const tx = index % room.width;
    const cx = (tx + 0.5) * ts;
    const cy = ((index - tx) / room.width + 0.5) * ts;
    const dx = cx - actor.x;
    const dy = cy - actor.y;
    const dist = Math.sqrt(dx * dx + dy * dy);
    if (dist <= remaining) {
      actor.x = cx;
      actor.y = cy;
      remaining -= dist;
      actor.pathIndex++;
    } else {
      actor.x += (dx / dist) * remaining;
      actor.y += (dy / dist) * remaining;
      remaining = 0;
    }
  }
  if (actor.pathIndex >= actor.path.length) stop(actor);
}

/** A lead that ended on a tile someone else stands on (the one led, or another walker) goes on to
 * the free tile beside it (free-tile.ts), and its goal moves with it. Only a lead: a plain moveTo
 * ends on its destination, whoever stands there (the PRD's moveTo; conformance checks it). */
function stepAside(room: Room, actor: Actor): void {
  if (actor.lead === undefined || !takenFor(room, actor.tx, actor.ty, actor)) return;
  const beside = freeTileBeside(room, actor.tx, actor.ty, actor);
  if (!beside) return;
  const goal = beside.ty * room.width + beside.tx;
  const path = room.pathFinder.find(room, actor.ty * room.width + actor.tx, goal);
  if (!path) return;
  actor.path = path;
  actor.pathIndex = 0;
  actor.dest = goal;
  actor.lead.goal = goal;
}

const scratch = { x: 0, y: 0 };

export function walkDir(room: Room, actor: Actor, stepLen: number): void {
  const scale = actor.dirX !== 0 && actor.dirY !== 0 ? stepLen * Math.SQRT1_2 : stepLen;
  moveWithCollision(room, room.tileSize, actor.x, actor.y, actor.dirX * scale, actor.dirY * scale, scratch);
  actor.x = scratch.x;
  actor.y = scratch.y;
}

/** One tick of walking for every actor, then what the tiles they stepped onto do (a portal). */
export function walkAll(w: WorldCore, stepLen: number): void {
  // Actors that stepped onto a tile whose object acts on arrival (a portal): applied after every
  // room moved, since a portal moves the actor to another room's list.
  let stepped: { actor: Actor; objects: WorldObject[] }[] | undefined;
  for (const room of w.rooms.values()) {
    const actors = room.actors;
    for (let i = 0; i < actors.length; i++) {
      const actor = actors[i]!;
      const x0 = actor.x;
      const y0 = actor.y;
      const movedBefore = actor.moving;
      let held = false;
      if (actor.lead !== undefined && holdsBack(w, room, actor)) {
        // It waits for the one it leads (leading.ts).
      } else if (actor.pathIndex < actor.path.length) {
        walkPath(room, actor, stepLen);
        if (actor.pathIndex >= actor.path.length) stepAside(room, actor);
      } else if (actor.dirX !== 0 || actor.dirY !== 0) {
        walkDir(room, actor, stepLen);
        held = true;
      }
      const dx = actor.x - x0;
      const dy = actor.y - y0;
      actor.moving = dx !== 0 || dy !== 0;
      if (held) tellIfStoppedAtClosed(w, room, actor, movedBefore, actor.moving);
      if (actor.moving) {
        actor.facing = facingFor(dx, dy, actor.facing);
        const tx0 = actor.tx;
        const ty0 = actor.ty;
        actor.tx = Math.min(room.width - 1, Math.max(0, Math.floor(actor.x / room.tileSize)));
        actor.ty = Math.min(room.height - 1, Math.max(0, Math.floor(actor.y / room.tileSize)));
        room.grid.update(actor);
        w.enteredTile(room, actor);
        if ((actor.tx !== tx0 || actor.ty !== ty0) && room.onEnter.size > 0) {
          const objects = room.onEnter.get(actor.ty * room.width + actor.tx);
          if (objects) {
            stepped ??= [];
            stepped.push({ actor, objects });
          }
        }
      }
    }
  }
  for (const { actor, objects } of stepped ?? []) {
    for (const obj of objects) {
      // Still there (an earlier object of the same tile may have carried it away).
      if (
        w.actors.get(actor.id) === actor &&
        actor.roomId === obj.def.roomId &&
        actor.tx === obj.def.tile.tx &&
        actor.ty === obj.def.tile.ty
      )
        enterObject(w, actor, obj);
    }
  }
}
