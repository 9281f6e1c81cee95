// The name rule (ids.ts `nameProblem`): who may join under which name, at the world's own input check.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameProblem } from "./ids.ts";
import { anyText } from "./testing/any-text.ts";

const HIDING = [
  "a\u0000b",
  "bell\u0007",
  "two\nlines",
  "\u202e1a tnegA",
  "\u2066Ada\u2069",
  "Ada\u200f",
  "Ada\u061c",
  "zero\u200bwidth",
  "Ada\ufeff",
  "para\u2029graph",
  "tag\u{e0041}",
];
const AI_LABELLED = [
  "Agent a7 · AI",
  "Agent a7 ·AI",
  "Bob (AI)",
  "Bob (ai agent)",
  "Bob [bot]",
  "Bob {Agent}",
  "Bob <AI>",
  "Bob - AI",
  "Bob | bot",
  "Bob • AI",
  "Bob: A.I.",
  "AI: Bob",
  "[bot] Bob",
  "Bob （ＡＩ）",
  "Bob ･ AI".replace("･", "・"),
];
const FINE = [
  "Ada",
  "Kai",
  "Ai Tanaka",
  "Tanaka Ai",
  "Robot",
  "Abbot",
  "Ada (2)",
  "Zoë",
  "مهر\u200cناز",
  "👩\u200d💻 Dev",
  "Mister Bot",
];

describe("names that may not join", () => {
  it.each(HIDING)("nobody may hide or reorder text in a name: %j", (name) => {
    expect(nameProblem(name, "human")).toMatch(/control|invisible/);
    expect(nameProblem(name, "agent")).toMatch(/control|invisible/);
  });

  it.each(AI_LABELLED)("a person may not carry an AI label: %j", (name) => {
    expect(nameProblem(name, "human")).toMatch(/AI label/);
    expect(nameProblem(name, "agent")).toBeUndefined();
  });

  it.each(FINE)("an ordinary name joins: %j", (name) => {
    expect(nameProblem(name, "human")).toBeUndefined();
  });

  it("any name holding a control or a bidirectional control is refused, whatever surrounds it", () => {
    const control = fc.constantFrom(
      ...[0, 7, 8, 0x1b, 0x7f, 0x85, 0x9b].map((c) => String.fromCharCode(c)),
      ..."\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), control, fc.string({ maxLength: 20 }), (a, c, b) => {
        expect(nameProblem(`${a}${c}${b}`, "human")).toBeDefined();
      }),
    );
  });

  it("never throws, whatever the string", () => {
    fc.assert(
      fc.property(
        anyText({ maxLength: 80 }),
        fc.constantFrom("human", "agent") as fc.Arbitrary<"human" | "agent">,
        (name, kind) => {
          const problem = nameProblem(name, kind);
          expect(problem === undefined || typeof problem === "string").toBe(true);
        },
      ),
    );
  });
});
