// Reflection memory (issue #12) through the real gateway: POST /aic/v0.1/memory/reflect over HTTP and
// the optional tool ocw_reflect over /tools/invoke (opt-in on and off), read back through the
// working memory of heartbeat and observe, only by the agent that wrote it.
import { describe, expect, it } from "vitest";
import type { MemoryEntryT } from "../../src/aic/schemas.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { gateway, invokeTool, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_memo";

async function call(path: string, body: unknown, agent = AGENT) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[agent]!.token}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

const reflections = (memory: MemoryEntryT[] | undefined) =>
  (memory ?? []).filter((m) => m.kind === "reflection").map((m) => (m as { content: string }).content);

leaveWhenDone(AGENT, "agent_memo_peer");

describe("reflection memory over HTTP", () => {
  it("stores a reflection, answers a retry byte-identically, refuses bad input and another agent's id", async () => {
    const joined = await call("join", { agentId: AGENT, roomId: "lobby" });
    expect(joined.status).toBe(200);
    const runId = Date.now().toString(36);
    // A source: the cursor of an event this agent perceived.
    const poll = (sinceCursor: string) =>
      call("pollEvents", { agentId: AGENT, roomId: "lobby", sinceCursor, limit: 1 });
    let polled = await poll("c_0");
    // Other files' traffic may have pushed the room's first events out of the retained window.
    if (polled.json.status === "error") polled = await poll(polled.json.error.details.nextCursor);
    const source: string = polled.json.data.events[0].cursor;
    const body = {
      agentId: AGENT,
      roomId: "lobby",
      txId: `tx_e2e_memo_${runId}`,
      content: `the lobby is quiet today (${runId})`,
      topics: ["lobby"],
      sources: [source],
      importance: 0.8,
    };
    const first = await call("memory/reflect", body);
    expect(first.status, first.text).toBe(200);
    expect(checkResponse("ReflectResponseData", first.json, { oracle: false })).toEqual([]);
    expect(first.json.data.reflection).toMatchObject({
      content: body.content,
      importance: 0.8,
      topics: ["lobby"],
      sources: [source],
    });
    expect((await call("memory/reflect", body)).text).toBe(first.text);

    const bad = await call("memory/reflect", { ...body, txId: `tx_e2e_memo_bad_${runId}`, importance: 7 });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: "bad_request", retryable: false });
    const unknownKey = await call("memory/reflect", { ...body, txId: `tx_e2e_memo_key_${runId}`, mood: "x" });
    expect(unknownKey.status).toBe(400);
    // agent_memo's credential writing agent_memo_peer's memory: forbidden.
    const other = await call("memory/reflect", {
      ...body,
      agentId: "agent_memo_peer",
      txId: `tx_e2e_memo_o_${runId}`,
    });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe("forbidden");

    const plain = await call("heartbeat", { agentId: AGENT, roomId: "lobby" });
    expect(plain.json.data).not.toHaveProperty("memory");
    const beat = await call("heartbeat", { agentId: AGENT, roomId: "lobby", memory: 8 });
    expect(checkResponse("HeartbeatResponseData", beat.json, { oracle: false })).toEqual([]);
    expect(reflections(beat.json.data.memory)).toEqual([body.content]);
    const seen = await call("observe", {
      agentId: AGENT,
      roomId: "lobby",
      radius: 64,
      detail: "lite",
      memory: 8,
    });
    expect(checkResponse("ObserveResponseData", seen.json, { oracle: false })).toEqual([]);
    expect(seen.json.data.memory).toEqual(beat.json.data.memory);

    // Another agent never sees it.
    const peer = "agent_memo_peer";
    await call("join", { agentId: peer, roomId: "lobby" }, peer);
    const theirs = await call("heartbeat", { agentId: peer, roomId: "lobby", memory: 20 }, peer);
    expect(theirs.status).toBe(200);
    expect(theirs.text).not.toContain(body.content);
  });
});

describe("ocw_reflect through /tools/invoke", () => {
  it("opt-in on: stores once (a retried call replays) and ocw_heartbeat shows it; opt-in off: 403, nothing stored", async () => {
    const runId = Date.now().toString(36);
    const args = { content: `tools can remember (${runId})`, importance: 0.6, topics: ["tools"] };
    const stored = await invokeTool("ocw_reflect", args, {
      agentId: "thinker",
      idempotencyKey: `memo-${runId}`,
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.result?.content[0]?.text).toMatch(/^Remembered mem_\d+ about tools/);
    const retry = await invokeTool("ocw_reflect", args, {
      agentId: "thinker",
      idempotencyKey: `memo-${runId}`,
    });
    expect(retry.body.result?.details).toEqual(stored.body.result?.details);
    const beat = await invokeTool("ocw_heartbeat", { memory: 20 }, { agentId: "thinker" });
    expect(beat.status).toBe(200);
    // Once (the retry replayed); the conformance policy suite may have stored thinker's own before.
    const mine = reflections(beat.body.result?.details.memory as MemoryEntryT[]);
    expect(mine.filter((content) => content === args.content)).toEqual([args.content]);
    expect(beat.body.result?.content[0]?.text).toContain(`reflection (0.6; tools): ${args.content}`);

    const refused = await invokeTool(
      "ocw_reflect",
      { ...args, content: `refused (${runId})` },
      { agentId: "main" },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error?.type).toBe("tool_call_blocked");
    expect(refused.body.error?.message).toContain("ocw_reflect is not enabled for you");
    const mainBeat = await invokeTool("ocw_heartbeat", { memory: 20 }, { agentId: "main" });
    expect(JSON.stringify(mainBeat.body.result?.details)).not.toContain(`refused (${runId})`);
    const thinkerAgain = await invokeTool("ocw_heartbeat", { memory: 20 }, { agentId: "thinker" });
    expect(JSON.stringify(thinkerAgain.body.result?.details)).not.toContain(`refused (${runId})`);
  });
});
