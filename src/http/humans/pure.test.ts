import { describe, expect, it } from "vitest";
import { CHAT_MESSAGE_MAX_CHARS } from "../../world/ids.ts";
import { actionOf } from "./connection.ts";
import { parseClientMessage } from "./protocol.ts";
import { resolveInside } from "./static-files.ts";

describe("client message validation", () => {
  it("accepts every message type in its documented shape", () => {
    for (const raw of [
      { type: "join", name: "Ada" },
      { type: "join", name: "Ada", resumeToken: "abcdefghijklmnopqrstuvwx", joinCode: "secret" },
      { type: "move_intent", dx: -1, dy: 1 },
      { type: "act", action: { kind: "moveTo", dest: { tx: 3, ty: 4 } } },
      { type: "click_to_move", destTx: 3, destTy: 4 },
      { type: "chat_send", channel: "global", message: "hi" },
      { type: "interact", targetId: "obj_sign_welcome", action: "read" },
      { type: "ping", t: 1 },
    ]) {
      expect(parseClientMessage(JSON.stringify(raw)).ok, JSON.stringify(raw)).toBe(true);
    }
  });

  it("refuses bad JSON, unknown types, unknown keys and out-of-range fields with a typed error", () => {
    for (const raw of [
      "not json",
      JSON.stringify({ type: "teleport" }),
      JSON.stringify({ type: "move_intent", dx: 2, dy: 0 }),
      JSON.stringify({ type: "move_intent", dx: 0.5, dy: 0 }),
      JSON.stringify({ type: "click_to_move", destTx: -1, destTy: 0 }),
      JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: -1, ty: 0 } } }),
      // The AIC request's mode is the request's, not the action's.
      JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 1, ty: 0 }, mode: "walk" } }),
      JSON.stringify({ type: "chat_send", channel: "whisper", message: "x" }),
      JSON.stringify({ type: "chat_send", channel: "global", message: "x".repeat(501) }),
      JSON.stringify({ type: "chat_send", channel: "global", message: "" }),
      JSON.stringify({ type: "interact", targetId: "sign", action: "read" }),
      JSON.stringify({ type: "join", name: "" }),
      JSON.stringify({ type: "join", name: "Ada", admin: true }),
      JSON.stringify([1, 2]),
      "null",
    ]) {
      const result = parseClientMessage(raw);
      expect(result.ok, raw).toBe(false);
      expect(!result.ok && result.code).toBe("bad_request");
    }
  });

  it("an answered action may carry the browser's txId (the agents' pattern); a held direction may not", () => {
    const txId = "tx_web_abcdefghijkl_1";
    for (const raw of [
      { type: "act", action: { kind: "moveTo", dest: { tx: 3, ty: 4 } }, txId },
      { type: "click_to_move", destTx: 3, destTy: 4, txId },
      { type: "chat_send", channel: "global", message: "hi", txId },
      { type: "interact", targetId: "obj_sign_welcome", action: "read", txId },
      { type: "approach", targetId: "obj_sign_welcome", txId },
    ]) {
      const parsed = parseClientMessage(JSON.stringify(raw));
      expect(parsed.ok && "txId" in parsed.message && parsed.message.txId, raw.type).toBe(txId);
    }
    for (const raw of [
      { type: "move_intent", dx: 1, dy: 0, txId },
      { type: "chat_send", channel: "global", message: "hi", txId: "web_1" },
      { type: "chat_send", channel: "global", message: "hi", txId: "tx_short" },
      { type: "chat_send", channel: "global", message: "hi", txId: 7 },
    ]) {
      const parsed = parseClientMessage(JSON.stringify(raw));
      expect(parsed.ok, JSON.stringify(raw)).toBe(false);
      expect(!parsed.ok && parsed.forType).toBe(raw.type);
    }
  });
});

describe("static file paths", () => {
  it("stays inside its base directory", () => {
    expect(resolveInside("/srv/web", "app.js")).toBe("/srv/web/app.js");
    expect(resolveInside("/srv/web", "sub/app.js")).toBe("/srv/web/sub/app.js");
    for (const bad of [
      "../secret",
      "..%2Fsecret",
      "%2e%2e/secret",
      "a/../../b",
      ".env",
      "a%00b",
      "a\\..\\b",
      "%E0%A4%A",
    ]) {
      expect(resolveInside("/srv/web", bad), bad).toBeUndefined();
    }
  });
});

describe("a parsed message is the action (one validation, then AicService.act)", () => {
  it("maps each action message field for field onto the action the service performs", () => {
    const cases: [unknown, unknown][] = [
      [
        { type: "move_intent", dx: -1, dy: 1 },
        { kind: "moveDir", dx: -1, dy: 1 },
      ],
      [
        { type: "act", action: { kind: "moveTo", dest: { tx: 3, ty: 4 } } },
        { kind: "moveTo", dest: { tx: 3, ty: 4 } },
      ],
      // Deprecated for one version (an older page's click): the same action.
      [
        { type: "click_to_move", destTx: 3, destTy: 4 },
        { kind: "moveTo", dest: { tx: 3, ty: 4 } },
      ],
      [
        { type: "chat_send", channel: "global", message: "hi" },
        { kind: "chat", channel: "global", message: "hi" },
      ],
      [
        { type: "interact", targetId: "obj_sign_welcome", action: "read" },
        { kind: "interact", targetId: "obj_sign_welcome", action: "read" },
      ],
    ];
    for (const [raw, action] of cases) {
      const parsed = parseClientMessage(JSON.stringify(raw));
      if (
        !parsed.ok ||
        parsed.message.type === "join" ||
        parsed.message.type === "ping" ||
        parsed.message.type === "approach"
      ) {
        throw new Error(`not an action message: ${JSON.stringify(raw)}`);
      }
      expect(actionOf(parsed.message)).toEqual(action);
    }
  });

  it("the protocol's bounds are the contract's: a chat message as long as chatSend allows, not longer", () => {
    const at = (n: number) =>
      parseClientMessage(JSON.stringify({ type: "chat_send", channel: "global", message: "x".repeat(n) })).ok;
    expect(at(CHAT_MESSAGE_MAX_CHARS)).toBe(true);
    expect(at(CHAT_MESSAGE_MAX_CHARS + 1)).toBe(false);
  });
});
