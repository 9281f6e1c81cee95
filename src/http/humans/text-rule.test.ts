// The contract's one text rule (src/aic/text.ts) at the WebSocket door: the protocol schema carries it.
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
});
