// Tiles someone else stands on: a lead (leading.ts) that ends on one steps on to the free tile beside
// it nearest the walker (movement.ts `stepAside`), and an approach never chooses one as the place to
// stand (actions/approach.ts). A plain moveTo still ends on its destination, whoever stands there: the
// PRD's moveTo does, and other servers' clients (and our conformance suite) expect it. A portal's
// tile is never "taken" (it carries whoever steps on away).
// Pure: the room's grid and its actors only; ties go by a fixed order of neighbours (deterministic).
import type { Actor } from "./actor.ts";
import type { Room } from "./room.ts";
import type { TileCoord } from "./types.ts";

/** Whether someone other than `self` stands (walks no path, holds no direction) on tile (tx, ty). */
export function standingOn(room: Room, tx: number, ty: number, self: Actor): boolean {
  const ts = room.tileSize;
  let found = false;
  room.grid.forEachWithin((tx + 0.5) * ts, (ty + 0.5) * ts, ts, (other) => {
    if (
      !found &&
      other !== self &&
      other.tx === tx &&
      other.ty === ty &&
      other.pathIndex >= other.path.length &&
      other.dirX === 0 &&
      other.dirY === 0
    )
      found = true;
  });
  return found;
}

/** Whether a walk by `self` to (tx, ty) should end beside it: someone stands there, and it is not a
 * portal's tile. */
export function takenFor(room: Room, tx: number, ty: number, self: Actor): boolean {
  return !room.onEnter.has(ty * room.width + tx) && standingOn(room, tx, ty, self);
}

/** The way out of a closed place (Room.applyHours) for one inside it: the open tile outside nearest by
 * walking, through the place's own floor (it blocks only because it is closed) and never through a
 * wall, so nobody is put in the next room over; neighbours in a fixed order (deterministic). Nobody
 * standing there, no portal. Undefined when no way out exists (the caller falls back to
 * `nearestOpenTile`). */
export function nearestWayOut(room: Room, tx: number, ty: number, self: Actor): TileCoord | undefined {
  const { width } = room;
  const seen = new Uint8Array(room.width * room.height);
  const queue = [ty * width + tx];
  seen[queue[0]!] = 1;
  for (let head = 0; head < queue.length; head++) {
    const index = queue[head]!;
    const x = index % width;
    const y = (index - x) / width;
    if (head > 0 && !room.blocked[index]) {
      if (!room.onEnter.has(index) && !standingOn(room, x, y, self)) return { tx: x, ty: y };
    }
    for (const [dx, dy] of STEPS) {
      const nx = x + dx;
      const ny = y + dy;
      if (!room.inBounds(nx, ny)) continue;
      const next = ny * width + nx;
      if (seen[next]) continue;
      seen[next] = 1;
      if (!room.blocked[next] || room.closedFloor(nx, ny)) queue.push(next);
    }
  }
  return undefined;
}

const STEPS = [
  [0, -1],
  [-1, 0],
  [1, 0],
  [0, 1],
] as const;

const RINGS = 2;

/** The free tile beside (tx, ty) nearest `self` (ring 1 first, then ring 2): open, no portal, nobody
 * standing on it, and not the walker's own tile unless that is the nearest free one; undefined when
 * none is. Reachability is the path finder's to say. */
export function freeTileBeside(room: Room, tx: number, ty: number, self: Actor): TileCoord | undefined {
  return freeInRings(room, tx, ty, self, 1, RINGS, { tx: self.tx, ty: self.ty });
}

/** The open tile nearest (tx, ty), itself first: not blocked, no portal, nobody standing on it;
 * rings outwards over the whole room, the nearest of a ring by distance, ties by row then column.
 * For an actor a changed map left on a wall (World.redefine). Undefined in a room with no open tile. */
export function nearestOpenTile(room: Room, tx: number, ty: number, self: Actor): TileCoord | undefined {
  return freeInRings(room, tx, ty, self, 0, Math.max(room.width, room.height), { tx, ty });
}

/** Rings `first`..`last` around (tx, ty), nearest first: in the first ring with a free tile (open, no
 * portal, nobody but `self` on it), the one nearest `from`, ties by row then column. */
function freeInRings(
  room: Room,
  tx: number,
  ty: number,
  self: Actor,
  first: number,
  last: number,
  from: TileCoord,
): TileCoord | undefined {
  for (let ring = first; ring <= last; ring++) {
    let best: TileCoord | undefined;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const x = tx + dx;
        const y = ty + dy;
        if (!room.inBounds(x, y)) continue;
        const index = y * room.width + x;
        if (room.blocked[index] || room.onEnter.has(index) || standingOn(room, x, y, self)) continue;
        const distance = (x - from.tx) ** 2 + (y - from.ty) ** 2;
        if (distance < bestDistance) {
          best = { tx: x, ty: y };
          bestDistance = distance;
        }
      }
    }
    if (best) return best;
  }
  return undefined;
}
