// The tools as a model receives them when the gateway's Tool Search is off (`tools.toolSearch:
// false`), the other of its two tool modes (the shared e2e gateway runs the default, Tool Search:
// test/e2e/agent-turn.e2e.test.ts). A gateway of its own, since the mode is gateway-wide: a real
// agent turn with the scripted model, asserted on the requests the gateway sent it.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import manifest from "../../openclaw.plugin.json" with { type: "json" };
import { deepMerge } from "../../scripts/lib/merge.ts";
import { DOOR_TOOLS } from "../../src/aic/endpoints.ts";
import { OPTIONAL_TOOLS } from "../../src/config/config.ts";
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

beforeAll(async () => {
  model = await startScriptedModel();
  gw = await startGateway({
    pluginConfig: { tools: { perAgent: { directer: { enabled: [...OPTIONAL_TOOLS] } } } },
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
