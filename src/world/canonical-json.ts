// Canonical JSON (RFC 8785: keys sorted by UTF-16 code units, ECMAScript number and string forms),
// the text every snapshot hash is taken of. The `canonicalize` package defines the exact output: this
// writes the same text (canonical-json.test.ts holds the two equal over arbitrary values). Whole, it is
// about as fast as the package on a world's plain data (`npm run bench:snapshot`: canonicalHashMs vs
// canonicalizePackageMs, 2026-11-28: 2,745 vs 2,601 ms at 1,000 actors, the hash included); what the
// package cannot do is jsonPieces below, which the sliced save needs. It sorts keys only when they are
// not already in order, keeps no cycle bookkeeping for plain trees, and builds no frame objects. Anything that is not plain data
// (toJSON, boxed primitives, class instances, bigint, very deep nesting) goes to the package itself.
// jsonPieces writes the same text (or JSON.stringify's) in pieces, so a caller can spread the work of
// a large value over several turns of its event loop.
import canonicalize from "canonicalize";

/** Deeper than this, the package takes over (it detects cycles and needs no call stack). */
const MAX_DEPTH = 200;

export function canonicalJson(value: unknown): string {
  const text = write(value, 0);
  if (text === undefined) throw new TypeError("value cannot be canonicalized");
  return text;
}

/** How jsonPieces writes: "canonical" is canonicalJson's text, "plain" is JSON.stringify's. */
export type JsonForm = "canonical" | "plain";

/** The JSON text of `value` (canonicalJson's or JSON.stringify's) in pieces whose concatenation is
 * exactly that text. A piece ends after the array item or object member that took it past
 * `pieceChars`, so pieces stay small unless one item is large: the nesting is followed through plain
 * objects and the arrays directly in them, and an array's items are written whole. The value must
 * not change while the pieces are read. */
export function* jsonPieces(
  value: unknown,
  form: JsonForm,
  pieceChars = 32_768,
): Generator<string, void, undefined> {
  const canonical = form === "canonical";
  if (Array.isArray(value) && isPlain(value)) {
    let piece = "[";
    for (let i = 0; i < value.length; i++) {
      const item = canonical ? write(value[i], 0) : JSON.stringify(value[i]);
      piece += (i > 0 ? "," : "") + (item ?? "null");
      if (piece.length >= pieceChars) {
        yield piece;
        piece = "";
      }
    }
    yield `${piece}]`;
  } else if (value !== null && typeof value === "object" && !Array.isArray(value) && isPlain(value)) {
    const object = value as Record<string, unknown>;
    let pending = "{";
    let first = true;
    for (const key of canonical ? sortedKeys(object) : Object.keys(object)) {
      const member = object[key];
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      const name = canonical ? writeString(key) : JSON.stringify(key);
      const container = member !== null && typeof member === "object" && isPlain(member);
      const text = container ? "" : canonical ? write(member, 1) : JSON.stringify(member);
      if (text === undefined) continue;
      pending += `${first ? "" : ","}${name}:`;
      first = false;
      if (container) {
        yield pending;
        pending = "";
        yield* jsonPieces(member, form, pieceChars);
      } else pending += text;
    }
    yield `${pending}}`;
  } else {
    const text = canonical ? canonicalJson(value) : JSON.stringify(value);
    if (text === undefined) throw new TypeError("value has no JSON text");
    yield text;
  }
}

/** The canonical text, or undefined for what JSON leaves out (undefined, functions, symbols). */
function write(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case "string":
      return writeString(value);
    case "number":
      if (Number.isNaN(value)) throw new Error("NaN is not allowed");
      if (!Number.isFinite(value)) throw new Error("Infinity is not allowed");
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (depth > MAX_DEPTH || !isPlain(value)) return canonicalize(value);
      return Array.isArray(value)
        ? writeArray(value, depth)
        : writeObject(value as Record<string, unknown>, depth);
    default:
      return canonicalize(value);
  }
}

function writeArray(array: unknown[], depth: number): string {
  let text = "[";
  // What JSON leaves out is null in an array.
  for (let i = 0; i < array.length; i++) text += (i > 0 ? "," : "") + (write(array[i], depth + 1) ?? "null");
  return `${text}]`;
}

function writeObject(object: Record<string, unknown>, depth: number): string {
  let text = "{";
  let first = true;
  for (const key of sortedKeys(object)) {
    const value = object[key];
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    // The key before what it holds, as the package checks them: a bad input gets the package's error.
    const name = writeString(key);
    const member = write(value, depth + 1);
    if (member === undefined) continue;
    text += `${first ? "" : ","}${name}:${member}`;
    first = false;
  }
  return `${text}}`;
}

function writeString(text: string): string {
  // Most of a world's strings (ids, types) are printable ASCII without quote or backslash: their JSON
  // is the text in quotes, and checking that in a loop is cheaper than two native calls.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      if (!text.isWellFormed()) throw new Error("Lone surrogate is not allowed");
      return JSON.stringify(text);
    }
  }
  return `"${text}"`;
}

/** Recently seen key lists (by identity of their keys, which V8 interns) and their sorted order: a
 * world's objects come in a few shapes (an event, its payload, its audience), and sorting the same
 * keys again for each of 20,000 events was a good part of the cost. */
const SHAPES = 16;
const shapeKeys: string[][] = [];
const shapeSorted: string[][] = [];
let shapeNext = 0;

/** Keys in UTF-16 code unit order (what `sort()` without a comparator and `<` on strings both use). */
function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      sorted = false;
      break;
    }
  }
  if (sorted) return keys;
  next: for (let s = 0; s < shapeKeys.length; s++) {
    const known = shapeKeys[s]!;
    if (known.length !== keys.length) continue;
    for (let i = 0; i < keys.length; i++) if (known[i] !== keys[i]) continue next;
    return shapeSorted[s]!;
  }
  const result = [...keys].sort();
  shapeKeys[shapeNext] = keys;
  shapeSorted[shapeNext] = result;
  shapeNext = (shapeNext + 1) % SHAPES;
  return result;
}

/** An array or a plain object without toJSON: the only containers written here. */
function isPlain(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
