// JSON for answers that share parts. What many answers carry alike (an event's envelope, an entity
// as it is this tick) is made once, frozen and marked shared here; its JSON is then written once
// and joined into every answer that holds it, byte for byte what JSON.stringify would give. In a
// crowd a global chat is in hundreds of agents' pages and an entity in hundreds of observes.
import type { AicResult } from "./errors.ts";

const texts = new WeakMap<object, string>();
const shared = new WeakSet<object>();
/** How deep the writer looks for shared parts (result > data > list > item > part); below, and
 * wherever nothing is shared, JSON.stringify writes. */
const MAX_DEPTH = 4;
const keyTexts = new Map<string, string>();

/** Marks a value (frozen: it must never change) as shared, and returns it. */
export function share<T extends object>(value: T): T {
  shared.add(value);
  return value;
}

/** The JSON of a shared value, written once; of any other, JSON.stringify's. */
export function sharedJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (shared.has(value)) texts.set(value, text);
  }
  return text;
}

/** A result as JSON: exactly JSON.stringify's text, with shared parts joined from their texts. */
export function resultJson(result: AicResult<unknown>): string {
  return write(result, 0) ?? "null";
}

function write(value: unknown, depth: number): string | undefined {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (shared.has(value)) return sharedJson(value);
  if (depth >= MAX_DEPTH) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += `${i ? "," : ""}${write(value[i], depth + 1) ?? "null"}`;
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (
    (proto !== Object.prototype && proto !== null) ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  )
    return JSON.stringify(value);
  let out = "{";
  let first = true;
  for (const key of Object.keys(value)) {
    const text = write((value as Record<string, unknown>)[key], depth + 1);
    if (text === undefined) continue;
    let keyText = keyTexts.get(key);
    if (keyText === undefined) {
      keyText = JSON.stringify(key);
      if (keyTexts.size < 1024) keyTexts.set(key, keyText);
    }
    out += `${first ? "" : ","}${keyText}:${text}`;
    first = false;
  }
  return `${out}}`;
}
