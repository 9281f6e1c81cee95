// A remote resident across two real gateways on loopback (issue #43). Gateway A hosts the world; its
// AIC agent `friend` lives on gateway B: B's plugin runs in remote mode (its tools act as `friend`
// through A's AIC) and B has hooks on. A person's WebSocket on A calls the agent by name; A wakes B
// through B's `POST /hooks/wake` (hook token, agentId, no words); B's heartbeat turn runs with the
// scripted model, reads the world with ocw_poll_events and answers with ocw_chat_send; the person on A
// hears the answer, and A's operator status counts the delivery answered.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort, randomToken } from "../../scripts/lib/gateway.ts";
import { deepMerge } from "../../scripts/lib/merge.ts";
import { OPERATOR_ROUTE } from "../../src/http/operator-routes.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { joinPerson } from "../support/person.ts";
import { messageText, type ScriptedModel, startScriptedModel } from "../support/scripted-model.ts";

const AIC_AGENT = "friend";
const NAME = "Robin";
const B_AGENT = "robin";
const AIC_TOKEN = randomToken();
const HOOK_TOKEN = randomToken();
const SCENARIO = "remote-wake";

let model: ScriptedModel;
let a: TestGateway;
let b: TestGateway;
// Stops a gateway still coming up when the start-up is given up (nothing is left running).
const starting = new AbortController();

beforeAll(async () => {
  model = await startScriptedModel();
  const [portA, portB] = [await freePort(), await freePort()];
  const worldA = startGateway({
    port: portA,
    signal: starting.signal,
    pluginConfig: {
      agents: { [AIC_AGENT]: { token: AIC_TOKEN, name: NAME } },
      wakeDelivery: { allowedHosts: ["127.0.0.1"], allowPrivateNetworks: true },
      wakeTargets: {
        [AIC_AGENT]: {
          target: {
            kind: "openclaw",
            url: `http://127.0.0.1:${portB}/hooks/wake`,
            hookToken: HOOK_TOKEN,
            agentId: B_AGENT,
          },
          minIntervalSec: 0,
          // Longer than the test waits to hear the answer: an answer heard after the turn's timeout
          // is recorded unanswered (seen once at load, with a 60 s timeout and a 75 s wait).
          turnTimeoutSec: 150,
        },
      },
    },
  });
  const friendB = startGateway({
    port: portB,
    signal: starting.signal,
    agentIds: [B_AGENT],
    pluginConfig: {
      remote: { baseUrl: `http://127.0.0.1:${portA}/aic/v0.1`, apiKey: AIC_TOKEN, defaultAgentId: AIC_AGENT },
      tools: { perAgent: { [B_AGENT]: { enabled: ["ocw_chat_send"] } } },
    },
    gatewayConfig: deepMerge(model.providerConfig(), {
      hooks: { enabled: true, token: HOOK_TOKEN, allowedAgentIds: [B_AGENT] },
      // No interval heartbeats: B's turns are the ones A's wakes ask for. The prompt is B's operator's
      // own; here it also carries the scripted model's scenario marker.
      agents: {
        defaults: {
          heartbeat: {
            every: "0m",
            prompt: `You live in OpenClawWorld: read your events with ocw_poll_events and answer who spoke to you. ocw-scenario:${SCENARIO}`,
          },
        },
      },
    }),
  });
  const started = await Promise.allSettled([worldA, friendB]);
  if (started[0].status === "fulfilled") a = started[0].value;
  if (started[1].status === "fulfilled") b = started[1].value;
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 600_000);

afterAll(async () => {
  starting.abort();
  await Promise.all([a?.stop(), b?.stop()]);
  await model?.close();
}, 120_000);

async function aic(endpoint: string, body: Record<string, unknown>) {
  const res = await fetch(`${a.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${AIC_TOKEN}` },
    body: JSON.stringify({ agentId: AIC_AGENT, roomId: "lobby", ...body }),
  });
  return (await res.json()) as { status: string };
}

async function deliveries() {
  const res = await fetch(`${a.baseUrl}${OPERATOR_ROUTE}/status`, {
    headers: { authorization: `Bearer ${a.gatewayToken}` },
  });
  const status = (await res.json()) as {
    data: { remoteResidents: { deliveries: { recent: { outcome: string; lastStatus?: number }[] } } };
  };
  return status.data.remoteResidents.deliveries.recent;
}

describe("a remote resident on a second real gateway (issue #43)", () => {
  it("a person on A calls B's agent by name; A wakes B's /hooks/wake; B's heartbeat turn answers in A's world", {
    timeout: 170_000,
  }, async () => {
    model.define(SCENARIO, [
      { toolCalls: [{ name: "ocw_poll_events", arguments: {} }] },
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "Hello from gateway B" } }] },
      { text: "done" },
    ]);
    // The agent's body in A's world (a friend's agent joins once; later turns find it there).
    expect((await aic("join", {})).status).toBe("ok");
    const wanda = await joinPerson(a.baseUrl, "Wanda");
    try {
      wanda.say(`${NAME}, hello! kiwi-7`);
      await vi.waitFor(
        () =>
          expect(wanda.heard).toContainEqual({ from: `agt_${AIC_AGENT}`, message: "Hello from gateway B" }),
        { timeout: 140_000, interval: 100 },
      );
      const calls = model.requests(SCENARIO);
      // The wake carried no words; the words reached B's model as world content, through the tool.
      const prompt = calls[0]!.body.messages.map((m) => messageText(m.content)).join("\n");
      expect(prompt).not.toContain("kiwi-7");
      const polled = calls[1]!.body.messages
        .filter((m) => m.role === "tool")
        .map((m) => messageText(m.content));
      expect(polled.join("\n")).toContain("kiwi-7");
      await vi.waitFor(
        async () => expect((await deliveries()).at(-1)).toMatchObject({ outcome: "answered" }),
        {
          timeout: 10_000,
          interval: 100,
        },
      );
    } finally {
      wanda.ws.close();
    }
  });
});
