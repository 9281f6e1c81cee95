// Axis-separated AABB movement against blocked tiles, with sliding and clamping to the room.
import type { TileGrid } from "./grid.ts";

const EPS = 1e-7;
/** Half the side of an actor's collision box, as a fraction of a tile (the box is 0.7 tile wide). */
export const BODY_HALF_TILES = 0.35;

function blockedAt(grid: TileGrid, tx: number, ty: number): boolean {
  if (tx < 0 || ty < 0 || tx >= grid.width || ty >= grid.height) return true;
  return grid.blocked[ty * grid.width + tx] === 1;
}

/** New x after moving by dx (|dx| < tileSize) from (x, y). */
function moveX(grid: TileGrid, ts: number, half: number, x: number, y: number, dx: number): number {
  const nx = x + dx;
  const r0 = Math.floor((y - half) / ts);
  const r1 = Math.floor((y + half - EPS) / ts);
  if (dx > 0) {
    const col = Math.floor((nx + half - EPS) / ts);
    for (let r = r0; r <= r1; r++) if (blockedAt(grid, col, r)) return Math.max(x, col * ts - half);
  } else if (dx < 0) {
    const col = Math.floor((nx - half) / ts);
    for (let r = r0; r <= r1; r++) if (blockedAt(grid, col, r)) return Math.min(x, (col + 1) * ts + half);
  }
  return nx;
}

function moveY(grid: TileGrid, ts: number, half: number, x: number, y: number, dy: number): number {
  const ny = y + dy;
  const c0 = Math.floor((x - half) / ts);
  const c1 = Math.floor((x + half - EPS) / ts);
  if (dy > 0) {
    const row = Math.floor((ny + half - EPS) / ts);
    for (let c = c0; c <= c1; c++) if (blockedAt(grid, c, row)) return Math.max(y, row * ts - half);
  } else if (dy < 0) {
    const row = Math.floor((ny - half) / ts);
    for (let c = c0; c <= c1; c++) if (blockedAt(grid, c, row)) return Math.min(y, (row + 1) * ts + half);
  }
  return ny;
}

/** Moves a body by (dx, dy), sliding along blocked tiles; writes the result into `out`. */
export function moveWithCollision(
  grid: TileGrid,
  tileSize: number,
  x: number,
  y: number,
  dx: number,
  dy: number,
  out: { x: number; y: number },
): void {
  const half = BODY_HALF_TILES * tileSize;
  const steps = Math.max(1, Math.ceil(Math.max(Math.abs(dx), Math.abs(dy)) / (tileSize * 0.25)));
  const sx = dx / steps;
  const sy = dy / steps;
  for (let i = 0; i < steps; i++) {
    x = moveX(grid, tileSize, half, x, y, sx);
    y = moveY(grid, tileSize, half, x, y, sy);
  }
  out.x = x;
  out.y = y;
}

/** Whether a body centred at (x, y) overlaps tile (tx, ty). */
export function bodyOverlapsTile(tileSize: number, x: number, y: number, tx: number, ty: number): boolean {
  const half = BODY_HALF_TILES * tileSize;
  return (
    x + half > tx * tileSize &&
    x - half < (tx + 1) * tileSize &&
    y + half > ty * tileSize &&
    y - half < (ty + 1) * tileSize
  );
}
