// Opaque event cursors (PRD 4: base64url, ^[A-Za-z0-9=_-]{1,256}$).
// Layout (version 1): [0x01][seq: uint64 big-endian][roomId: UTF-8], base64url without padding.
// Start cursors: the PRD example "c_0" and a bare "0" (what the PRD's reference client sends first; the
// PRD never defines a starting cursor) both mean "I have nothing yet": from the oldest event still kept
// for the reader. Unlike a cursor that names an event, a start cursor never expires.
import { ROOM_ID_PATTERN } from "./schemas.ts";

const VERSION = 1;
export const START_CURSOR = "c_0";
const START_CURSORS: ReadonlySet<string> = new Set([START_CURSOR, "0"]);

export interface CursorPosition {
  roomId: string;
  /** Events with seq > afterSeq come next. */
  afterSeq: number;
  /** A start cursor: the reader begins after whatever it may have lost (EventFeed.positionFor). */
  start?: true;
}

export type DecodeResult = { ok: true; position: CursorPosition } | { ok: false; reason: string };

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** Each room's encoded tail: the 9-byte head is a whole number of 3-byte groups, so the room's bytes
 * encode on their own and the same room always gives the same tail. */
const roomTails = new Map<string, string>();
const ROOM_TAILS_MAX = 256;

/** Cursors are encoded for every event of every page an agent reads (tens of thousands a second in
 * a crowd), so the head is encoded here without a Buffer and the room's part is kept. */
export function encodeCursor(roomId: string, afterSeq: number): string {
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new RangeError(`bad cursor seq ${afterSeq}`);
  let tail = roomTails.get(roomId);
  if (tail === undefined) {
    tail = Buffer.from(roomId, "utf8").toString("base64url");
    if (roomTails.size >= ROOM_TAILS_MAX) roomTails.clear();
    roomTails.set(roomId, tail);
  }
  // Head bytes: [VERSION][seq: uint64 big-endian] = [VERSION][high 32 bits][low 32 bits].
  const high = Math.floor(afterSeq / 2 ** 32);
  const low = afterSeq >>> 0;
  return (
    group(VERSION, high >>> 24, (high >>> 16) & 0xff) +
    group((high >>> 8) & 0xff, high & 0xff, low >>> 24) +
    group((low >>> 16) & 0xff, (low >>> 8) & 0xff, low & 0xff) +
    tail
  );
}

/** Three bytes as four base64url characters. */
function group(a: number, b: number, c: number): string {
  const n = (a << 16) | (b << 8) | c;
  return BASE64URL[n >>> 18]! + BASE64URL[(n >>> 12) & 63]! + BASE64URL[(n >>> 6) & 63]! + BASE64URL[n & 63]!;
}

/** Decode a cursor for `roomId`; a cursor of another room is rejected like a malformed one. */
export function decodeCursor(cursor: string, roomId: string): DecodeResult {
  if (START_CURSORS.has(cursor)) return { ok: true, position: { roomId, afterSeq: 0, start: true } };
  const decoded = decodeEventCursor(cursor);
  if (!decoded.ok) return decoded;
  const cursorRoom = decoded.position.roomId;
  if (cursorRoom !== roomId) return { ok: false, reason: `cursor belongs to room "${cursorRoom}"` };
  return decoded;
}

/** Decode the cursor of one event (an EventEnvelope's `cursor`), in whatever room it names. Start
 * cursors name no event and are refused. */
export function decodeEventCursor(cursor: string): DecodeResult {
  if (START_CURSORS.has(cursor)) return { ok: false, reason: "a start cursor names no event" };
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(cursor)) return { ok: false, reason: "cursor is not base64url" };
  const bytes = Buffer.from(cursor, "base64url");
  // Round-trip check: rejects non-canonical encodings (stray bits, padding games).
  if (bytes.toString("base64url") !== cursor)
    return { ok: false, reason: "cursor is not canonical base64url" };
  if (bytes.length < 10 || bytes[0] !== VERSION) return { ok: false, reason: "unknown cursor version" };
  const seq = bytes.readBigUInt64BE(1);
  if (seq > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, reason: "cursor position out of range" };
  const cursorRoom = bytes.subarray(9).toString("utf8");
  if (!ROOM_ID_PATTERN.test(cursorRoom)) return { ok: false, reason: "cursor names no valid room" };
  return { ok: true, position: { roomId: cursorRoom, afterSeq: Number(seq) } };
}
