// Proximity pair state in flat typed arrays: a dense list of pairs (lower handle, higher handle,
// debounce state) plus an open-addressing index from the handle pair to its dense slot.
// Why not an object per pair in per-actor lists: the scan looks up every in-radius pair each tick, and
// chasing actor -> list -> pair objects scattered over the heap missed the cache more and more as the
// actor count grew (a 5x bigger world took ~15x longer to look its pairs up). Here a lookup reads a
// few compact arrays, and settling walks the dense arrays in order.
import type { Actor } from "./actor.ts";

/** Dense index + 1 per slot; 0 is an empty slot. */
const EMPTY = 0;

export class PairTable {
  /** Number of pairs; dense slots 0..size-1 are live. */
  size = 0;
  lo = new Int32Array(64);
  hi = new Int32Array(64);
  /** Tick when the scan last found the pair a candidate to enter (ProximityTracker.scanRoom). */
  seen = new Int32Array(64);
  /** Squared distance when last found a candidate (orders entries when places are short). */
  dist2 = new Float64Array(64);
  /** Consecutive ticks the raw state has differed from `inside`. */
  counter = new Int32Array(64);
  /** The reported (debounced) state, 0 or 1. */
  inside = new Uint8Array(64);
  /** The actors of each pair (lower handle, higher handle); read only when a pair is reported. */
  readonly loActor: Actor[] = [];
  readonly hiActor: Actor[] = [];
  private index = new Int32Array(128);
  private mask = 127;

  private home(lo: number, hi: number): number {
    let h = Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca6b);
    h ^= h >>> 15;
    return h & this.mask;
  }

  /** Dense index of the pair (lo < hi), or -1. */
  find(lo: number, hi: number): number {
    const index = this.index;
    const mask = this.mask;
    for (let slot = this.home(lo, hi); ; slot = (slot + 1) & mask) {
      const d = index[slot]!;
      if (d === EMPTY) return -1;
      if (this.lo[d - 1] === lo && this.hi[d - 1] === hi) return d - 1;
    }
  }

  /** Adds a pair that is not in the table yet (x and y in any order); returns its dense index. */
  add(x: Actor, y: Actor, inside: boolean, counter: number, seen: number): number {
    const loActor = x.handle < y.handle ? x : y;
    const hiActor = loActor === x ? y : x;
    if (this.size === this.lo.length) this.growDense();
    if ((this.size + 1) * 2 > this.index.length) this.rehash(this.index.length * 2);
    const d = this.size++;
    this.lo[d] = loActor.handle;
    this.hi[d] = hiActor.handle;
    this.seen[d] = seen;
    this.dist2[d] = 0;
    this.counter[d] = counter;
    this.inside[d] = inside ? 1 : 0;
    this.loActor[d] = loActor;
    this.hiActor[d] = hiActor;
    this.setSlot(this.home(loActor.handle, hiActor.handle), d);
    return d;
  }

  /** Removes dense pair d; the last pair moves into slot d (callers iterating down stay correct). */
  removeAt(d: number): void {
    this.clearSlot(this.slotOf(d));
    const last = --this.size;
    if (d !== last) {
      const slot = this.slotOf(last);
      this.lo[d] = this.lo[last]!;
      this.hi[d] = this.hi[last]!;
      this.seen[d] = this.seen[last]!;
      this.dist2[d] = this.dist2[last]!;
      this.counter[d] = this.counter[last]!;
      this.inside[d] = this.inside[last]!;
      this.loActor[d] = this.loActor[last]!;
      this.hiActor[d] = this.hiActor[last]!;
      this.index[slot] = d + 1;
    }
    this.loActor.length = last;
    this.hiActor.length = last;
  }

  private slotOf(d: number): number {
    const index = this.index;
    let slot = this.home(this.lo[d]!, this.hi[d]!);
    while (index[slot] !== d + 1) slot = (slot + 1) & this.mask;
    return slot;
  }

  private setSlot(slot: number, d: number): void {
    while (this.index[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.index[slot] = d + 1;
  }

  /** Linear-probing deletion by backward shift, so no tombstones accumulate. */
  private clearSlot(slot: number): void {
    const index = this.index;
    const mask = this.mask;
    let hole = slot;
    index[hole] = EMPTY;
    for (let j = (hole + 1) & mask; index[j] !== EMPTY; j = (j + 1) & mask) {
      const d = index[j]! - 1;
      const home = this.home(this.lo[d]!, this.hi[d]!);
      // The entry may fill the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      index[hole] = d + 1;
      index[j] = EMPTY;
      hole = j;
    }
  }

  private growDense(): void {
    const cap = this.lo.length * 2;
    const grow = <T extends Int32Array | Uint8Array | Float64Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.lo = grow(this.lo, new Int32Array(cap));
    this.hi = grow(this.hi, new Int32Array(cap));
    this.seen = grow(this.seen, new Int32Array(cap));
    this.dist2 = grow(this.dist2, new Float64Array(cap));
    this.counter = grow(this.counter, new Int32Array(cap));
    this.inside = grow(this.inside, new Uint8Array(cap));
  }

  private rehash(capacity: number): void {
    this.index = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let d = 0; d < this.size; d++) this.setSlot(this.home(this.lo[d]!, this.hi[d]!), d);
  }
}
