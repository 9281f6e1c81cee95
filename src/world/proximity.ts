// Radius membership between actors of a room, debounced per pair in ticks. Pairs are found through
// the spatial grid (cell size = radius, so the 3x3 block around an actor's cell covers the radius).
import { type Actor, compareIds } from "./actor.ts";
import type { SpatialGrid } from "./spatial-grid.ts";

const HANDLE_SPACE = 67_108_864; // 2^26: pair keys lo * 2^26 + hi stay exact doubles.

export interface ProximityPair {
  /** The pair ordered by id (a.id < b.id). */
  a: Actor;
  b: Actor;
  /** The reported (debounced) state. */
  inside: boolean;
  /** Consecutive ticks the raw state has differed from `inside`. */
  counter: number;
  /** Tick when the raw scan last found the pair within the radius. */
  seenTick: number;
}

export function pairKey(a: Actor, b: Actor): number {
  return a.handle < b.handle ? a.handle * HANDLE_SPACE + b.handle : b.handle * HANDLE_SPACE + a.handle;
}

export class ProximityTracker {
  readonly pairs = new Map<number, ProximityPair>();
  private readonly changed: ProximityPair[] = [];

  /** Records the raw membership of this tick for the actors of one room. */
  scanRoom(actors: readonly Actor[], grid: SpatialGrid, radius: number, tick: number): void {
    const r2 = radius * radius;
    const { cols, rows, cells } = grid;
    for (let i = 0; i < actors.length; i++) {
      const self = actors[i]!;
      const cell = self.cell;
      const cx = cell % cols;
      const cy = (cell - cx) / cols;
      const cx0 = cx > 0 ? cx - 1 : 0;
      const cx1 = cx < cols - 1 ? cx + 1 : cx;
      const cy0 = cy > 0 ? cy - 1 : 0;
      const cy1 = cy < rows - 1 ? cy + 1 : cy;
      for (let y = cy0; y <= cy1; y++) {
        for (let x = cx0; x <= cx1; x++) {
          const list = cells[y * cols + x]!;
          for (let j = 0; j < list.length; j++) {
            const other = list[j]!;
            if (other.handle <= self.handle) continue; // each unordered pair once
            const dx = other.x - self.x;
            const dy = other.y - self.y;
            if (dx * dx + dy * dy > r2) continue;
            const key = self.handle * HANDLE_SPACE + other.handle;
            const pair = this.pairs.get(key);
            if (pair) pair.seenTick = tick;
            else {
              const ordered = compareIds(self.id, other.id) < 0;
              this.pairs.set(key, {
                a: ordered ? self : other,
                b: ordered ? other : self,
                inside: false,
                counter: 0,
                seenTick: tick,
              });
            }
          }
        }
      }
    }
  }

  /** Advances debounce counters; returns the pairs whose reported state flipped, sorted by ids. */
  settle(tick: number, debounceTicks: number): ProximityPair[] {
    const changed = this.changed;
    changed.length = 0;
    this.pairs.forEach((pair, key) => {
      const raw = pair.seenTick === tick;
      if (raw !== pair.inside) {
        pair.counter++;
        if (pair.counter >= debounceTicks) {
          pair.inside = raw;
          pair.counter = 0;
          changed.push(pair);
        }
      } else pair.counter = 0;
      if (!pair.inside && pair.counter === 0) this.pairs.delete(key);
    });
    if (changed.length > 1) changed.sort(comparePairs);
    return changed;
  }

  /** Drops every pair involving `actor`; returns those that were reported inside, sorted. */
  removeActor(actor: Actor): ProximityPair[] {
    const wasInside: ProximityPair[] = [];
    for (const [key, pair] of this.pairs) {
      if (pair.a !== actor && pair.b !== actor) continue;
      if (pair.inside) wasInside.push(pair);
      this.pairs.delete(key);
    }
    return wasInside.sort(comparePairs);
  }
}

export function comparePairs(p: ProximityPair, q: ProximityPair): number {
  return compareIds(p.a.id, q.a.id) || compareIds(p.b.id, q.b.id);
}
