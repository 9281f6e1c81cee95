// One room's actors as of one patch, in flat arrays, built once per room per patch and shared by every
// viewer in it: the per-viewer interest query then reads numbers (no entity view, no object per hit,
// no sort of the room) and finds a viewer's nearest actors with a bounded heap, walking the grid's
// cells outward from the viewer and stopping as soon as nothing farther can still make the list.
import type { EntityView } from "../../aic/reads.ts";

export class RoomCrowd {
  /** The room's actors in id order (WorldApi.actorsInRoom): an actor's index is its rank among
   * actors at the same distance, so ties break by id, the same way on every patch. */
  readonly views: readonly EntityView[];
  readonly size: number;
  /** Wire handles (PatchFragments.handle), by index. */
  readonly handles: Int32Array;
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  private readonly indexById = new Map<string, number>();
  // A grid over the actors' bounding box: counting-sorted indices, cell by cell.
  private readonly cellSize: number;
  private readonly originX: number;
  private readonly originY: number;
  private readonly cols: number;
  private readonly rows: number;
  private readonly cellStart: Int32Array;
  private readonly cellItems: Int32Array;

  constructor(views: readonly EntityView[], handleOf: (id: string) => number, cellSize: number) {
    const n = views.length;
    this.views = views;
    this.size = n;
    this.handles = new Int32Array(n);
    this.xs = new Float64Array(n);
    this.ys = new Float64Array(n);
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = views[i]!;
      this.indexById.set(v.id, i);
      this.handles[i] = handleOf(v.id);
      const x = v.pos.x;
      const y = v.pos.y;
      this.xs[i] = x;
      this.ys[i] = y;
      if (x < minX) minX = x;
      if (y < minY) minY = y;
      if (x > maxX) maxX = x;
      if (y > maxY) maxY = y;
    }
    if (n === 0) minX = minY = maxX = maxY = 0;
    // Rooms are bounded, but a huge span would make a huge grid: coarser cells keep it <= 64k cells.
    let size = Math.max(1, cellSize);
    while (((maxX - minX) / size + 1) * ((maxY - minY) / size + 1) > 65_536) size *= 2;
    this.cellSize = size;
    this.originX = minX;
    this.originY = minY;
    this.cols = Math.floor((maxX - minX) / size) + 1;
    this.rows = Math.floor((maxY - minY) / size) + 1;
    const cellOf = new Int32Array(n);
    this.cellStart = new Int32Array(this.cols * this.rows + 1);
    for (let i = 0; i < n; i++) {
      const c = this.cellAt(this.xs[i]!, this.ys[i]!);
      cellOf[i] = c;
      this.cellStart[c + 1]! += 1;
    }
    for (let c = 0; c < this.cols * this.rows; c++) this.cellStart[c + 1]! += this.cellStart[c]!;
    const fill = this.cellStart.slice(0, this.cols * this.rows);
    this.cellItems = new Int32Array(n);
    for (let i = 0; i < n; i++) this.cellItems[fill[cellOf[i]!]!++] = i;
  }

  private cellAt(x: number, y: number): number {
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor((x - this.originX) / this.cellSize)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.originY) / this.cellSize)));
    return cy * this.cols + cx;
  }

  /** The actor's index in this crowd, or -1. */
  indexOf(id: string): number {
    return this.indexById.get(id) ?? -1;
  }

  /**
   * The `limit` actors nearest to (x, y) within `radius`, except `skip` (an index, or -1), ranked by
   * distance, ties by index (id). Writes their indices to `out` and squared distances to `outD2`
   * (both at least `limit` long) and returns how many. The first `split` (default: all) are the
   * nearest `split`, in no particular order (a caller that only asks "among the nearest split?"
   * saves the sort); the rest follow nearest first.
   */
  nearest(
    x: number,
    y: number,
    radius: number,
    limit: number,
    skip: number,
    out: Int32Array,
    outD2: Float64Array,
    split = 0,
  ): number {
    const heap = new NearestHeap(out, outD2, limit);
    const r2 = radius * radius;
    const visit = (i: number) => {
      if (i === skip) return;
      const dx = this.xs[i]! - x;
      const dy = this.ys[i]! - y;
      const d2 = dx * dx + dy * dy;
      if (d2 <= r2) heap.offer(i, d2);
    };
    if (limit <= 0 || !(radius >= 0)) return 0;
    if (this.size <= 4 * limit) {
      // A small room: every actor is a candidate anyway.
      for (let i = 0; i < this.size; i++) visit(i);
      return heap.sorted(split);
    }
    // Rings of cells around the viewer's cell, nearest ring first. After ring r, anything unseen is
    // beyond the block's unclipped edges: stop when that is farther than the radius, or farther than
    // the worst kept actor (strictly: an unseen actor at the same distance might have a lower index).
    const size = this.cellSize;
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor((x - this.originX) / size)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.originY) / size)));
    for (let ring = 0; ; ring++) {
      const x0 = cx - ring;
      const x1 = cx + ring;
      const y0 = cy - ring;
      const y1 = cy + ring;
      for (let gy = Math.max(0, y0); gy <= Math.min(this.rows - 1, y1); gy++) {
        const edgeRow = gy === y0 || gy === y1;
        for (let gx = Math.max(0, x0); gx <= Math.min(this.cols - 1, x1); gx++) {
          if (!edgeRow && gx !== x0 && gx !== x1) continue;
          const c = gy * this.cols + gx;
          for (let k = this.cellStart[c]!; k < this.cellStart[c + 1]!; k++) visit(this.cellItems[k]!);
        }
      }
      let unseen = Infinity;
      if (x0 > 0) unseen = Math.min(unseen, x - (this.originX + x0 * size));
      if (x1 < this.cols - 1) unseen = Math.min(unseen, this.originX + (x1 + 1) * size - x);
      if (y0 > 0) unseen = Math.min(unseen, y - (this.originY + y0 * size));
      if (y1 < this.rows - 1) unseen = Math.min(unseen, this.originY + (y1 + 1) * size - y);
      if (unseen === Infinity || unseen > radius) break;
      if (heap.full() && heap.worstD2() < unseen * unseen) break;
    }
    return heap.sorted(split);
  }
}

/** A max-heap (worst on top) of at most `limit` (index, squared distance) pairs, kept in the
 * caller's arrays; worse = farther, then higher index. */
class NearestHeap {
  private count = 0;
  private readonly idx: Int32Array;
  private readonly d2: Float64Array;
  private readonly limit: number;

  constructor(idx: Int32Array, d2: Float64Array, limit: number) {
    this.idx = idx;
    this.d2 = d2;
    this.limit = limit;
  }

  full(): boolean {
    return this.count === this.limit;
  }

  worstD2(): number {
    return this.d2[0]!;
  }

  private worse(a: number, b: number): boolean {
    const da = this.d2[a]!;
    const db = this.d2[b]!;
    return da > db || (da === db && this.idx[a]! > this.idx[b]!);
  }

  private swap(a: number, b: number): void {
    const i = this.idx[a]!;
    this.idx[a] = this.idx[b]!;
    this.idx[b] = i;
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

  offer(i: number, d2: number): void {
    if (this.count < this.limit) {
      let c = this.count++;
      this.idx[c] = i;
      this.d2[c] = d2;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (!this.worse(c, p)) break;
        this.swap(c, p);
        c = p;
      }
      return;
    }
    const top = this.d2[0]!;
    if (d2 > top || (d2 === top && i > this.idx[0]!)) return;
    this.idx[0] = i;
    this.d2[0] = d2;
    this.down(0, this.count);
  }

  /** Sorts the arrays in place, nearest first (heapsort), down to `split`: the first `split` stay a
   * heap (the nearest `split`, unordered). Returns the count. */
  sorted(split: number): number {
    for (let end = this.count - 1; end > 0 && end >= split; end--) {
      this.swap(0, end);
      this.down(0, end);
    }
    return this.count;
  }
}
