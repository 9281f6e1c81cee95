// Where to stand to use an object: the reachable tile nearest (by walking) to the actor from which
// the object is within interact range. Objects often sit in walls (a door) or against them, so "the
// tile below it" is frequently blocked; this asks the map instead. Pure: a breadth-first search over
// the room's current blocked grid (8-way, no corner cutting, like the path finder).
import type { TileGrid } from "./grid.ts";
import type { TileCoord } from "./types.ts";

const DX = [1, -1, 0, 0, 1, 1, -1, -1];
const DY = [0, 0, 1, -1, 1, -1, 1, -1];

/** Whether an actor standing on `at` (tile centre) is within `rangeTiles` of `target`'s centre. */
export function withinRange(at: TileCoord, target: TileCoord, rangeTiles: number): boolean {
  return Math.hypot(at.tx - target.tx, at.ty - target.ty) <= rangeTiles;
}

/** The first free tile within range of `target` reached from `from`, ties broken by the fixed
 * neighbour order (deterministic); `from` itself when already in range; undefined when no such tile
 * can be reached. A tile `taken` says someone stands on is walked through, never chosen (a walk does
 * not end on someone's tile: free-tile.ts). The search stops `maxTiles` expansions in, so a
 * walled-off object costs little. */
export function approachTile(
  grid: TileGrid,
  from: TileCoord,
  target: TileCoord,
  rangeTiles: number,
  taken: (tx: number, ty: number) => boolean = () => false,
  maxTiles = 20_000,
): TileCoord | undefined {
  const { width, height, blocked } = grid;
  const inside = (tx: number, ty: number) => tx >= 0 && ty >= 0 && tx < width && ty < height;
  if (!inside(from.tx, from.ty)) return undefined;
  if (withinRange(from, target, rangeTiles)) return { ...from };
  const seen = new Uint8Array(width * height);
  const queue: number[] = [from.ty * width + from.tx];
  seen[queue[0]!] = 1;
  for (let head = 0; head < queue.length && head < maxTiles; head++) {
    const i = queue[head]!;
    const tx = i % width;
    const ty = (i - tx) / width;
    for (let d = 0; d < 8; d++) {
      const nx = tx + DX[d]!;
      const ny = ty + DY[d]!;
      if (!inside(nx, ny)) continue;
      const n = ny * width + nx;
      if (seen[n] || blocked[n]) continue;
      // No corner cutting: a diagonal step needs both orthogonal neighbours free.
      if (d >= 4 && (blocked[ty * width + nx] || blocked[ny * width + tx])) continue;
      seen[n] = 1;
      if (withinRange({ tx: nx, ty: ny }, target, rangeTiles) && !taken(nx, ny)) return { tx: nx, ty: ny };
      queue.push(n);
    }
  }
  return undefined;
}
