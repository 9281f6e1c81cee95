// World signals (seed 003 section 5 adapted to a spatial world): how much happened in each
// named region of a room, by kind, over a recent window of simulation time. Raw counts, no
// interpretation: an agent's model reads them ("the plaza is busy, the garden is quiet").
//
// Counted where the acting entity stands when the world applies it (its tile's regions):
//   move      an accepted moveTo, or a moveDir that sets a direction (not the stop)
//   chat      a chat message sent (any channel)
//   interact  an interaction whose outcome is "ok" (a sign read, a door opened, a portal used)
//   arrive    an actor entering a region (walking in, joining the room in it, arriving by portal)
//   depart    an actor leaving a region (walking out, leaving the room, departing by portal)
// The room as a whole counts every move/chat/interact in it, and arrive/depart when an actor enters
// or leaves the room. Counts live in buckets of SIGNAL_BUCKET_SEC simulation seconds; the window is
// the current bucket and the SIGNAL_WINDOW_BUCKETS - 1 before it, so it covers the last 55-60 s
// (its exact start is reported). Bounded: one small array per bucket, rooms x buckets x regions.
import {
  type RegionDefinition,
  type RoomDefinition,
  type RoomSignalsView,
  SIGNAL_KINDS,
  type SignalCounts,
  type SignalKind,
} from "./types.ts";

export { SIGNAL_KINDS, type SignalCounts, type SignalKind };

/** Bucket length in simulation seconds. */
export const SIGNAL_BUCKET_SEC = 5;
/** How many buckets the window holds (12 x 5 s = the last minute). */
export const SIGNAL_WINDOW_BUCKETS = 12;
export const SIGNAL_WINDOW_SEC = SIGNAL_BUCKET_SEC * SIGNAL_WINDOW_BUCKETS;
/** Regions per room: a tile's regions are one 32-bit mask. */
export const MAX_REGIONS_PER_ROOM = 32;

const KINDS = SIGNAL_KINDS.length;
const KIND_INDEX: Record<SignalKind, number> = { move: 0, chat: 1, interact: 2, arrive: 3, depart: 4 };

/** The bucket a tick falls in. */
export function signalBucketOf(tick: number, tickRate: number): number {
  return Math.floor(tick / (SIGNAL_BUCKET_SEC * tickRate));
}

/** The first tick of the window that ends with `tick`'s bucket. */
export function signalWindowStartTick(tick: number, tickRate: number): number {
  const first = signalBucketOf(tick, tickRate) - SIGNAL_WINDOW_BUCKETS + 1;
  return Math.max(0, first) * SIGNAL_BUCKET_SEC * tickRate;
}

export function zeroCounts(): SignalCounts {
  return { move: 0, chat: 0, interact: 0, arrive: 0, depart: 0 };
}

/** A bucket as a snapshot stores it: the room's counts and the regions with any count, each as
 * [move, chat, interact, arrive, depart]. */
export interface SignalBucketRecord {
  bucket: number;
  room: number[];
  regions: Record<string, number[]>;
}

interface Bucket {
  bucket: number;
  /** [(1 + regions) x KINDS]; row 0 is the whole room, row 1 + i is regions[i]. */
  counts: Uint32Array;
}

export class RoomSignals {
  readonly regions: readonly RegionDefinition[];
  private readonly width: number;
  /** Per tile: bit i set when regions[i] covers it. */
  private readonly masks: Uint32Array;
  /** The window's buckets, oldest first (only buckets with something counted exist). */
  private buckets: Bucket[] = [];

  constructor(def: RoomDefinition) {
    this.regions = def.regions.slice(0, MAX_REGIONS_PER_ROOM);
    this.width = def.widthTiles;
    this.masks = new Uint32Array(def.widthTiles * def.heightTiles);
    this.regions.forEach((region, bit) => {
      for (let ty = region.tile.ty; ty < region.tile.ty + region.heightTiles; ty++) {
        for (let tx = region.tile.tx; tx < region.tile.tx + region.widthTiles; tx++) {
          const index = ty * this.width + tx;
          if (index >= 0 && index < this.masks.length) this.masks[index]! |= 1 << bit;
        }
      }
    });
  }

  /** The regions covering a tile, as a bit mask over `regions`. */
  maskAt(tx: number, ty: number): number {
    return this.masks[ty * this.width + tx] ?? 0;
  }

  /** One action (or a room arrival/departure) by an actor whose tile has `mask`. */
  count(bucket: number, mask: number, kind: SignalKind): void {
    const counts = this.bucketFor(bucket).counts;
    const k = KIND_INDEX[kind];
    counts[k]!++;
    for (let bits = mask >>> 0, bit = 0; bits !== 0; bits >>>= 1, bit++) {
      if (bits & 1) counts[(1 + bit) * KINDS + k]!++;
    }
  }

  /** An actor moved within the room from a tile with mask `before` to one with `after`. */
  crossed(bucket: number, before: number, after: number): void {
    const left = (before & ~after) >>> 0;
    const entered = (after & ~before) >>> 0;
    if (left === 0 && entered === 0) return;
    const counts = this.bucketFor(bucket).counts;
    for (let bit = 0; bit < this.regions.length; bit++) {
      if ((left >>> bit) & 1) counts[(1 + bit) * KINDS + KIND_INDEX.depart]!++;
      if ((entered >>> bit) & 1) counts[(1 + bit) * KINDS + KIND_INDEX.arrive]!++;
    }
  }

  /** Drops buckets that fell out of the window ending with `currentBucket`. */
  prune(currentBucket: number): void {
    let drop = 0;
    while (drop < this.buckets.length && this.buckets[drop]!.bucket <= currentBucket - SIGNAL_WINDOW_BUCKETS)
      drop++;
    if (drop > 0) this.buckets.splice(0, drop);
  }

  /** The counts over the window ending with `currentBucket`. */
  view(currentBucket: number): RoomSignalsView {
    const sums = new Array<number>((1 + this.regions.length) * KINDS).fill(0);
    for (const b of this.buckets) {
      if (b.bucket <= currentBucket - SIGNAL_WINDOW_BUCKETS || b.bucket > currentBucket) continue;
      for (let i = 0; i < sums.length; i++) sums[i]! += b.counts[i]!;
    }
    const row = (r: number): SignalCounts => {
      const at = r * KINDS;
      return {
        move: sums[at]!,
        chat: sums[at + 1]!,
        interact: sums[at + 2]!,
        arrive: sums[at + 3]!,
        depart: sums[at + 4]!,
      };
    };
    return {
      room: row(0),
      regions: this.regions.map((region, i) => ({ id: region.id, name: region.name, counts: row(1 + i) })),
    };
  }

  records(): SignalBucketRecord[] {
    return this.buckets.map((b) => {
      const regions: Record<string, number[]> = {};
      this.regions.forEach((region, i) => {
        const row = [...b.counts.subarray((1 + i) * KINDS, (2 + i) * KINDS)];
        if (row.some((n) => n !== 0)) regions[region.id] = row;
      });
      return { bucket: b.bucket, room: [...b.counts.subarray(0, KINDS)], regions };
    });
  }

  /** Refills from records() (validated by the snapshot check: increasing buckets, known regions). */
  restore(records: readonly SignalBucketRecord[]): void {
    const index = new Map(this.regions.map((region, i) => [region.id, i]));
    this.buckets = records.map((record) => {
      const counts = new Uint32Array((1 + this.regions.length) * KINDS);
      counts.set(record.room, 0);
      for (const [id, row] of Object.entries(record.regions)) counts.set(row, (1 + index.get(id)!) * KINDS);
      return { bucket: record.bucket, counts };
    });
  }

  private bucketFor(bucket: number): Bucket {
    const last = this.buckets.at(-1);
    if (last && last.bucket === bucket) return last;
    const created = { bucket, counts: new Uint32Array((1 + this.regions.length) * KINDS) };
    this.buckets.push(created);
    return created;
  }
}
