// The one text rule (text.ts) at every door of the contract: agent endpoints (HTTP and tools call
// these), the shared action path (WebSocket humans), and the friction fixes that live in the contract.
import { describe, expect, it } from "vitest";
import { httpStatusFor } from "./errors.ts";
import { ChatSendRequest, InteractRequest } from "./schemas.ts";
import { createTestEnv, type TestEnv } from "./testing/local-world.ts";
import { findTextProblem, MAX_JSON_DEPTH } from "./text.ts";

const A = "agent_helper";
const room = "lobby";
const HALF_EMOJI = "half an emoji \ud83d";

async function joined(): Promise<TestEnv> {
  const env = await createTestEnv();
  await env.join(A);
  return env;
}

function expectTextRefused(result: unknown, field: string): void {
  expect(result).toMatchObject({
    status: "error",
    error: { code: "bad_request", retryable: false },
  });
  const error = (result as { error: { message: string; details: { issues: { path: string }[] } } }).error;
  expect(error.message).toContain(`${field}: must be well-formed Unicode`);
  expect(error.details.issues.map((i) => i.path)).toContain(field);
  expect(httpStatusFor(result as Parameters<typeof httpStatusFor>[0])).toBe(400);
}

describe("findTextProblem", () => {
  it("finds lone surrogates in strings and keys at any depth, accepts proper pairs", () => {
    expect(findTextProblem({ a: ["ok", "emoji \ud83d\ude00"] })).toBeUndefined();
    expect(findTextProblem({ a: ["ok", { b: "x\udfff" }] })).toEqual({
      path: ["a", 1, "b"],
      reason: "ill_formed_text",
    });
    expect(findTextProblem({ "k\ud800": 1 })).toEqual({ path: ["k\ud800"], reason: "ill_formed_text" });
    expect(findTextProblem("\ude00\ud83d")).toEqual({ path: [], reason: "ill_formed_text" });
  });

  it("refuses nesting deeper than the bound without recursing (no stack overflow)", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findTextProblem(deep)?.reason).toBe("too_deep");
    let ok: unknown = "leaf";
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) ok = { k: ok };
    expect(findTextProblem(ok)).toBeUndefined();
  });
});

describe("the text rule at every door", () => {
  it("chatSend.message with a lone surrogate: bad_request naming the field, never stored", async () => {
    const env = await joined();
    const before = env.world.latestSeq(room);
    const result = await env.tick(
      env.service.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_surrogate_chat_1",
        channel: "global",
        message: HALF_EMOJI,
      }),
    );
    expectTextRefused(result, "message");
    expect(env.world.latestSeq(room)).toBe(before);
    expect(() => env.world.snapshotHash()).not.toThrow();
    // The same txId with good text is a fresh request: nothing was recorded for the refused one.
    const retried = await env.tick(
      env.service.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_surrogate_chat_1",
        channel: "global",
        message: "half an emoji 😀",
      }),
    );
    expect(retried).toMatchObject({ status: "ok", data: { applied: true } });
  });

  it("interact.action, strings inside params (values and keys), expect.objectState.field/equals", async () => {
    const env = await joined();
    const base = { agentId: A, roomId: room, targetId: "obj_sign_welcome", action: "read" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, txId: "tx_surrogate_int_1", action: "re\ud800ad" }, "action"],
      [{ ...base, txId: "tx_surrogate_int_2", params: { note: ["fine", "bad \udc00"] } }, "params.note.1"],
      [{ ...base, txId: "tx_surrogate_int_3", params: { "k\ud800": 1 } }, "params.k\ufffd"],
      [
        {
          ...base,
          txId: "tx_surrogate_int_4",
          expect: { objectState: { objectId: "obj_door_1", field: "op\ud800en", equals: true } },
        },
        "expect.objectState.field",
      ],
      [
        {
          ...base,
          txId: "tx_surrogate_int_5",
          expect: { objectState: { objectId: "obj_door_1", field: "open", equals: "\ud83d" } },
        },
        "expect.objectState.equals",
      ],
    ];
    for (const [body, field] of cases) {
      const result = await env.tick(env.service.call("interact", A, body));
      expectTextRefused(result, field);
    }
    expect(() => env.world.snapshotHash()).not.toThrow();
  });

  it("the schemas themselves carry the rule (what tools and the OpenAPI-driven clients share)", () => {
    const base = { agentId: A, roomId: room, txId: "tx_schema_rule_1" };
    expect(ChatSendRequest.safeParse({ ...base, channel: "global", message: "\ud800" }).success).toBe(false);
    expect(ChatSendRequest.safeParse({ ...base, channel: "global", message: "ok 😀" }).success).toBe(true);
    const deepParams: Record<string, unknown> = {};
    let node = deepParams;
    for (let i = 0; i < MAX_JSON_DEPTH + 2; i++) node = node.k = {} as Record<string, unknown>;
    const deep = InteractRequest.safeParse({
      ...base,
      targetId: "obj_a",
      action: "read",
      params: deepParams,
    });
    expect(deep.success).toBe(false);
  });
});

describe("friction real clients hit", () => {
  it('pollEvents accepts sinceCursor "0" as the start of the room, like "c_0"', async () => {
    const env = await joined();
    const poll = (sinceCursor: string) =>
      env.service.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor, limit: 50 });
    const zero = await poll("0");
    const start = await poll("c_0");
    expect(zero.status).toBe("ok");
    expect(zero).toEqual(start);
    if (zero.status === "ok") expect(zero.data.events[0]?.type).toBe("presence.join");
  });

  it("a missing required field says it is required, not that its value is wrong", async () => {
    const env = await joined();
    const result = await env.service.call("observe", A, { agentId: A, roomId: room, radius: 100 });
    expect(result).toMatchObject({ status: "error", error: { code: "bad_request" } });
    if (result.status === "error") {
      expect(result.error.message).toMatch(/^invalid request: detail: required field is missing/);
    }
    const wrong = await env.service.call("observe", A, {
      agentId: A,
      roomId: room,
      radius: 100,
      detail: "medium",
    });
    if (wrong.status === "error") expect(wrong.error.message).not.toContain("required");
    const nested = await env.tick(
      env.service.call("moveTo", A, { agentId: A, roomId: room, txId: "tx_missing_ty_1", dest: { tx: 3 } }),
    );
    if (nested.status === "error")
      expect(nested.error.message).toContain("dest.ty: required field is missing");
    expect(nested.status).toBe("error");
  });
});
