// The binary delta frame ("ocw-delta v1", docs/web-wire.md): how actor updates reach browsers.
// Pure and browser-safe (Uint8Array, TextEncoder): the server encodes with it and the web client,
// the load harness and the tests decode with the same code.
//
// A frame is one binary WebSocket message:
//   u8 TAG_DELTA_V1 | varint tick | varint removeCount | varint handle × removeCount | record*
// and records run to the end of the frame, so a viewer's frame is a header followed by the
// concatenation of record fragments shared by every viewer of the same actor (encoded once a patch).
// A record starts with a flags byte and the actor's handle (a small integer the server gives each
// actor; the snapshot and every full record say which entity id it stands for):
//   FULL (0x80): string id, string name, u8 meta, [u8 look], zigzag x, zigzag y, varint tx, varint ty
//   otherwise each set bit carries one changed field, relative to the viewer's previous state:
//     X 0x01 zigzag dx | Y 0x02 zigzag dy | TX 0x04 zigzag dtx | TY 0x08 zigzag dty |
//     FACING 0x10 u8 | NAME 0x20 string | META 0x40 u8 meta, [u8 look]
// meta: bits 0-1 facing (FULL only; updates carry FACING), bit 2 agent, bit 3 away, bit 4 has look,
// bit 5 thinking (a resident's agent turn is running), bit 6 asleep (a resident without a model),
// bit 7 unwell (a resident whose turns fail: it cannot answer now).
import type { WireEntity } from "./protocol.ts";

export const TAG_DELTA_V1 = 0xd1;
export const FACINGS = ["up", "down", "left", "right"] as const;

const F_X = 0x01;
const F_Y = 0x02;
const F_TX = 0x04;
const F_TY = 0x08;
const F_FACING = 0x10;
const F_NAME = 0x20;
const F_META = 0x40;
const F_FULL = 0x80;
const M_AGENT = 0x04;
const M_AWAY = 0x08;
const M_LOOK = 0x10;
const M_THINKING = 0x20;
const M_ASLEEP = 0x40;
const M_UNWELL = 0x80;

/** A frame the client cannot read: it drops the socket and resumes, which starts from a snapshot. */
export class WireFormatError extends Error {}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A growable byte buffer for one record or frame. */
export class ByteWriter {
  private bytes = new Uint8Array(64);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  u8(v: number): void {
    this.room(1);
    this.bytes[this.length++] = v & 0xff;
  }

  /** Unsigned LEB128 of a safe non-negative integer. */
  varint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`varint out of range: ${v}`);
    this.room(8);
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  zigzag(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  string(s: string): void {
    const encoded = utf8.encode(s);
    this.varint(encoded.length);
    this.room(encoded.length);
    this.bytes.set(encoded, this.length);
    this.length += encoded.length;
  }

  raw(b: Uint8Array): void {
    this.room(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  /** A copy of what was written (the writer can be reused). */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

const facingCode = (facing: string): number => {
  const i = (FACINGS as readonly string[]).indexOf(facing);
  if (i < 0) throw new RangeError(`unknown facing ${facing}`);
  return i;
};

const metaOf = (e: WireEntity): number =>
  (e.kind === "agent" ? M_AGENT : 0) |
  (e.away ? M_AWAY : 0) |
  (e.look !== undefined ? M_LOOK : 0) |
  (e.thinking ? M_THINKING : 0) |
  (e.asleep ? M_ASLEEP : 0) |
  (e.unwell ? M_UNWELL : 0);

/** The record that gives a viewer the whole actor (it entered the viewer's interest). */
export function encodeFull(e: WireEntity, w = new ByteWriter()): Uint8Array {
  w.u8(F_FULL);
  w.varint(e.h);
  w.string(e.id);
  w.string(e.name);
  w.u8(metaOf(e) | facingCode(e.facing));
  if (e.look !== undefined) w.u8(e.look);
  w.zigzag(e.x);
  w.zigzag(e.y);
  w.varint(e.tx);
  w.varint(e.ty);
  return w.take();
}

/** The record taking a viewer from `prev` to `next` (same actor, same handle); empty when no
 * streamed field changed. A person's "away" also travels in its own message (a dropped connection is
 * news at once); an agent's (src/plugin/quiet-agents.ts) only here. */
export function encodeUpdate(prev: WireEntity, next: WireEntity, w = new ByteWriter()): Uint8Array {
  const flags =
    (prev.x !== next.x ? F_X : 0) |
    (prev.y !== next.y ? F_Y : 0) |
    (prev.tx !== next.tx ? F_TX : 0) |
    (prev.ty !== next.ty ? F_TY : 0) |
    (prev.facing !== next.facing ? F_FACING : 0) |
    (prev.name !== next.name ? F_NAME : 0) |
    (prev.kind !== next.kind ||
    prev.look !== next.look ||
    !prev.away !== !next.away ||
    !prev.thinking !== !next.thinking ||
    !prev.asleep !== !next.asleep ||
    !prev.unwell !== !next.unwell
      ? F_META
      : 0);
  if (!flags) return EMPTY;
  w.u8(flags);
  w.varint(next.h);
  if (flags & F_X) w.zigzag(next.x - prev.x);
  if (flags & F_Y) w.zigzag(next.y - prev.y);
  if (flags & F_TX) w.zigzag(next.tx - prev.tx);
  if (flags & F_TY) w.zigzag(next.ty - prev.ty);
  if (flags & F_FACING) w.u8(facingCode(next.facing));
  if (flags & F_NAME) w.string(next.name);
  if (flags & F_META) {
    w.u8(
      (next.kind === "agent" ? M_AGENT : 0) |
        (next.away ? M_AWAY : 0) |
        (next.look !== undefined ? M_LOOK : 0) |
        (next.thinking ? M_THINKING : 0) |
        (next.asleep ? M_ASLEEP : 0) |
        (next.unwell ? M_UNWELL : 0),
    );
    if (next.look !== undefined) w.u8(next.look);
  }
  return w.take();
}

const EMPTY = new Uint8Array(0);

/** One viewer's frame: the header, its removed handles, then the (shared) record fragments. */
export function assembleFrame(
  tick: number,
  removed: readonly number[],
  records: readonly Uint8Array[],
  w = new ByteWriter(),
): Uint8Array {
  w.u8(TAG_DELTA_V1);
  w.varint(tick);
  w.varint(removed.length);
  for (const h of removed) w.varint(h);
  let size = w.length;
  for (const r of records) size += r.length;
  const out = new Uint8Array(size);
  const head = w.take();
  out.set(head, 0);
  let at = head.length;
  for (const r of records) {
    // Most records are a few bytes: a plain loop beats set()'s call overhead for those.
    if (r.length <= 16) for (let i = 0; i < r.length; i++) out[at + i] = r[i]!;
    else out.set(r, at);
    at += r.length;
  }
  return out;
}

/** A decoded frame, in the shape the client applies (update positions are absolute). */
export interface DecodedDelta {
  type: "delta";
  tick: number;
  add: WireEntity[];
  update: (Partial<WireEntity> & { id: string })[];
  remove: string[];
}

class ByteReader {
  private at = 0;
  private readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  u8(): number {
    if (this.at >= this.bytes.length) throw new WireFormatError("frame ends inside a record");
    return this.bytes[this.at++]!;
  }

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 53; shift += 7) {
      const b = this.u8();
      value += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) {
        if (!Number.isSafeInteger(value)) break;
        return value;
      }
    }
    throw new WireFormatError("varint too long");
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 ? -(v + 1) / 2 : v / 2;
  }

  string(): string {
    const n = this.varint();
    if (this.at + n > this.bytes.length) throw new WireFormatError("frame ends inside a string");
    const start = this.at;
    this.at += n;
    try {
      return fromUtf8.decode(this.bytes.subarray(start, this.at));
    } catch {
      throw new WireFormatError("string is not UTF-8");
    }
  }
}

const facingOf = (code: number): WireEntity["facing"] => {
  const f = FACINGS[code];
  if (!f) throw new WireFormatError(`unknown facing code ${code}`);
  return f;
};

/** The client side: what each handle stands for now. Reset from every snapshot (welcome, room). */
export class DeltaDecoder {
  private readonly byHandle = new Map<number, WireEntity>();
  private readonly handleOf = new Map<string, number>();

  /** A snapshot replaces everything: its entities carry their handles. */
  reset(entities: readonly WireEntity[]): void {
    this.byHandle.clear();
    this.handleOf.clear();
    for (const e of entities) this.remember({ ...e });
  }

  private remember(e: WireEntity): void {
    const old = this.handleOf.get(e.id);
    if (old !== undefined && old !== e.h) this.byHandle.delete(old);
    this.byHandle.set(e.h, e);
    this.handleOf.set(e.id, e.h);
  }

  /** Whether the client has this actor in view now. */
  has(id: string): boolean {
    return this.handleOf.has(id);
  }

  /** The actors as the client has them (tests compare this with what the server meant to show). */
  entities(): WireEntity[] {
    return [...this.byHandle.values()];
  }

  /** Applies one frame; throws WireFormatError on anything malformed (the state may then be partly
   * applied: the caller drops the socket, and the resume's snapshot replaces it). */
  decode(frame: Uint8Array): DecodedDelta {
    const r = new ByteReader(frame);
    const tag = r.u8();
    if (tag !== TAG_DELTA_V1) throw new WireFormatError(`unknown frame tag 0x${tag.toString(16)}`);
    const out: DecodedDelta = { type: "delta", tick: r.varint(), add: [], update: [], remove: [] };
    const removes = r.varint();
    for (let i = 0; i < removes; i++) {
      const h = r.varint();
      const gone = this.byHandle.get(h);
      if (!gone) throw new WireFormatError(`remove of unknown handle ${h}`);
      this.byHandle.delete(h);
      this.handleOf.delete(gone.id);
      out.remove.push(gone.id);
    }
    while (!r.done) {
      const flags = r.u8();
      const h = r.varint();
      if (flags & F_FULL) {
        const id = r.string();
        const name = r.string();
        const meta = r.u8();
        const e: WireEntity = {
          h,
          id,
          kind: meta & M_AGENT ? "agent" : "human",
          name,
          x: 0,
          y: 0,
          tx: 0,
          ty: 0,
          facing: facingOf(meta & 0x03),
        };
        if (meta & M_LOOK) e.look = r.u8();
        if (meta & M_AWAY) e.away = true;
        if (meta & M_THINKING) e.thinking = true;
        if (meta & M_ASLEEP) e.asleep = true;
        if (meta & M_UNWELL) e.unwell = true;
        e.x = r.zigzag();
        e.y = r.zigzag();
        e.tx = r.varint();
        e.ty = r.varint();
        this.remember(e);
        out.add.push({ ...e });
        continue;
      }
      const e = this.byHandle.get(h);
      if (!e) throw new WireFormatError(`update of unknown handle ${h}`);
      const change: Partial<WireEntity> & { id: string } = { id: e.id };
      if (flags & F_X) change.x = e.x += r.zigzag();
      if (flags & F_Y) change.y = e.y += r.zigzag();
      if (flags & F_TX) change.tx = e.tx += r.zigzag();
      if (flags & F_TY) change.ty = e.ty += r.zigzag();
      if (flags & F_FACING) change.facing = e.facing = facingOf(r.u8());
      if (flags & F_NAME) change.name = e.name = r.string();
      if (flags & F_META) {
        const meta = r.u8();
        change.kind = e.kind = meta & M_AGENT ? "agent" : "human";
        change.away = (meta & M_AWAY) !== 0;
        if (change.away) e.away = true;
        else delete e.away;
        change.thinking = (meta & M_THINKING) !== 0;
        if (change.thinking) e.thinking = true;
        else delete e.thinking;
        change.asleep = (meta & M_ASLEEP) !== 0;
        if (change.asleep) e.asleep = true;
        else delete e.asleep;
        change.unwell = (meta & M_UNWELL) !== 0;
        if (change.unwell) e.unwell = true;
        else delete e.unwell;
        if (meta & M_LOOK) change.look = e.look = r.u8();
        else {
          delete e.look;
          change.look = undefined;
        }
      }
      out.update.push(change);
    }
    return out;
  }
}

/** Reads every server frame of one connection: JSON text frames as they are (a snapshot — any message
 * with `entities`: welcome, room — also resets the delta state), binary frames as decoded deltas. Used by the web client, the
 * load harness and the tests, so they all read the wire one way. */
export class ServerFrameReader {
  readonly deltas = new DeltaDecoder();

  /** `data`: the text of a text frame, or the bytes of a binary one. Throws WireFormatError (binary)
   * or SyntaxError (text) on a frame it cannot read. */
  read(data: string | Uint8Array): { type: string; [key: string]: unknown } {
    if (typeof data !== "string") return this.deltas.decode(data) as unknown as { type: string };
    const message = JSON.parse(data) as { type: string; entities?: WireEntity[] };
    // Any message with `entities` is a snapshot (welcome, room, or a resync after a restore).
    if (Array.isArray(message.entities)) this.deltas.reset(message.entities);
    return message;
  }
}
