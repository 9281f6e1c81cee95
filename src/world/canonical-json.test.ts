// canonicalJson must write exactly the `canonicalize` package's text (every snapshot hash ever stored
// was taken of it), and jsonPieces exactly canonicalJson's or JSON.stringify's, in pieces.
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, jsonPieces } from "./canonical-json.ts";
import { anyText } from "./testing/any-text.ts";

/** What the package writes, or the message it throws. */
function outcome(write: () => string | undefined): { text: string | undefined } | { error: string } {
  try {
    return { text: write() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** JSON-like values with what a world never holds but a caller might hand in: keys out of order and
 * integer-like, strings with escapes and lone surrogates, -0, NaN, Infinity, undefined, nested arrays. */
/** Text with what JSON escapes or cannot hold: quotes, backslashes, controls, lone surrogate halves. */
const trickyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "\u0000", "\u001f", "\u007f", "é", "\ud83d", "\ude00"),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 6,
});

const valueArb = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    trickyText,
    anyText(),
    fc.string({ unit: "grapheme-ascii" }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constantFrom(-0, 1e21, 1e-7, 0.1, 5e-324),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(trickyText, anyText({ maxLength: 4 }), fc.constantFrom("1", "10", "2", "a", "B")),
      tie("value"),
      { maxKeys: 6 },
    ),
  ),
})).value;

describe("canonicalJson", () => {
  it("writes what the canonicalize package writes, and throws where it throws", () => {
    fc.assert(
      fc.property(fc.oneof(valueArb, fc.jsonValue()), (value) => {
        const expected = outcome(() => canonicalize(value));
        if ("text" in expected && expected.text === undefined) {
          expect(() => canonicalJson(value)).toThrow(TypeError);
          return;
        }
        expect(outcome(() => canonicalJson(value))).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("checks a key before what it holds, as the package does (a run's counterexample)", () => {
    for (const value of [{ "\ude00": Number.POSITIVE_INFINITY }, { "\ude00": { a: Number.NaN } }]) {
      const expected = outcome(() => canonicalize(value));
      expect(expected).toEqual({ error: "Lone surrogate is not allowed" });
      expect(outcome(() => canonicalJson(value))).toEqual(expected);
      expect(outcome(() => [...jsonPieces(value, "canonical")].join(""))).toEqual(expected);
    }
  });

  it("leaves what is not plain data to the package (toJSON, boxed values, dates, cycles, deep nesting)", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    let deep: unknown = [1];
    for (let i = 0; i < 5_000; i++) deep = { d: deep };
    const values: unknown[] = [
      { b: { toJSON: () => ({ z: 1, y: 2 }) }, a: new Date(0) },
      [Object(1), Object("s"), Object(true)],
      { gone: { toJSON: () => undefined }, kept: [{ toJSON: () => undefined }] },
      cyclic,
      deep,
      { big: 1n },
      Object.assign(Object.create(null), { z: 1, a: 2 }),
    ];
    for (const value of values)
      expect(outcome(() => canonicalJson(value))).toEqual(outcome(() => canonicalize(value)));
  });
});

describe("jsonPieces", () => {
  it("joined, is exactly canonicalJson's text or JSON.stringify's, in pieces of about the asked size", () => {
    const objectArb = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(valueArb, fc.array(valueArb)), {
      maxKeys: 8,
    });
    fc.assert(
      fc.property(
        fc.oneof(objectArb, fc.array(objectArb)),
        fc.integer({ min: 1, max: 64 }),
        (value, size) => {
          const canonical = outcome(() => canonicalJson(value));
          expect(outcome(() => [...jsonPieces(value, "canonical", size)].join(""))).toEqual(canonical);
          expect([...jsonPieces(value, "plain", size)].join("")).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("splits a long array between its items", () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      seq: i + 1,
      payload: { text: "x".repeat(50) },
    }));
    const pieces = [...jsonPieces({ state: { events } }, "canonical", 4096)];
    expect(pieces.length).toBeGreaterThan(15);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(4096 + 100);
  });
});
