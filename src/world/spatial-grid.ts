// A uniform grid of actors per room; cells are `cellSize` world units wide. Neighbour queries look at
// the cells a radius covers, never at every actor; a k-nearest query walks them outward in rings and
// stops as soon as nothing farther can still make the list.
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

  /**
   * The `limit` actors nearest to (x, y) within `radius`, except `skip`, nearest first, ties by id
   * (the same on every run); with their squared distances in `d2` (grown as needed).
   */
  nearest(
    x: number,
    y: number,
    radius: number,
    limit: number,
    skip: Actor | undefined,
    d2: number[],
  ): Actor[] {
    const heap = new NearestHeap(Math.floor(limit), d2);
    if (heap.limit <= 0 || !(radius >= 0)) return heap.sorted();
    const r2 = radius * radius;
    const size = this.cellSize;
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor(x / size)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor(y / size)));
    // After ring r, anything unseen is beyond the block's unclipped edges: stop when that is farther
    // than the radius, or than the worst kept actor (strictly: an unseen actor at the same distance
    // might have a lower id).
    for (let ring = 0; ; ring++) {
      const x0 = cx - ring;
      const x1 = cx + ring;
      const y0 = cy - ring;
      const y1 = cy + ring;
      for (let gy = Math.max(0, y0); gy <= Math.min(this.rows - 1, y1); gy++) {
        const edgeRow = gy === y0 || gy === y1;
        for (let gx = Math.max(0, x0); gx <= Math.min(this.cols - 1, x1); gx++) {
          if (!edgeRow && gx !== x0 && gx !== x1) continue;
          const cell = this.cells[gy * this.cols + gx]!;
          for (let i = 0; i < cell.length; i++) {
            const other = cell[i]!;
            if (other === skip) continue;
            const dx = other.x - x;
            const dy = other.y - y;
            const dd = dx * dx + dy * dy;
            if (dd <= r2) heap.offer(other, dd);
          }
        }
      }
      let unseen = Infinity;
      if (x0 > 0) unseen = Math.min(unseen, x - x0 * size);
      if (x1 < this.cols - 1) unseen = Math.min(unseen, (x1 + 1) * size - x);
      if (y0 > 0) unseen = Math.min(unseen, y - y0 * size);
      if (y1 < this.rows - 1) unseen = Math.min(unseen, (y1 + 1) * size - y);
      if (unseen === Infinity || unseen > radius) break;
      if (heap.full() && heap.worstD2() < unseen * unseen) break;
    }
    return heap.sorted();
  }
}

/** A max-heap (worst on top) of at most `limit` actors with their squared distances; worse =
 * farther, then higher id. */
class NearestHeap {
  readonly limit: number;
  private readonly actors: Actor[] = [];
  private readonly d2: number[];

  constructor(limit: number, d2: number[]) {
    this.limit = Math.max(0, limit);
    this.d2 = d2;
    d2.length = 0;
  }

  full(): boolean {
    return this.actors.length === this.limit;
  }

  worstD2(): number {
    return this.d2[0]!;
  }

  private worse(a: number, b: number): boolean {
    const da = this.d2[a]!;
    const db = this.d2[b]!;
    return da > db || (da === db && this.actors[a]!.id > this.actors[b]!.id);
  }

  private swap(a: number, b: number): void {
    const actor = this.actors[a]!;
    this.actors[a] = this.actors[b]!;
    this.actors[b] = actor;
    const d = this.d2[a]!;
    this.d2[a] = this.d2[b]!;
    this.d2[b] = d;
  }

  private down(from: number, count: number): void {
    let p = from;
    for (;;) {
      const l = 2 * p + 1;
      if (l >= count) return;
      const r = l + 1;
      const c = r < count && this.worse(r, l) ? r : l;
      if (!this.worse(c, p)) return;
      this.swap(c, p);
      p = c;
    }
  }

  offer(actor: Actor, d2: number): void {
    if (this.actors.length < this.limit) {
      let c = this.actors.length;
      this.actors.push(actor);
      this.d2.push(d2);
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (!this.worse(c, p)) break;
        this.swap(c, p);
        c = p;
      }
      return;
    }
    const top = this.d2[0]!;
    if (d2 > top || (d2 === top && actor.id > this.actors[0]!.id)) return;
    this.actors[0] = actor;
    this.d2[0] = d2;
    this.down(0, this.actors.length);
  }

  /** The kept actors nearest first (a heapsort in place; `d2` follows). */
  sorted(): Actor[] {
    for (let end = this.actors.length - 1; end > 0; end--) {
      this.swap(0, end);
      this.down(0, end);
    }
    return this.actors;
  }
}
