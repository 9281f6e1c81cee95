// Encode once per patch, share across viewers: each actor's wire form and its records (the full
// record for viewers it enters, the update record from its previous patch state) are made at most
// once per patch, and a viewer's frame is the concatenation of the records its interest set needs.
// Per viewer the cost is a few map lookups and one copy; only a viewer that missed patches (slow
// socket) or entered between patches gets an update encoded for it alone.
import { HandleMarks } from "./handle-marks.ts";
import type { WireEntity } from "./protocol.ts";
import { assembleFrame, ByteWriter, encodeFull, encodeUpdate } from "./wire-delta.ts";

interface ActorWire {
  /** The actor as of the last patch that needed it; the same object while nothing changed. */
  cur: WireEntity;
  /** What `cur` replaced: viewers that have it get the shared update record. */
  prev: WireEntity | undefined;
  patch: number;
  full: Uint8Array | undefined;
  update: Uint8Array | undefined;
}

const sameWire = (a: WireEntity, b: WireEntity) =>
  a.x === b.x &&
  a.y === b.y &&
  a.tx === b.tx &&
  a.ty === b.ty &&
  a.facing === b.facing &&
  a.name === b.name &&
  a.kind === b.kind &&
  a.look === b.look &&
  a.away === b.away &&
  a.thinking === b.thinking &&
  a.asleep === b.asleep &&
  a.unwell === b.unwell &&
  a.h === b.h;

/** What one browser has: one wire entity per actor it shows (its deltas are against these). Kept as
 * the list of the last frame's actors, so assembling the next frame needs no per-viewer map. */
export class SentView {
  private list: readonly WireEntity[] = [];

  get size(): number {
    return this.list.length;
  }

  values(): readonly WireEntity[] {
    return this.list;
  }

  keys(): string[] {
    return this.list.map((e) => e.id);
  }

  /** For tests and inspection (a scan). */
  get(id: string): WireEntity | undefined {
    return this.list.find((e) => e.id === id);
  }

  clear(): void {
    this.list = [];
  }

  /** The browser now has exactly these (a snapshot, or the frame just assembled); kept, not copied. */
  reset(entities: readonly WireEntity[]): void {
    this.list = entities;
  }
}

export class PatchFragments {
  private readonly handles = new Map<string, number>();
  private nextHandle = 1;
  private readonly actors = new Map<string, ActorWire>();
  /** The same entries by handle: a frame looks actors up by the handle its wire form carries. */
  private readonly actorAt: (ActorWire | undefined)[] = [];
  private patch = 0;
  private inPatch = false;
  private readonly writer = new ByteWriter();
  /** The handles in the frame being assembled. */
  private readonly seen = new HandleMarks();
  /** What the viewer being served has, by handle (filled and emptied per frame). */
  private had: (WireEntity | undefined)[] = [];

  /** The small integer that stands for an entity id on the wire (stable while the actor exists). */
  handle(id: string): number {
    let h = this.handles.get(id);
    if (h === undefined) {
      h = this.nextHandle++;
      this.handles.set(id, h);
    }
    return h;
  }

  begin(): void {
    this.patch += 1;
    this.inPatch = true;
  }

  end(): void {
    this.inPatch = false;
  }

  /** Forgets actors that no longer exist (their viewers were sent removes by handle already, or
   * will be: the handle travels in the wire object each viewer keeps). Bounded memory. */
  sweep(exists: (id: string) => boolean): void {
    for (const [id, a] of this.actors) {
      if (!exists(id)) {
        this.actors.delete(id);
        this.actorAt[a.cur.h] = undefined;
        this.handles.delete(id);
      }
    }
    for (const id of this.handles.keys()) if (!exists(id)) this.handles.delete(id);
  }

  /** The actor's wire form for this patch, made once (`make` builds it from `source` with the
   * given handle; a function made once, not a closure per call, since this runs per viewer per
   * visible actor). Outside a patch (a room entry) it is built afresh and not shared. */
  wire<S extends { id: string }>(source: S, make: (source: S, h: number) => WireEntity): WireEntity {
    const id = source.id;
    if (!this.inPatch) return make(source, this.handle(id));
    const known = this.actors.get(id);
    if (known?.patch === this.patch) return known.cur;
    const fresh = make(source, this.handle(id));
    if (known && sameWire(known.cur, fresh)) {
      known.patch = this.patch;
      return known.cur;
    }
    const entry: ActorWire = {
      cur: fresh,
      prev: known?.cur,
      patch: this.patch,
      full: undefined,
      update: undefined,
    };
    this.actors.set(id, entry);
    while (this.actorAt.length <= fresh.h) this.actorAt.push(undefined);
    this.actorAt[fresh.h] = entry;
    return fresh;
  }

  /** The record for a viewer that has `had` of this actor (undefined: nothing yet). */
  private recordFor(had: WireEntity | undefined, now: WireEntity): Uint8Array {
    const a = this.actorAt[now.h];
    const shared = a?.cur === now ? a : undefined;
    if (!had || had.h !== now.h) {
      if (!shared) return encodeFull(now, this.writer);
      shared.full ??= encodeFull(now, this.writer);
      return shared.full;
    }
    if (shared && had === shared.prev) {
      shared.update ??= encodeUpdate(had, now, this.writer);
      return shared.update;
    }
    return encodeUpdate(had, now, this.writer);
  }

  /** One viewer's frame for this patch: `sent` (what its browser has, updated) is taken to
   * `visible` (which `sent` then keeps: the caller must not change it); undefined when nothing
   * changed for it. */
  frameFor(tick: number, sent: SentView, visible: readonly WireEntity[]): Uint8Array | undefined {
    const before = sent.values();
    const had = this.had;
    for (const e of before) {
      if (e.h >= had.length) this.growHad(e.h);
      had[e.h] = e;
    }
    const records: Uint8Array[] = [];
    const seen = this.seen;
    seen.begin();
    for (const now of visible) {
      seen.add(now.h);
      const was = now.h < had.length ? had[now.h] : undefined;
      if (was === now) continue;
      const record = this.recordFor(was, now);
      if (record.length) records.push(record);
    }
    // What the browser had and is not in `visible` left the viewer's interest (or the world). A
    // handle never stands for another entity, so an entity back under a new handle is a FULL record
    // after the remove of its old one.
    const removed: number[] = [];
    for (const e of before) {
      had[e.h] = undefined;
      if (!seen.has(e.h)) removed.push(e.h);
    }
    sent.reset(visible);
    if (!records.length && !removed.length) return undefined;
    return assembleFrame(tick, removed, records, this.writer);
  }

  private growHad(handle: number): void {
    const had = this.had;
    const size = Math.max(handle + 1, had.length * 2, 1024);
    while (had.length < size) had.push(undefined);
  }
}
