// Radius membership between actors of a room, debounced per pair in ticks. Candidate pairs come from
// the spatial grid (cell size = radius, so the 3x3 block around an actor's cell covers the radius);
// pair state lives in a PairTable keyed by the two actors' handles.
import { type Actor, compareIds } from "./actor.ts";
import { PairTable } from "./pair-table.ts";
import type { SpatialGrid } from "./spatial-grid.ts";

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
  /** Every tracked pair (reported inside, or with a pending change); order is not meaningful. */
  private readonly pairs = new PairTable();

  get size(): number {
    return this.pairs.size;
  }

  add(x: Actor, y: Actor, inside: boolean, counter: number, seenTick: number): void {
    this.pairs.add(x, y, inside, counter, seenTick);
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

  // Scratch buffers for the scan: actors counting-sorted by cell, with positions and handles in
  // typed arrays so the neighbour loops read contiguous memory instead of chasing objects.
  private cellStart = new Int32Array(1);
  private cursor = new Int32Array(1);
  private px = new Float64Array(16);
  private py = new Float64Array(16);
  private ph = new Int32Array(16);
  private sorted: Actor[] = [];

  /** Records the raw membership of this tick for the actors of one room. The visiting order does not
   * matter: settle() sorts what it reports. */
  scanRoom(actors: readonly Actor[], grid: SpatialGrid, radius: number, tick: number): void {
    const n = actors.length;
    if (n < 2) return;
    const { cols, rows } = grid;
    const cellCount = cols * rows;
    if (this.cellStart.length < cellCount + 1) {
      this.cellStart = new Int32Array(cellCount + 1);
      this.cursor = new Int32Array(cellCount + 1);
    }
    if (this.px.length < n) {
      const size = Math.max(n, this.px.length * 2);
      this.px = new Float64Array(size);
      this.py = new Float64Array(size);
      this.ph = new Int32Array(size);
    }
    const { cellStart, cursor, px, py, ph, sorted } = this;
    cellStart.fill(0, 0, cellCount + 1);
    for (let i = 0; i < n; i++) cellStart[actors[i]!.cell + 1]!++;
    for (let c = 0; c < cellCount; c++) cellStart[c + 1]! += cellStart[c]!;
    cursor.set(cellStart.subarray(0, cellCount));
    sorted.length = n;
    for (let i = 0; i < n; i++) {
      const actor = actors[i]!;
      const at = cursor[actor.cell]!++;
      sorted[at] = actor;
      px[at] = actor.x;
      py[at] = actor.y;
      ph[at] = actor.handle;
    }
    const r2 = radius * radius;
    for (let cy = 0; cy < rows; cy++) {
      const cy0 = cy > 0 ? cy - 1 : 0;
      const cy1 = cy < rows - 1 ? cy + 1 : cy;
      for (let cx = 0; cx < cols; cx++) {
        const home = cy * cols + cx;
        const h0 = cellStart[home]!;
        const h1 = cellStart[home + 1]!;
        if (h0 === h1) continue;
        const cx0 = cx > 0 ? cx - 1 : 0;
        const cx1 = cx < cols - 1 ? cx + 1 : cx;
        for (let i = h0; i < h1; i++) {
          const sx = px[i]!;
          const sy = py[i]!;
          const sh = ph[i]!;
          for (let y = cy0; y <= cy1; y++) {
            const rowBase = y * cols;
            const j0 = cellStart[rowBase + cx0]!;
            const j1 = cellStart[rowBase + cx1 + 1]!; // adjacent cells of a row are contiguous
            for (let j = j0; j < j1; j++) {
              if (ph[j]! <= sh) continue; // each unordered pair once, found by its owner
              const dx = px[j]! - sx;
              const dy = py[j]! - sy;
              if (dx * dx + dy * dy > r2) continue;
              this.touch(i, j, tick);
            }
          }
        }
      }
    }
  }

  /** Marks the pair (sorted[i], sorted[j]) seen this tick, tracking it when new. */
  private touch(i: number, j: number, tick: number): void {
    const d = this.pairs.find(this.ph[i]!, this.ph[j]!);
    if (d >= 0) this.pairs.seen[d] = tick;
    else this.pairs.add(this.sorted[i]!, this.sorted[j]!, false, 0, tick);
  }

  /** Advances debounce counters; returns the pairs whose reported state flipped, sorted by room id,
   * then ids: by the actors' ranks, which the caller refreshed this tick (integer compares; sorting
   * by id strings cost more per change the more changes a tick had). */
  settle(tick: number, debounceTicks: number): ProximityChange[] {
    const changed: ProximityChange[] = [];
    const t = this.pairs;
    const { seen, counter, inside } = t;
    for (let d = t.size - 1; d >= 0; d--) {
      const raw = seen[d] === tick ? 1 : 0;
      if (raw !== inside[d]) {
        if (++counter[d]! >= debounceTicks) {
          inside[d] = raw;
          counter[d] = 0;
          changed.push(change(t.loActor[d]!, t.hiActor[d]!, raw === 1));
        }
      } else counter[d] = 0;
      if (inside[d] === 0 && counter[d] === 0) t.removeAt(d);
    }
    if (changed.length > 1) changed.sort(compareRanks);
    return changed;
  }

  /** Drops every pair involving `actor`; returns those that were reported inside, sorted. */
  removeActor(actor: Actor): ProximityChange[] {
    // A scan of the dense handle arrays: pairs are not indexed per actor, and leaves are rare.
    const wasInside: ProximityChange[] = [];
    const t = this.pairs;
    const h = actor.handle;
    for (let d = t.size - 1; d >= 0; d--) {
      if (t.lo[d] !== h && t.hi[d] !== h) continue;
      if (t.inside[d] === 1) wasInside.push(change(t.loActor[d]!, t.hiActor[d]!, false));
      t.removeAt(d);
    }
    return wasInside.sort(compareChanges);
  }
}

function compareRanks(p: ProximityChange, q: ProximityChange): number {
  return p.a.rank - q.a.rank || p.b.rank - q.b.rank;
}

export function compareChanges(p: ProximityChange, q: ProximityChange): number {
  return compareIds(p.a.id, q.a.id) || compareIds(p.b.id, q.b.id);
}
