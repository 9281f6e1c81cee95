// The single-bit repair of a logged tick (issue #30): any one flipped bit of a body or its checksum is
// undone exactly; two flipped bits are not "repaired" into something else.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_REPAIR_BYTES, repairFlippedBit } from "./bit-repair.ts";
import { tickChecksum } from "./store.ts";

const body = fc.json({ maxDepth: 3 }).map((json) => JSON.stringify({ inputs: [json], digest: "d" }));

describe("repairFlippedBit (property)", () => {
  it("gives back the written body for any one flipped bit of it", () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 0, max: 7 }), fc.nat(), (text, at, bit, tick) => {
        const bytes = Buffer.from(text, "utf8");
        fc.pre(bytes.byteLength <= MAX_REPAIR_BYTES);
        const checksum = tickChecksum(tick, text);
        const byte = at % bytes.byteLength;
        bytes[byte]! ^= 1 << bit;
        const repair = repairFlippedBit(tick, bytes, checksum);
        // A flip that still decodes to the same text cannot happen: UTF-8 is a bijection.
        expect(repair).toMatchObject({ repaired: "body", body: text, checksum, byte, bit });
      }),
      { numRuns: 60 },
    );
  });

  it("gives back the body when a bit of its checksum flipped", () => {
    fc.assert(
      fc.property(body, fc.nat(31), fc.integer({ min: 0, max: 2 }), (text, at, bit) => {
        const checksum = tickChecksum(7, text);
        const damaged =
          checksum.slice(0, at) +
          String.fromCharCode(checksum.charCodeAt(at) ^ (1 << bit)) +
          checksum.slice(at + 1);
        expect(repairFlippedBit(7, Buffer.from(text, "utf8"), damaged)).toEqual({
          repaired: "checksum",
          body: text,
          checksum,
        });
      }),
    );
  });

  it("does not repair two flipped bits, nor a body over the size bound", () => {
    const text = JSON.stringify({ inputs: [{ kind: "chat", message: "hello there" }], digest: "d" });
    const bytes = Buffer.from(text, "utf8");
    bytes[10]! ^= 1;
    bytes[20]! ^= 2;
    expect(repairFlippedBit(1, bytes, tickChecksum(1, text))).toBeUndefined();
    const big = "x".repeat(MAX_REPAIR_BYTES + 1);
    const flipped = Buffer.from(big);
    flipped[3]! ^= 1;
    expect(repairFlippedBit(1, flipped, tickChecksum(1, big))).toBeUndefined();
  });
});
