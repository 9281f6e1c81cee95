// Radius membership between actors of a room, debounced per pair in ticks. Candidate pairs come from
// the spatial grid (cell size = radius, so the 3x3 block around an actor's cell covers the radius);
// each pair is owned by its lower-handle actor, so finding it is a scan of a few entries, not a hash.
import { type Actor, compareIds } from "./actor.ts";
import type { SpatialGrid } from "./spatial-grid.ts";

export interface ProximityPair {
  /** The pair ordered by id (a.id < b.id). */
  a: Actor;
  b: Actor;
  /** The lower-handle actor (whose `pairs` list holds this pair) and the other one. */
  owner: Actor;
  other: Actor;
  /** The reported (debounced) state. */
  inside: boolean;
  /** Consecutive ticks the raw state has differed from `inside`. */
  counter: number;
  /** Tick when the raw scan last found the pair within the radius. */
  seenTick: number;
}

function removeFrom<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i < 0) return;
  list[i] = list[list.length - 1]!;
  list.pop();
}

export class ProximityTracker {
  /** Every tracked pair (reported inside, or with a pending change); order is not meaningful. */
  readonly list: ProximityPair[] = [];
  private readonly changed: ProximityPair[] = [];

  add(x: Actor, y: Actor, inside: boolean, counter: number, seenTick: number): ProximityPair {
    const ordered = compareIds(x.id, y.id) < 0;
    const owner = x.handle < y.handle ? x : y;
    const pair: ProximityPair = {
      a: ordered ? x : y,
      b: ordered ? y : x,
      owner,
      other: owner === x ? y : x,
      inside,
      counter,
      seenTick,
    };
    owner.pairs.push(pair);
    this.list.push(pair);
    return pair;
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
              this.touch(sorted[i]!, sorted[j]!, tick);
            }
          }
        }
      }
    }
  }

  private touch(self: Actor, other: Actor, tick: number): void {
    const own = self.pairs;
    for (let k = 0; k < own.length; k++) {
      const pair = own[k]!;
      if (pair.other === other) {
        pair.seenTick = tick;
        return;
      }
    }
    this.add(self, other, false, 0, tick);
  }

  /** Advances debounce counters; returns the pairs whose reported state flipped, sorted by ids. */
  settle(tick: number, debounceTicks: number): ProximityPair[] {
    const changed = this.changed;
    changed.length = 0;
    const list = this.list;
    for (let i = list.length - 1; i >= 0; i--) {
      const pair = list[i]!;
      const raw = pair.seenTick === tick;
      if (raw !== pair.inside) {
        pair.counter++;
        if (pair.counter >= debounceTicks) {
          pair.inside = raw;
          pair.counter = 0;
          changed.push(pair);
        }
      } else pair.counter = 0;
      if (!pair.inside && pair.counter === 0) {
        list[i] = list[list.length - 1]!;
        list.pop();
        removeFrom(pair.owner.pairs, pair);
      }
    }
    if (changed.length > 1) changed.sort(comparePairs);
    return changed;
  }

  /** Drops every pair involving `actor`; returns those that were reported inside, sorted. */
  removeActor(actor: Actor): ProximityPair[] {
    const wasInside: ProximityPair[] = [];
    const list = this.list;
    for (let i = list.length - 1; i >= 0; i--) {
      const pair = list[i]!;
      if (pair.a !== actor && pair.b !== actor) continue;
      if (pair.inside) wasInside.push(pair);
      list[i] = list[list.length - 1]!;
      list.pop();
      removeFrom(pair.owner.pairs, pair);
    }
    return wasInside.sort(comparePairs);
  }
}

export function comparePairs(p: ProximityPair, q: ProximityPair): number {
  return compareIds(p.a.id, q.a.id) || compareIds(p.b.id, q.b.id);
}
