// Emotes (src/world/actions/emote.ts) through the real gateway: POST /aic/v0.1/emote heard by an
// agent standing near, and the ocw_emote tool (opt-in) made from the same action's doors.
import { describe, expect, it } from "vitest";
import { gateway, invokeTool, leaveWhenDone } from "./fixtures.ts";

function call(agent: string, path: string, body: Record<string, unknown>) {
  const gw = gateway();
  return fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[agent]!.token}` },
    body: JSON.stringify({ agentId: agent, roomId: "lobby", ...body }),
  }).then(async (res) => ({ status: res.status, json: await res.json() }));
}

/** The messages an agent heard in the last minute. */
async function heard(agent: string): Promise<string[]> {
  const { json } = await call(agent, "chatObserve", { windowSec: 60 });
  return (json.data.messages as { message: string }[]).map((m) => m.message);
}

leaveWhenDone("agent_emote", "agent_emote_peer");

describe("emotes through the real gateway", () => {
  it("an agent waves over HTTP: answered like chat, heard by a peer near it, replayed by txId", async () => {
    expect((await call("agent_emote", "join", {})).status).toBe(200);
    expect((await call("agent_emote_peer", "join", {})).status).toBe(200);
    const me = (await call("agent_emote", "observe", { radius: 400, detail: "lite" })).json.data.self.tile;
    // The peer walks to the emoter's tile (actors do not block one another).
    const walked = await call("agent_emote_peer", "moveTo", { txId: "tx_emote_peer_walk_1", dest: me });
    expect(walked.json.status, JSON.stringify(walked.json)).toBe("ok");
    await expect
      .poll(
        async () => {
          const peer = (await call("agent_emote_peer", "observe", { radius: 400, detail: "lite" })).json.data
            .self.tile;
          return Math.hypot(peer.tx - me.tx, peer.ty - me.ty) <= 3;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true);

    const body = { txId: "tx_emote_wave_0001", emote: "wave" };
    const waved = await call("agent_emote", "emote", body);
    expect(waved.status, JSON.stringify(waved.json)).toBe(200);
    expect(waved.json).toMatchObject({ status: "ok", data: { txId: body.txId, applied: true } });
    expect(waved.json.data.chatMessageId).toMatch(/^msg_/);
    expect((await call("agent_emote", "emote", body)).json).toEqual(waved.json);
    await expect.poll(() => heard("agent_emote_peer"), { timeout: 10_000 }).toContain("👋 waves");

    const bad = await call("agent_emote", "emote", { txId: "tx_emote_bad_0001", emote: "dance" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("bad_request");
  });

  it("the ocw_emote tool is opt-in and gestures for an agent that has it", async () => {
    const blocked = await invokeTool("ocw_emote", { emote: "nod" }, { agentId: "main" });
    expect(blocked.status).toBe(403);
    const nodded = await invokeTool("ocw_emote", { emote: "nod" }, { agentId: "emoter" });
    expect(nodded.status, JSON.stringify(nodded.body)).toBe(200);
    expect(nodded.body.result?.details.chatMessageId).toMatch(/^msg_/);
    const seen = await invokeTool("ocw_chat_observe", { windowSec: 60 }, { agentId: "emoter" });
    expect(seen.body.result?.content[0]?.text).toContain("🙂 nods");
  });
});
