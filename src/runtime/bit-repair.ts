// One flipped bit in a logged tick is the commonest damage a disk or a copy does to a record, and the
// cheapest to undo exactly: the row's checksum (SHA-256 of the tick number and body) names
// the one body it belongs to, so every single-bit variant of the damaged body is tried against it. A
// match is the original record; then neither it nor any tick after it is lost. Only small bodies are
// tried (the work grows with the square of the size); a tick's inputs are rarely more than a few KB.
import { createHash } from "node:crypto";

/** Bodies up to this many bytes are tried: 64 Ki variants, 0.8-1.4 s at the limit on a busy 2-core
 * machine (only at start-up, and only for a row that failed its checksum). */
export const MAX_REPAIR_BYTES = 8 * 1024;

export type BitRepair =
  | { repaired: "body"; body: string; checksum: string; byte: number; bit: number }
  | { repaired: "checksum"; body: string; checksum: string };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The record `bytes` was before one of its bits (or one bit of its checksum) flipped, if any. */
export function repairFlippedBit(tick: number, bytes: Uint8Array, checksum: string): BitRepair | undefined {
  const prefix = createHash("sha256").update(`${tick}\n`);
  const actual = prefix.copy().update(bytes).digest("hex").slice(0, 32);
  if (oneBitApart(actual, checksum)) {
    const body = decode(bytes);
    if (body !== undefined) return { repaired: "checksum", body, checksum: actual };
  }
  if (bytes.byteLength > MAX_REPAIR_BYTES) return undefined;
  const candidate = Buffer.from(bytes);
  // The hash state of every prefix is shared by the variants that flip a later byte.
  const before = prefix.copy();
  for (let byte = 0; byte < candidate.byteLength; byte++) {
    const original = candidate[byte]!;
    const rest = candidate.subarray(byte + 1);
    for (let bit = 0; bit < 8; bit++) {
      const flipped = original ^ (1 << bit);
      const digest = before.copy().update(Uint8Array.of(flipped)).update(rest).digest("hex").slice(0, 32);
      if (digest !== checksum) continue;
      candidate[byte] = flipped;
      const body = decode(candidate);
      if (body !== undefined) return { repaired: "body", body, checksum, byte, bit };
      candidate[byte] = original;
    }
    before.update(Uint8Array.of(original));
  }
  return undefined;
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function oneBitApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differing = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i) ^ b.charCodeAt(i);
    if (x === 0) continue;
    if ((x & (x - 1)) !== 0 || ++differing > 1) return false;
  }
  return differing === 1;
}
