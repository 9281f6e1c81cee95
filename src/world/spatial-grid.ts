// A uniform grid of actors per room; cells are `cellSize` world units wide. Neighbour queries look at
// the cells a radius covers, never at every actor.
import type { Actor } from "./actor.ts";

export class SpatialGrid {
  readonly cellSize: number;
  readonly cols: number;
  readonly rows: number;
  readonly cells: Actor[][];
  constructor(worldWidth: number, worldHeight: number, cellSize: number) {
    this.cellSize = cellSize;
    this.cols = Math.max(1, Math.ceil(worldWidth / cellSize));
    this.rows = Math.max(1, Math.ceil(worldHeight / cellSize));
    this.cells = Array.from({ length: this.cols * this.rows }, () => []);
  }
  cellOf(x: number, y: number): number {
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor(x / this.cellSize)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor(y / this.cellSize)));
    return cy * this.cols + cx;
  }
  insert(actor: Actor): void {
    actor.cell = this.cellOf(actor.x, actor.y);
    this.cells[actor.cell]!.push(actor);
  }
  remove(actor: Actor): void {
    const cell = this.cells[actor.cell]!;
    const i = cell.indexOf(actor);
    if (i >= 0) {
      cell[i] = cell[cell.length - 1]!;
      cell.pop();
    }
    actor.cell = -1;
  }
  /** Call after an actor moved. */
  update(actor: Actor): void {
    const cell = this.cellOf(actor.x, actor.y);
    if (cell === actor.cell) return;
    this.remove(actor);
    actor.cell = cell;
    this.cells[cell]!.push(actor);
  }
  /** Calls `visit` for every actor within `radius` of (x, y), with the distance. */
  forEachWithin(x: number, y: number, radius: number, visit: (actor: Actor, distance: number) => void): void {
    const size = this.cellSize;
    const cx0 = Math.max(0, Math.floor((x - radius) / size));
    const cx1 = Math.min(this.cols - 1, Math.floor((x + radius) / size));
    const cy0 = Math.max(0, Math.floor((y - radius) / size));
    const cy1 = Math.min(this.rows - 1, Math.floor((y + radius) / size));
    const r2 = radius * radius;
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const cell = this.cells[cy * this.cols + cx]!;
        for (let i = 0; i < cell.length; i++) {
          const other = cell[i]!;
          const dx = other.x - x;
          const dy = other.y - y;
          const d2 = dx * dx + dy * dy;
          if (d2 <= r2) visit(other, Math.sqrt(d2));
        }
      }
    }
  }
}
