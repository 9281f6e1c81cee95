// A real agent turn through the gateway's agent loop: POST /v1/chat/completions starts the turn, the
// gateway sends the model (the scripted model server, test/support/scripted-model.ts) its tool list,
// the model's tool calls run through the plugin (and its before_tool_call policy), and each result goes
// back to the model in its next request. Everything is asserted on the requests the gateway sent the
// model and on the world's state, never on model text.
import { describe, expect, it } from "vitest";
import { lobbyInTheWay, until } from "../support/browser.ts";
import { runOcw } from "../support/ocw-cli.ts";
import {
  messageText,
  offeredTools,
  type RecordedRequest,
  scriptedModelClient,
  TOOL_SEARCH_CALLER,
} from "../support/scripted-model.ts";
import { gateway, invokeTool } from "./fixtures.ts";

const model = () => scriptedModelClient(gateway().modelOrigin);

/** One turn for `agentId`; the user's message carries the scenario marker. */
async function turn(agentId: string, scenario: string, text: string) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: `openclaw/${agentId}`,
      user: `${scenario}-${Date.now()}`,
      messages: [{ role: "user", content: `ocw-scenario:${scenario} ${text}` }],
    }),
    signal: AbortSignal.timeout(280_000),
  });
  return { status: res.status, body: await res.text() };
}

/** The tool results the model was sent in a request. */
const toolMessages = (request: RecordedRequest) =>
  request.body.messages.filter((m) => m.role === "tool").map((m) => messageText(m.content));

/** Whether the model can reach `tool`: as a definition, or through Tool Search's caller and directory. */
function canReach(request: RecordedRequest, tool: string): boolean {
  const offered = offeredTools(request.body);
  if (offered.includes(tool)) return true;
  const prompt = request.body.messages.map((m) => messageText(m.content)).join("\n");
  return offered.includes(TOOL_SEARCH_CALLER) && prompt.includes(tool);
}

describe("a real agent turn through the gateway's agent loop", () => {
  it("the model calls ocw_status, then ocw_move_to: each result reaches its next request, and the agent walks", async () => {
    // Where the agent stands now (this joins it), and a free tile two steps away.
    const observe = async () =>
      (await invokeTool("ocw_observe", { radius: 64 }, { agentId: "turner" })).body.result?.details as {
        self: { tile: { tx: number; ty: number } };
      };
    const from = (await observe()).self.tile;
    // Not onto a sign or just below one: the agent stays in the lobby after this file (from the plaza's
    // north spawn, two steps east or west is a sign's tile, and a later file's click on it met the agent).
    const blocked = await lobbyInTheWay(gateway().baseUrl);
    const dest = [
      { tx: from.tx + 2, ty: from.ty },
      { tx: from.tx - 2, ty: from.ty },
      { tx: from.tx, ty: from.ty + 2 },
      { tx: from.tx, ty: from.ty - 2 },
    ].find((t) => !blocked(t.tx, t.ty));
    if (!dest) throw new Error(`no free tile two steps from ${JSON.stringify(from)}`);
    // One turn, three model calls: two tool calls, then the final answer.
    await model().define("turn-walk", [
      { toolCalls: [{ name: "ocw_status", arguments: {} }] },
      { toolCalls: [{ name: "ocw_move_to", arguments: dest }] },
      { text: "On my way." },
    ]);

    const answer = await turn("turner", "turn-walk", "is the world running? then walk two tiles");
    expect(answer.status, answer.body).toBe(200);

    const requests = await model().requests("turn-walk");
    expect(requests.map((r) => r.step)).toEqual([0, 1, 2]);
    const [first, second, third] = requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    expect(canReach(first, "ocw_status")).toBe(true);
    expect(canReach(first, "ocw_move_to")).toBe(true);
    // The world's own answers, as the plugin wrote them, in the model's next requests (Tool Search
    // wraps a result in JSON, where its quotes are escaped).
    const status = (await (await fetch(`${gateway().baseUrl}/world/api/status`)).json()) as {
      world: { name: string };
    };
    const afterStatus = toolMessages(second).map((t) => t.replaceAll('\\"', '"'));
    expect(afterStatus).toHaveLength(1);
    expect(afterStatus[0]).toContain(`OpenClawWorld "${status.world.name}" is running`);
    const afterMove = toolMessages(third);
    expect(afterMove).toHaveLength(2);
    expect(afterMove[1]).toMatch(/accepted/);
    // And the world: the agent arrives where the model sent it.
    // Observe is limited to 2/s per agent (PRD 12): looked at a little slower.
    await until(
      `the agent on (${dest.tx}, ${dest.ty})`,
      async () => {
        const tile = (await observe()).self.tile;
        return tile.tx === dest.tx && tile.ty === dest.ty;
      },
      { timeoutMs: 15_000, everyMs: 600 },
    );
  }, 300_000);

  it("Tool Search mode: ocw_heartbeat is a direct definition, its first call greets, its result is compact text", async () => {
    const message = `hello from a first heartbeat ${Date.now()}`;
    await model().define("turn-beat", [
      {
        toolCalls: [
          {
            name: "ocw_heartbeat",
            arguments: { action: { kind: "chatSend", channel: "global", message } },
            via: "direct",
          },
        ],
      },
      { text: "Said hello." },
    ]);
    const answer = await turn("greeter", "turn-beat", "wake up and greet the room");
    expect(answer.status, answer.body).toBe(200);
    const [first, second] = (await model().requests("turn-beat")) as [RecordedRequest, RecordedRequest];
    // The gateway runs in its default Tool Search mode: the caller is offered, the tools that change
    // the world are not definitions, and the heartbeat (catalogMode "direct-only") is.
    const offered = offeredTools(first.body);
    expect(offered).toContain(TOOL_SEARCH_CALLER);
    expect(offered).not.toContain("ocw_chat_send");
    expect(offered).toContain("ocw_heartbeat");
    // Its result reaches the model as the tool's text alone: no details JSON, no ids, no token.
    const [result] = toolMessages(second);
    expect(result).toContain("Your action: ");
    expect(result).not.toMatch(/contextToken|serverTsMs|expiresAtMs|tx_|"details"/);
    // And the world: the first heartbeat's chat was said (no token needed).
    const heard = await invokeTool("ocw_chat_observe", { windowSec: 120 }, { agentId: "greeter" });
    const details = heard.body.result?.details as { messages?: { message: string }[] } | undefined;
    expect((details?.messages ?? []).map((m) => m.message)).toContain(message);
  }, 300_000);

  it("Tool Search mode: observe, poll events, chat observe and status answer the model in their short text", async () => {
    const looks = ["ocw_observe", "ocw_poll_events", "ocw_chat_observe", "ocw_status"];
    await model().define("turn-look", [
      { toolCalls: looks.map((name) => ({ name, arguments: {} })) },
      { text: "Looked around." },
    ]);
    const answer = await turn("greeter", "turn-look", "look around");
    expect(answer.status, answer.body).toBe(200);
    const [first, second] = (await model().requests("turn-look")) as [RecordedRequest, RecordedRequest];
    const offered = offeredTools(first.body);
    expect(offered).toContain(TOOL_SEARCH_CALLER);
    for (const name of looks) expect(offered).toContain(name);
    // Each result is the tool's text alone: not Tool Search's JSON wrapper with the whole details.
    const results = toolMessages(second);
    expect(results).toHaveLength(looks.length);
    for (const result of results) {
      expect(result).not.toMatch(/"details"|"result"|serverTsMs|"tsMs"|"cursor"/);
    }
    expect(results.join("\n")).toContain("is running");
  }, 300_000);

  // Issue #42: a tool call the gateway's policy blocks (the "denied" agent may not move) is in the
  // agent's turns beside the replay, as the operator reads them (the admin route and the CLI).
  it("a tool call the policy blocks in a real turn shows in the agent's turns as tool_call_blocked", async () => {
    const dest = { tx: 20, ty: 14 };
    await model().define("turn-blocked", [
      { toolCalls: [{ name: "ocw_move_to", arguments: dest }] },
      { text: "I may not walk." },
    ]);
    const gw = gateway();
    const blockedTurns = async () => {
      const res = await fetch(`${gw.baseUrl}/openclawworld/admin/replay/turns?agent=denied&lastMinutes=10`, {
        headers: { authorization: `Bearer ${gw.gatewayToken}` },
      });
      const { data } = (await res.json()) as { data: { turns: BlockedTurn[] } };
      return data.turns.filter((t) => t.kind === "blocked");
    };
    const before = Math.max(0, ...(await blockedTurns()).map((t) => t.seq));
    const answer = await turn("denied", "turn-blocked", "walk to the fountain");
    expect(answer.status, answer.body).toBe(200);
    const [, second] = (await model().requests("turn-blocked")) as [RecordedRequest, RecordedRequest];
    expect(toolMessages(second).join("\n")).toMatch(/blocked|not allowed|denied/i);
    // The turns are written after the event loop's turn: wait for the record.
    const blockedTurn = await until("the blocked call is in the agent's turns", async () =>
      (await blockedTurns()).find((t) => t.seq > before),
    );
    expect(blockedTurn).toMatchObject({ agentId: "denied", status: "tool_call_blocked" });
    expect(blockedTurn.name).toContain("ocw_move_to");
    expect(blockedTurn.request).toContain(`"tx":${dest.tx}`);
    // The operator CLI reads the same record.
    const printed = JSON.parse(
      await runOcw(gw.baseUrl, gw.gatewayToken, "replay", "turns", "denied", "5"),
    ) as {
      turns: BlockedTurn[];
    };
    expect(printed.turns.find((t) => t.seq === blockedTurn.seq)).toEqual(blockedTurn);
  }, 300_000);
});

interface BlockedTurn {
  seq: number;
  agentId: string;
  kind: string;
  name: string;
  status: string;
  request: string;
}
