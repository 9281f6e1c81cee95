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
  a.h === b.h;

export class PatchFragments {
  private readonly handles = new Map<string, number>();
  private nextHandle = 1;
  private readonly actors = new Map<string, ActorWire>();
  private patch = 0;
  private inPatch = false;
  private readonly writer = new ByteWriter();
  /** The handles in the frame being assembled. */
  private readonly seen = new HandleMarks();

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
    for (const id of this.actors.keys()) {
      if (!exists(id)) {
        this.actors.delete(id);
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
    this.actors.set(id, {
      cur: fresh,
      prev: known?.cur,
      patch: this.patch,
      full: undefined,
      update: undefined,
    });
    return fresh;
  }

  /** The record for a viewer that has `had` of this actor (undefined: nothing yet). */
  private recordFor(had: WireEntity | undefined, now: WireEntity): Uint8Array {
    const a = this.actors.get(now.id);
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

  /** One viewer's frame for this patch: `sent` (what its browser has, updated in place) is taken
   * to `visible`; undefined when nothing changed for it. */
  frameFor(
    tick: number,
    sent: Map<string, WireEntity>,
    visible: readonly WireEntity[],
  ): Uint8Array | undefined {
    const records: Uint8Array[] = [];
    const removed: number[] = [];
    const seen = this.seen;
    seen.begin();
    for (const now of visible) {
      seen.add(now.h);
      const had = sent.get(now.id);
      if (had === now) continue;
      const record = this.recordFor(had, now);
      if (record.length) records.push(record);
      sent.set(now.id, now);
    }
    // Every visible actor is in `sent` now, so anything more left the viewer's interest. (An entry
    // whose handle is marked is a visible actor's: a handle never stands for another entity.)
    if (sent.size > visible.length) {
      sent.forEach((had, id) => {
        if (!seen.has(had.h)) {
          removed.push(had.h);
          sent.delete(id);
        }
      });
    }
    if (!records.length && !removed.length) return undefined;
    return assembleFrame(tick, removed, records, this.writer);
  }
}
