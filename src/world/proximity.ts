// Radius membership between actors of a room, debounced per pair in ticks, and bounded per actor:
// an actor is in proximity with at most `maxNeighbors` others (DECISIONS.md, "Proximity in a crowd").
//  - A pair is a candidate while the two are within the radius and one of them is among the other's
//    nearest `maxNeighbors` actors that still have a free place (ties: a hash of the pair).
//  - A candidate enters once it was one for `debounce` consecutive ticks and both still have a free
//    place; when places are short, nearer pairs enter first (the order of settle()).
//  - A reported pair stays while within the radius (debounced as before): a crowd walking past does
//    not push out whom an actor already perceives, so the pairs, and the events, do not churn.
//  - Someone with no partner also looks at full actors, and may take the place of one's farthest
//    partner if that partner keeps another (admit()): nobody in a crowd is left perceiving no one.
// With fewer than `maxNeighbors` others within the radius nobody is ever full, every pair within the
// radius is a candidate, and this is plain radius membership. Pair state lives in a PairTable keyed by
// the two actors' handles; everything that decides future changes is the pairs' reported state and
// debounce counter (in the snapshot), the actors' positions and handles, and each actor's number of
// partners (Actor.proximityCount, counted from the pairs on restore).
import { type Actor, compareIds } from "./actor.ts";
import { PairTable } from "./pair-table.ts";
import type { SpatialGrid } from "./spatial-grid.ts";

/** The largest `proximity_max_neighbors` a world may set (definition.ts checks the bound). */
export const MAX_NEIGHBORS_BOUND = 256;

/** Fine cells per side of a spatial-grid cell (those are one radius wide): 4, unless that makes more
 * than FINE_CELLS_MAX cells (a huge map with a small radius), where the counting sort's per-tick pass
 * over the cells would cost more than the search saves. */
function fineness(gridCells: number): number {
  if (gridCells * 16 <= FINE_CELLS_MAX) return 4;
  return gridCells * 4 <= FINE_CELLS_MAX ? 2 : 1;
}
const FINE_CELLS_MAX = 1 << 16;

/** An actor's places during a scan: all taken, some free, or no partner at all. */
const FULL = 0;
const OPEN = 1;
const ALONE = 2;

/** A reported change of one pair, ordered by id (a.id < b.id). */
export interface ProximityChange {
  a: Actor;
  b: Actor;
  inside: boolean;
}

/** A tracked pair as the snapshot stores it. */
export interface ProximityRecord {
  a: string;
  b: string;
  inside: boolean;
  counter: number;
}

function change(x: Actor, y: Actor, inside: boolean): ProximityChange {
  return compareIds(x.id, y.id) < 0 ? { a: x, b: y, inside } : { a: y, b: x, inside };
}

export class ProximityTracker {
  /** Every tracked pair (reported inside, or a pending candidate); order is not meaningful. */
  private readonly pairs = new PairTable();

  get size(): number {
    return this.pairs.size;
  }

  /** Restores a pair (snapshot); an inside pair takes a place of each actor. */
  add(x: Actor, y: Actor, inside: boolean, counter: number): void {
    this.pairs.add(x, y, inside, counter, -1);
    if (inside) {
      x.proximityCount++;
      y.proximityCount++;
    }
  }

  /** The tracked pairs, unordered. */
  records(): ProximityRecord[] {
    const t = this.pairs;
    const out: ProximityRecord[] = [];
    for (let d = 0; d < t.size; d++) {
      const { a, b } = change(t.loActor[d]!, t.hiActor[d]!, false);
      out.push({ a: a.id, b: b.id, inside: t.inside[d] === 1, counter: t.counter[d]! });
    }
    return out;
  }

  // Scratch buffers for the scan: actors counting-sorted by fine cell, with positions, handles and
  // whether they have a free place in typed arrays, so the neighbour loops read contiguous memory.
  private cellStart = new Int32Array(1);
  private cursor = new Int32Array(1);
  private px = new Float64Array(16);
  private py = new Float64Array(16);
  private ph = new Int32Array(16);
  private open = new Uint8Array(16);
  /** Fine cell of each sorted actor, and of each input actor (before sorting). */
  private pc = new Int32Array(16);
  private cells = new Int32Array(16);
  private sorted: Actor[] = [];
  // One actor's bounded nearest-k selection: a max-heap of (squared distance, tie key, index in
  // `sorted`) with the farthest kept candidate on top.
  private readonly heapD = new Float64Array(MAX_NEIGHBORS_BOUND);
  private readonly heapT = new Float64Array(MAX_NEIGHBORS_BOUND);
  private readonly heapJ = new Int32Array(MAX_NEIGHBORS_BOUND);
  private heapSize = 0;

  /** Marks this tick's candidate pairs among the actors of one room (any visiting order: settle()
   * decides and sorts). Only actors with a free place look, and only at others with one: in a crowd
   * where most are full, the scan is cheap. */
  scanRoom(
    actors: readonly Actor[],
    grid: SpatialGrid,
    radius: number,
    maxNeighbors: number,
    tick: number,
  ): void {
    const n = actors.length;
    if (n < 2) return;
    const max = Math.min(maxNeighbors, MAX_NEIGHBORS_BOUND);
    // Fine cells (a quarter of the radius): the search around an actor stops at the first ring
    // beyond its nearest `max`, so in a crowd it reads a few cells instead of the whole radius.
    const fine = fineness(grid.cols * grid.rows);
    const cols = grid.cols * fine;
    const rows = grid.rows * fine;
    const size = grid.cellSize / fine;
    const cellCount = cols * rows;
    if (this.cellStart.length < cellCount + 1) {
      this.cellStart = new Int32Array(cellCount + 1);
      this.cursor = new Int32Array(cellCount + 1);
    }
    if (this.px.length < n) {
      const cap = Math.max(n, this.px.length * 2);
      this.px = new Float64Array(cap);
      this.py = new Float64Array(cap);
      this.ph = new Int32Array(cap);
      this.open = new Uint8Array(cap);
      this.pc = new Int32Array(cap);
      this.cells = new Int32Array(cap);
    }
    const { cellStart, cursor, px, py, ph, open, pc, cells, sorted } = this;
    cellStart.fill(0, 0, cellCount + 1);
    for (let i = 0; i < n; i++) {
      const actor = actors[i]!;
      const cell = fineCell(actor.x, actor.y, size, cols, rows);
      cells[i] = cell;
      cellStart[cell + 1]!++;
    }
    for (let c = 0; c < cellCount; c++) cellStart[c + 1]! += cellStart[c]!;
    cursor.set(cellStart.subarray(0, cellCount));
    sorted.length = n;
    for (let i = 0; i < n; i++) {
      const actor = actors[i]!;
      const cell = cells[i]!;
      const at = cursor[cell]!++;
      sorted[at] = actor;
      px[at] = actor.x;
      py[at] = actor.y;
      ph[at] = actor.handle;
      open[at] = actor.proximityCount === 0 ? ALONE : actor.proximityCount < max ? OPEN : FULL;
      pc[at] = cell;
    }
    const r2 = radius * radius;
    const slack = size * 1e-6; // float slack on the ring bound (cell assignment rounds)
    for (let i = 0; i < n; i++) {
      if (open[i] === FULL) continue;
      const sx = px[i]!;
      const sy = py[i]!;
      const cell = pc[i]!;
      const cx = cell % cols;
      const cy = (cell - cx) / cols;
      // Ring l >= 1 (the cells at Chebyshev distance l from the actor's) lies at least
      // (l - 1) * size + edge away, edge being the distance to the actor's own cell border.
      const edge = Math.min(sx - cx * size, (cx + 1) * size - sx, sy - cy * size, (cy + 1) * size - sy);
      const rings = Math.max(cx, cols - 1 - cx, cy, rows - 1 - cy);
      this.heapSize = 0;
      for (let l = 0; l <= rings; l++) {
        if (l > 0) {
          const bound = (l - 1) * size + edge - slack;
          if (bound > radius) break;
          // (bound < 0 for an actor outside the map, clamped into an edge cell: no bound then)
          if (bound > 0 && this.heapSize === max && this.heapD[0]! < bound * bound) break;
        }
        const y0 = cy - l;
        const y1 = cy + l;
        const x0 = Math.max(cx - l, 0);
        const x1 = Math.min(cx + l, cols - 1);
        // The ring's top and bottom rows (adjacent cells of a row are contiguous in sorted order).
        if (y0 >= 0) this.consider(i, cellStart[y0 * cols + x0]!, cellStart[y0 * cols + x1 + 1]!, r2, max);
        if (l === 0) continue;
        if (y1 < rows) this.consider(i, cellStart[y1 * cols + x0]!, cellStart[y1 * cols + x1 + 1]!, r2, max);
        // Its left and right columns, between those rows.
        const ya = Math.max(y0 + 1, 0);
        const yb = Math.min(y1 - 1, rows - 1);
        for (let y = ya; y <= yb; y++) {
          if (cx - l >= 0) {
            const c = y * cols + cx - l;
            this.consider(i, cellStart[c]!, cellStart[c + 1]!, r2, max);
          }
          if (cx + l < cols) {
            const c = y * cols + cx + l;
            this.consider(i, cellStart[c]!, cellStart[c + 1]!, r2, max);
          }
        }
      }
      for (let k = 0; k < this.heapSize; k++) this.touch(i, this.heapJ[k]!, this.heapD[k]!, tick);
    }
  }

  /** Offers the sorted actors j0..j1-1 to actor i's nearest-`max` heap. */
  private consider(i: number, j0: number, j1: number, r2: number, max: number): void {
    const { px, py, ph, open, heapD } = this;
    const sx = px[i]!;
    const sy = py[i]!;
    const sh = ph[i]!;
    const all = open[i] === ALONE; // someone alone also looks at the full: it may take a place
    for (let j = j0; j < j1; j++) {
      if ((open[j] === FULL && !all) || j === i) continue;
      const dx = px[j]! - sx;
      const dy = py[j]! - sy;
      const d2 = dx * dx + dy * dy;
      if (d2 > r2) continue;
      if (this.heapSize < max) {
        this.push(d2, tieKey(sh, ph[j]!), j);
        continue;
      }
      const top = heapD[0]!;
      if (d2 > top) continue;
      const t = tieKey(sh, ph[j]!);
      if (d2 === top && !before(d2, t, ph[j]!, top, this.heapT[0]!, ph[this.heapJ[0]!]!)) continue;
      this.pop();
      this.push(d2, t, j);
    }
  }

  /** Whether heap entry p ranks after heap entry q (is the farther neighbour). */
  private after(p: number, q: number): boolean {
    const { heapD, heapT, heapJ, ph } = this;
    return before(heapD[q]!, heapT[q]!, ph[heapJ[q]!]!, heapD[p]!, heapT[p]!, ph[heapJ[p]!]!);
  }

  private push(d2: number, t: number, j: number): void {
    let k = this.heapSize++;
    this.heapD[k] = d2;
    this.heapT[k] = t;
    this.heapJ[k] = j;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!this.after(k, parent)) break;
      this.swap(k, parent);
      k = parent;
    }
  }

  private pop(): void {
    const last = --this.heapSize;
    if (last === 0) return;
    this.heapD[0] = this.heapD[last]!;
    this.heapT[0] = this.heapT[last]!;
    this.heapJ[0] = this.heapJ[last]!;
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= last) break;
      const r = l + 1;
      const w = r < last && this.after(r, l) ? r : l;
      if (!this.after(w, k)) break;
      this.swap(k, w);
      k = w;
    }
  }

  private swap(p: number, q: number): void {
    const { heapD, heapT, heapJ } = this;
    const d = heapD[p]!;
    heapD[p] = heapD[q]!;
    heapD[q] = d;
    const t = heapT[p]!;
    heapT[p] = heapT[q]!;
    heapT[q] = t;
    const j = heapJ[p]!;
    heapJ[p] = heapJ[q]!;
    heapJ[q] = j;
  }

  /** Marks the pair (sorted[i], sorted[j]) a candidate this tick, tracking it when new. */
  private touch(i: number, j: number, d2: number, tick: number): void {
    const a = this.ph[i]!;
    const b = this.ph[j]!;
    const t = this.pairs;
    let d = a < b ? t.find(a, b) : t.find(b, a);
    if (d < 0) d = t.add(this.sorted[i]!, this.sorted[j]!, false, 0, tick);
    t.seen[d] = tick;
    t.dist2[d] = d2;
  }

  // Pairs whose candidacy outlasted the debounce this tick, waiting for a place on both sides.
  private ready = new Int32Array(64);

  /** Advances debounce counters: exits first (they free places), then enters, nearest first, while
   * both actors have a free place. Returns the pairs whose reported state flipped, sorted by room id,
   * then ids: by the actors' ranks, which the caller refreshed this tick (integer compares; sorting
   * by id strings cost more per change the more changes a tick had). */
  settle(tick: number, debounceTicks: number, radius: number, maxNeighbors: number): ProximityChange[] {
    const changed: ProximityChange[] = [];
    const t = this.pairs;
    const r2 = radius * radius;
    let ready = 0;
    for (let d = 0; d < t.size; d++) {
      const a = t.loActor[d]!;
      const b = t.hiActor[d]!;
      if (t.inside[d] === 1) {
        const dx = a.x - b.x;
        const dy = a.y - b.y;
        if (dx * dx + dy * dy <= r2) t.counter[d] = 0;
        else if (++t.counter[d]! >= debounceTicks) {
          t.inside[d] = 0;
          t.counter[d] = 0; // dropped below
          a.proximityCount--;
          b.proximityCount--;
          changed.push(change(a, b, false));
        }
      } else if (t.seen[d] !== tick)
        t.counter[d] = 0; // no longer a candidate: dropped below
      else if (t.counter[d]! + 1 >= debounceTicks) {
        // Held for the debounce (the counter stops there while the pair waits for a place).
        t.counter[d] = debounceTicks;
        if (ready === this.ready.length) {
          const bigger = new Int32Array(ready * 2);
          bigger.set(this.ready);
          this.ready = bigger;
        }
        this.ready[ready++] = d;
      } else t.counter[d]!++;
    }
    if (ready > 0) this.admit(ready, maxNeighbors, changed);
    for (let d = t.size - 1; d >= 0; d--) if (t.inside[d] === 0 && t.counter[d] === 0) t.removeAt(d);
    if (changed.length > 1) changed.sort(compareRanks);
    return changed;
  }

  /** Enters the first `count` ready pairs, nearest first, while both sides have a free place. One
   * exception keeps a crowd from leaving anyone out (someone arriving at an idle crowd whose places
   * are all taken would otherwise perceive nobody until one of them walked away): a pair of someone
   * alone and someone full enters when the full one's farthest partner keeps another partner; that
   * pair leaves (at most once per full actor a tick). Nobody is left alone by a swap, so swaps do
   * not cascade: each gives one more actor a partner. */
  private admit(count: number, maxNeighbors: number, changed: ProximityChange[]): void {
    const t = this.pairs;
    let n = 0;
    let swaps = false;
    for (let k = 0; k < count; k++) {
      const d = this.ready[k]!;
      const a = t.loActor[d]!.proximityCount;
      const b = t.hiActor[d]!.proximityCount;
      if (a === 0 || b === 0) swaps = true; // the other may be (or become) full: a swap
      if ((a < maxNeighbors && b < maxNeighbors) || a === 0 || b === 0) this.ready[n++] = d;
    }
    const order = Array.from(this.ready.subarray(0, n));
    if (n > 1) {
      const { dist2, lo, hi } = t;
      order.sort(
        (p, q) =>
          dist2[p]! - dist2[q]! ||
          tieKey(lo[p]!, hi[p]!) - tieKey(lo[q]!, hi[q]!) ||
          lo[p]! - lo[q]! ||
          hi[p]! - hi[q]!,
      );
    }
    // Partners as they were before this tick's entries (an entry of this tick is not swapped out).
    const farthest = swaps ? this.farthestPartners() : undefined;
    const swapped = new Set<Actor>();
    for (const d of order) {
      const a = t.loActor[d]!;
      const b = t.hiActor[d]!;
      if (a.proximityCount >= maxNeighbors || b.proximityCount >= maxNeighbors) {
        const full = a.proximityCount >= maxNeighbors ? a : b;
        const alone = full === a ? b : a;
        if (alone.proximityCount !== 0 || swapped.has(full)) continue;
        const f = farthest!.get(full);
        if (f === undefined || t.inside[f] !== 1) continue;
        const partner = t.loActor[f] === full ? t.hiActor[f]! : t.loActor[f]!;
        if (partner.proximityCount < 2) continue;
        t.inside[f] = 0;
        t.counter[f] = 0; // (it may have been on its way out) dropped by settle()
        full.proximityCount--;
        partner.proximityCount--;
        changed.push(change(full, partner, false));
        swapped.add(full);
      }
      t.inside[d] = 1;
      t.counter[d] = 0;
      a.proximityCount++;
      b.proximityCount++;
      changed.push(change(a, b, true));
    }
  }

  /** Each actor's farthest reported partner (the dense index of the pair). */
  private farthestPartners(): Map<Actor, number> {
    const t = this.pairs;
    const out = new Map<Actor, number>();
    for (let d = 0; d < t.size; d++) {
      if (t.inside[d] !== 1) continue;
      const a = t.loActor[d]!;
      const b = t.hiActor[d]!;
      for (const [self, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const best = out.get(self);
        if (best === undefined) out.set(self, d);
        else {
          const current = t.loActor[best] === self ? t.hiActor[best]! : t.loActor[best]!;
          if (nearer(self, current, other)) out.set(self, d);
        }
      }
    }
    return out;
  }

  /** Drops every pair involving `actor`; returns those that were reported inside, sorted. */
  removeActor(actor: Actor): ProximityChange[] {
    // A scan of the dense handle arrays: pairs are not indexed per actor, and leaves are rare.
    const wasInside: ProximityChange[] = [];
    const t = this.pairs;
    const h = actor.handle;
    for (let d = t.size - 1; d >= 0; d--) {
      if (t.lo[d] !== h && t.hi[d] !== h) continue;
      if (t.inside[d] === 1) {
        wasInside.push(change(t.loActor[d]!, t.hiActor[d]!, false));
        t.loActor[d]!.proximityCount--;
        t.hiActor[d]!.proximityCount--;
      }
      t.removeAt(d);
    }
    return wasInside.sort(compareChanges);
  }
}

function fineCell(x: number, y: number, size: number, cols: number, rows: number): number {
  const cx = Math.min(cols - 1, Math.max(0, Math.floor(x / size)));
  const cy = Math.min(rows - 1, Math.max(0, Math.floor(y / size)));
  return cy * cols + cx;
}

/** Orders neighbours at equal distance: a hash of the pair, the same from both sides. Not by handle:
 * where many actors stand on one spot (tile centres are where walks end) the lowest handle would be
 * everyone's nearest, and the pile would compete for its places instead of pairing among itself. */
export function tieKey(a: number, b: number): number {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  let h = Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi + 0x632be5ab, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/** Whether `p` ranks before `q` among `self`'s neighbours (the order of the nearest-k selection). */
function nearer(self: Actor, p: Actor, q: Actor): boolean {
  const pd = (p.x - self.x) * (p.x - self.x) + (p.y - self.y) * (p.y - self.y);
  const qd = (q.x - self.x) * (q.x - self.x) + (q.y - self.y) * (q.y - self.y);
  return before(pd, tieKey(self.handle, p.handle), p.handle, qd, tieKey(self.handle, q.handle), q.handle);
}

/** Whether neighbour p (squared distance, tie key, handle) ranks before neighbour q. */
export function before(dp: number, tp: number, hp: number, dq: number, tq: number, hq: number): boolean {
  return dp < dq || (dp === dq && (tp < tq || (tp === tq && hp < hq)));
}

function compareRanks(p: ProximityChange, q: ProximityChange): number {
  return p.a.rank - q.a.rank || p.b.rank - q.b.rank;
}

export function compareChanges(p: ProximityChange, q: ProximityChange): number {
  return compareIds(p.a.id, q.a.id) || compareIds(p.b.id, q.b.id);
}
