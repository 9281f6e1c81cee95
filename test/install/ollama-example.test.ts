// The README's local model overlay, as shipped (examples/gateway-config.example.json: Ollama's
// OpenAI-compatible endpoint), is what a user's `npm start` runs: the file is loaded as it is, with only
// its provider's base URL swapped for the scripted model's (a stand-in for Ollama on 127.0.0.1), and a
// person who says "hello Guide" gets the Guide's answer through the real agent loop, asked of the
// example's model (`qwen3:8b`) in the example's wire format.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomToken } from "../../scripts/lib/gateway.ts";
import { PROJECT_DIR } from "../../scripts/lib/project.ts";
import { type NpmStarted, npmStart } from "../../scripts/lib/start-cycles.ts";
import { until } from "../support/browser.ts";
import { type ScriptedModel, startScriptedModel } from "../support/scripted-model.ts";

const EXAMPLE = path.join(PROJECT_DIR, "examples", "gateway-config.example.json");
const VISITOR = { id: "agent_visitor", token: randomToken() };
const REPLY = "Hi Visitor! Welcome to the plaza.";

let root: string | undefined;
let running: NpmStarted | undefined;
let model: ScriptedModel | undefined;
afterAll(async () => {
  await running?.stop();
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

interface Overlay {
  models: { providers: Record<string, { api: string; baseUrl: string; models: { id: string }[] }> };
  agents: { defaults: { model: { primary: string } } };
}

async function send<T>(npm: NpmStarted, endpoint: string, body: Record<string, unknown>) {
  const res = await fetch(`${npm.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { authorization: `Bearer ${VISITOR.token}`, "content-type": "application/json" },
    body: JSON.stringify({ agentId: VISITOR.id, roomId: "lobby", ...body }),
  });
  return (await res.json()) as { status: string; data: T; error?: { code: string } };
}

async function aic<T>(npm: NpmStarted, endpoint: string, body: Record<string, unknown>): Promise<T> {
  const json = await send<T>(npm, endpoint, body);
  if (json.status !== "ok") throw new Error(`${endpoint}: ${JSON.stringify(json.error)}`);
  return json.data;
}

/** The Guide's line the visitor heard, if any yet (a rate-limited look is "not yet"). */
async function heardFromGuide(npm: NpmStarted): Promise<string | undefined> {
  const json = await send<{ messages: { fromEntityId: string; message: string }[] }>(npm, "chatObserve", {
    windowSec: 300,
  });
  if (json.error?.code === "rate_limited") return undefined;
  if (json.status !== "ok") throw new Error(`chatObserve: ${JSON.stringify(json.error)}`);
  return json.data.messages.find((m) => m.fromEntityId === "agt_guide" && m.message === REPLY)?.message;
}

describe("the local model example overlay (Ollama)", () => {
  it("npm start with the shipped file (its base URL on the scripted model): the Guide answers a hello through it", async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ocw-ollama-example-"));
    model = await startScriptedModel();
    const example = JSON.parse(await readFile(EXAMPLE, "utf8")) as Overlay;
    const [providerId, provider] = Object.entries(example.models.providers)[0]!;
    expect(provider.baseUrl).toBe("http://127.0.0.1:11434/v1");
    expect(provider.api).toBe("openai-completions");
    provider.baseUrl = model.baseUrl;
    const overlay = path.join(root, "gateway-config.json");
    await writeFile(overlay, JSON.stringify(example));
    const pluginConfig = path.join(root, "plugin-config.json");
    await writeFile(
      pluginConfig,
      JSON.stringify({ agents: { [VISITOR.id]: { token: VISITOR.token, name: "Visitor" } } }),
    );
    model.define("ollama-hello", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: REPLY } }] },
      { text: "done" },
    ]);
    running = await npmStart({
      stateDir: path.join(root, "state"),
      gatewayConfigFile: overlay,
      pluginConfigFile: pluginConfig,
    });
    expect(running.output()).toContain(`Model:        ${example.agents.defaults.model.primary}`);
    await aic(running, "join", {});
    await aic(running, "chatSend", {
      txId: "tx_ollama_hello",
      channel: "global",
      message: "hello Guide ocw-scenario:ollama-hello",
    });
    const heard = await until("the Guide's answer", () => heardFromGuide(running!), 300_000);
    expect(heard).toBe(REPLY);
    // The turn asked the example's model, on the example's provider, in its wire format.
    const [first] = model.requests("ollama-hello");
    expect(first).toMatchObject({ wire: "openai", body: { model: provider.models[0]!.id } });
    expect(`${providerId}/${first!.body.model}`).toBe(example.agents.defaults.model.primary);
    expect(await running.stop()).toBe(0);
    running = undefined;
  }, 900_000);
});
