// The contract's one text rule (src/aic/text.ts) at the WebSocket door: the protocol schema carries it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseClientMessage } from "./protocol.ts";

const HALF_EMOJI = "half an emoji \ud83d";

describe("WebSocket frames and the text rule", () => {
  it("the WebSocket door (the protocol schema): chat and names with a lone surrogate are refused", () => {
    const chat = parseClientMessage(
      JSON.stringify({ type: "chat_send", channel: "global", message: HALF_EMOJI }),
    );
    expect(chat).toMatchObject({ ok: false, code: "bad_request" });
    if (!chat.ok) expect(chat.message).toContain("message: must be well-formed Unicode");
    const join = parseClientMessage(JSON.stringify({ type: "join", name: "Bad \ud800 name" }));
    expect(join).toMatchObject({ ok: false, code: "bad_request" });
    if (!join.ok) expect(join.message).toContain("name: must be well-formed Unicode");
    expect(
      parseClientMessage(JSON.stringify({ type: "chat_send", channel: "global", message: "ok 😀" })).ok,
    ).toBe(true);
  });

  it("a join under a name that hides, reorders or labels itself AI is refused naming the field", () => {
    for (const name of ["\u202e1a tnegA", "a\u0000b", "ring\u0007", "Agent a7 · AI", "Sam (AI)"]) {
      const join = parseClientMessage(JSON.stringify({ type: "join", name }));
      expect(join, name).toMatchObject({ ok: false, code: "bad_request" });
      if (!join.ok)
        expect(join).toMatchObject({ message: expect.stringMatching(/^name: /), forType: "join" });
    }
    expect(parseClientMessage(JSON.stringify({ type: "join", name: "Kai" })).ok).toBe(true);
  });

  it("hostile names never throw and never pass with a control or bidirectional control in them", () => {
    const control = fc.constantFrom(..."\u0000\u0007\u001b\u202e\u2066\u2069\u200f\u0085");
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), control, fc.string({ maxLength: 12 }), (a, c, b) => {
        const join = parseClientMessage(JSON.stringify({ type: "join", name: `x${a}${c}${b}` }));
        expect(join.ok).toBe(false);
      }),
    );
  });
});
