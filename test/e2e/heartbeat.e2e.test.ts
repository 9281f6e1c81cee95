// The heartbeat (issue #12) through the real gateway: POST /aic/v0.1/heartbeat over HTTP and the
// ocw_heartbeat tool over /tools/invoke, including the tool policy on an embedded action.
import { describe, expect, it } from "vitest";
import type { HeartbeatResponse } from "../../src/aic/schemas.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { gateway, invokeTool, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_beat";

async function call(path: string, body: unknown) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[AGENT]!.token}` },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as { data: HeartbeatResponse; error?: Record<string, unknown> },
  };
}

leaveWhenDone(AGENT);

describe("heartbeat over HTTP", () => {
  it("token round trip, an embedded chat heard by a tool agent, idempotent with chatSend, refused with a forged token", async () => {
    await call("join", { agentId: AGENT, roomId: "lobby" });
    const first = await call("heartbeat", { agentId: AGENT, roomId: "lobby" });
    expect(first.status).toBe(200);
    expect(checkResponse("HeartbeatResponseData", first.json, { oracle: false })).toEqual([]);
    const token: string = first.json.data.contextToken;

    // A token that is not this world's: the action is refused (conflict), nothing said.
    const [body] = token.split(".");
    const refused = await call("heartbeat", {
      agentId: AGENT,
      roomId: "lobby",
      contextToken: `${body}.AAAAAAAAAAAAAAAA`,
      action: { kind: "chatSend", txId: "tx_e2e_beat_0000", channel: "global", message: "never" },
    });
    expect(refused.status).toBe(200);
    expect(refused.json.error).toMatchObject({ code: "conflict", details: { field: "contextToken" } });

    // A tool agent starts its own heartbeat context before the chat.
    const listenerStart = await invokeTool("ocw_heartbeat", {}, { agentId: "beater" });
    expect(listenerStart.status, JSON.stringify(listenerStart.body)).toBe(200);

    const said = await call("heartbeat", {
      agentId: AGENT,
      roomId: "lobby",
      contextToken: token,
      action: { kind: "chatSend", txId: "tx_e2e_beat_0001", channel: "global", message: "beat over http" },
    });
    expect(said.status).toBe(200);
    expect(checkResponse("HeartbeatResponseData", said.json, { oracle: false })).toEqual([]);
    expect(said.json.data.action).toMatchObject({
      status: "ok",
      data: { txId: "tx_e2e_beat_0001", applied: true },
    });
    // The same txId at chatSend is the same transaction: replayed, not posted twice.
    const direct = await call("chatSend", {
      agentId: AGENT,
      roomId: "lobby",
      txId: "tx_e2e_beat_0001",
      channel: "global",
      message: "beat over http",
    });
    expect(direct.json).toEqual(said.json.data.action);

    const heard = await invokeTool("ocw_heartbeat", {}, { agentId: "beater" });
    const delta = heard.body.result?.details.delta as { heard?: { from: string; message: string }[] };
    expect((delta.heard ?? []).filter((h) => h.from === `agt_${AGENT}`).map((h) => h.message)).toEqual([
      "beat over http",
    ]);

    // The sender's own delta never contains its own chat.
    const own = await call("heartbeat", {
      agentId: AGENT,
      roomId: "lobby",
      contextToken: said.json.data.contextToken,
    });
    expect((own.json.data.delta.heard ?? []).some((h) => h.from === `agt_${AGENT}`)).toBe(false);
  });
});

describe("ocw_heartbeat through the gateway's tool path", () => {
  it("is a required tool any agent may call; an embedded move is blocked unless ocw_move_to is allowed", async () => {
    const plain = await invokeTool("ocw_heartbeat", {}, { agentId: "main" });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.result?.details).toHaveProperty("contextToken");

    const move = { action: { kind: "moveTo", dest: { tx: 20, ty: 12 } } };
    for (const agentId of ["main", "beater", "denied"]) {
      const blocked = await invokeTool("ocw_heartbeat", move, { agentId });
      expect(blocked.status, agentId).toBe(403);
      expect(blocked.body.error?.type).toBe("tool_call_blocked");
      expect(blocked.body.error?.message).toContain("counts as ocw_move_to");
    }
    const allowed = await invokeTool("ocw_heartbeat", move, { agentId: "walker" });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    // Without a remembered context (walker's first heartbeat in this gateway) the tool perceives first
    // and applies nothing; with one (another file may have run ocw_heartbeat as walker) it applies.
    if (!allowed.body.result?.content[0]?.text.includes("NOT applied")) {
      expect(allowed.body.result?.details.action).toMatchObject({ status: "ok" });
    }
    const second = await invokeTool("ocw_heartbeat", move, { agentId: "walker" });
    expect(second.body.result?.details.action).toMatchObject({
      status: "ok",
      data: { applied: expect.any(Boolean) },
    });
  });
});
