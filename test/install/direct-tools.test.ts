// The tools as a model receives them when the gateway's Tool Search is off (`tools.toolSearch:
// false`), the other of its two tool modes (the shared e2e gateway runs the default, Tool Search:
// test/e2e/agent-turn.e2e.test.ts). A gateway of its own, since the mode is gateway-wide: a real
// agent turn with the scripted model, asserted on the requests the gateway sent it. The same gateway
// counts an agent's silence in seconds instead of minutes (`quietAgents`, also gateway-wide): an AIC
// agent that stops calling is shown away on a person's page, then leaves, and its next call brings it
// back where it stood.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import manifest from "../../openclaw.plugin.json" with { type: "json" };
import { randomToken } from "../../scripts/lib/gateway.ts";
import { deepMerge } from "../../scripts/lib/merge.ts";
import { DOOR_TOOLS } from "../../src/aic/endpoints.ts";
import { OPTIONAL_TOOLS } from "../../src/config/config.ts";
import { launchBrowser, ocw, openPlayer, type SeenActor, until } from "../support/browser.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import {
  messageText,
  offeredTools,
  type RecordedRequest,
  type ScriptedModel,
  startScriptedModel,
  TOOL_SEARCH_CALLER,
} from "../support/scripted-model.ts";

let model: ScriptedModel;
let gw: TestGateway;
const QUIET = { id: "quiet_bot", token: randomToken() };

beforeAll(async () => {
  model = await startScriptedModel();
  gw = await startGateway({
    pluginConfig: {
      tools: { perAgent: { directer: { enabled: [...OPTIONAL_TOOLS] } } },
      agents: { [QUIET.id]: { token: QUIET.token, name: "Quiet Bot" } },
      quietAgents: { awayAfterSec: 3, leaveAfterSec: 15 },
    },
    agentIds: ["directer"],
    gatewayConfig: deepMerge(model.providerConfig(), {
      gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } },
      agents: { defaults: { heartbeat: { every: "0m" } } },
      tools: { toolSearch: false },
    }),
  }).catch(async (error: unknown) => {
    await model.close();
    throw error;
  });
});

afterAll(async () => {
  await gw?.stop();
  await model?.close();
});

describe("direct tool mode (Tool Search off)", () => {
  it("every ocw_* tool is a definition, the list fits 1,500 tokens, the heartbeat's result is compact text", async () => {
    model.define("direct-beat", [
      { toolCalls: [{ name: "ocw_heartbeat", arguments: {} }] },
      { text: "Looked around." },
    ]);
    const res = await fetch(`${gw.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "openclaw/directer",
        user: `direct-${Date.now()}`,
        messages: [{ role: "user", content: "ocw-scenario:direct-beat wake up" }],
      }),
      signal: AbortSignal.timeout(280_000),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const [first, second] = model.requests("direct-beat") as [RecordedRequest, RecordedRequest];
    const offered = offeredTools(first.body);
    expect(offered).not.toContain(TOOL_SEARCH_CALLER);
    const ours = offered.filter((name) => name.startsWith("ocw_")).sort();
    expect(ours).toEqual([...manifest.contracts.tools].sort());
    // The budget (issue #25): what the ocw_* definitions cost in every request, as the gateway sent
    // them: 1,500 tokens for the world's tools of #25, and at most 110 for each opt-in tool an action
    // kind brings from its doors (issue #40: ocw_emote, one field, under 80; ocw_lead, a tile and a
    // person's id with its pattern, 109), paid only by an agent that enables it.
    const definitions = (first.body.tools ?? []).filter((t) => t.function?.name?.startsWith("ocw_"));
    const doorTools = new Set<string>(DOOR_TOOLS.map((door) => door.name));
    const core = definitions.filter((t) => !doorTools.has(t.function!.name!));
    expect(encode(JSON.stringify(core)).length).toBeLessThanOrEqual(1500);
    for (const door of definitions.filter((t) => doorTools.has(t.function!.name!)))
      expect(encode(JSON.stringify(door)).length, door.function!.name).toBeLessThanOrEqual(110);
    expect(definitions.length - core.length).toBe(DOOR_TOOLS.length);
    const results = second.body.messages.filter((m) => m.role === "tool").map((m) => messageText(m.content));
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/^In lobby/);
    expect(results[0]).not.toMatch(/contextToken|serverTsMs|expiresAtMs|tx_/);
  }, 300_000);
});

describe("an agent that goes quiet", () => {
  /** An AIC call by the quiet agent. */
  async function call<T>(endpoint: string, body: Record<string, unknown>) {
    const res = await fetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${QUIET.token}`, "content-type": "application/json" },
      body: JSON.stringify({ agentId: QUIET.id, roomId: "lobby", ...body }),
    });
    return (await res.json()) as { status: string; data: T; error?: { code: string } };
  }

  it("is shown away on a person's page, then leaves; its next call brings it back where it stood", async () => {
    const browser = await launchBrowser();
    try {
      // The person first: the agent's silence counts from its join.
      const { page } = await openPlayer(browser, gw.baseUrl, "Watcher");
      const joined = await call<{ entityId: string; tile: { tx: number; ty: number } }>("join", {});
      expect(joined.status, JSON.stringify(joined.error)).toBe("ok");
      const { entityId, tile } = joined.data;
      const seen = () =>
        ocw<SeenActor[]>(page, "entities()").then((all) => all.find((e) => e.id === entityId));
      await until("the quiet agent drawn away", async () => (await seen())?.away === true, 20_000);
      const tags = await ocw<string[]>(page, "tags()");
      expect(
        tags.some((t) => t.includes("Quiet Bot") && t.endsWith(" · AI (away)")),
        tags.join(" | "),
      ).toBe(true);
      await until("the quiet agent gone from the page", async () => (await seen()) === undefined, 30_000);

      const back = await call<{ self: { tile: { tx: number; ty: number } } }>("observe", {
        radius: 64,
        detail: "lite",
      });
      expect(back.status, JSON.stringify(back.error)).toBe("ok");
      expect(back.data.self.tile).toEqual(tile);
      const returned = await until("the agent back on the page", seen, 20_000);
      expect(returned).toMatchObject({ tx: tile.tx, ty: tile.ty, away: false });
    } finally {
      await browser.close();
    }
  }, 180_000);
});
