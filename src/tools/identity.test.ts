import { describe, expect, it } from "vitest";
import { txIdForToolCall } from "./identity.ts";
import { turnBindingOf, turnBindings } from "./turn-binding.ts";

const call = {
  toolName: "ocw_chat_send",
  session: "s1",
  turn: "run-1",
  toolCallId: "call_0",
  args: { message: "hi", channel: "proximity" },
};

describe("a tool call's txId", () => {
  it("a retry of the same call (same turn, id and arguments, in any key order) is the same txId", () => {
    expect(txIdForToolCall({ ...call, args: { channel: "proximity", message: "hi" } })).toBe(
      txIdForToolCall(call),
    );
  });

  it("a model reusing its call ids never clashes: another turn, or other arguments, is a new txId", () => {
    const first = txIdForToolCall(call);
    expect(txIdForToolCall({ ...call, turn: "run-2" })).not.toBe(first);
    expect(txIdForToolCall({ ...call, args: { message: "hello again" } })).not.toBe(first);
    expect(txIdForToolCall({ ...call, session: "s2" })).not.toBe(first);
    expect(txIdForToolCall({ ...call, toolName: "ocw_reflect" })).not.toBe(first);
  });
});

describe("the turn binding a resident's run hands its tools", () => {
  it("round-trips, and anything malformed is no binding", () => {
    expect(turnBindingOf(turnBindings({ turnId: "run-1", replyChannel: "global" }))).toEqual({
      turnId: "run-1",
      replyChannel: "global",
    });
    expect(turnBindingOf(undefined)).toBeUndefined();
    expect(turnBindingOf({ openclawworld: { turnId: "" } })).toBeUndefined();
    expect(turnBindingOf({ openclawworld: { turnId: "r", replyChannel: "elsewhere" } })).toEqual({
      turnId: "r",
      replyChannel: "proximity",
    });
  });
});
