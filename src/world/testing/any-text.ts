import fc from "fast-check";

// Every code point but the surrogates (fast-check's `unit: "binary"`, in the same order, so the
// same values for a seed). fast-check's own unit checks a value by looking it up in a map of all
// 1,112,064 code points, built when `fc.string` plants its dangerous strings: ~2 s of CPU in every
// test file that used it. Here the code point is reckoned back directly.
const SURROGATES = 0xe000 - 0xd800;
const codePoint = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + SURROGATES),
  (value) => {
    if (typeof value !== "string") throw new Error("not a string");
    const cp = value.codePointAt(0);
    if (cp === undefined || value.length !== (cp > 0xffff ? 2 : 1) || (cp >= 0xd800 && cp < 0xe000))
      throw new Error("not one code point");
    return cp < 0xd800 ? cp : cp - SURROGATES;
  },
);

/** `fc.string({ unit: "binary", ...constraints })` without its start-up cost. */
export function anyText(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: codePoint });
}
