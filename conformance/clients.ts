// The two ways to run the conformance scenarios: against a fresh in-process world, stepped tick by
// tick (deterministic: golden traces are exact), or against a live AIC server over HTTP.
import { createTestEnv } from "../src/aic/local-world.ts";
import type { WorldRuntime } from "../src/runtime/world-runtime.ts";
import type { AicAnswer, ScenarioClient } from "./scenarios.ts";

type Endpoint =
  | "observe"
  | "moveTo"
  | "interact"
  | "chatSend"
  | "chatObserve"
  | "pollEvents"
  | "join"
  | "leave";

export async function inProcessClient(): Promise<ScenarioClient & { runtime: WorldRuntime }> {
  const { runtime, service } = await createTestEnv({ agents: (id) => ({ name: id }) });
  return {
    runtime,
    runId: "local",
    async call(endpoint, agentId, body) {
      let settled = false;
      const pending = service[endpoint as Endpoint](agentId, body).finally(() => {
        settled = true;
      });
      // An action resolves at the end of the tick that applies it: step until it has.
      for (let i = 0; i < 100_000 && !settled; i++) {
        await new Promise((r) => setImmediate(r));
        if (!settled) runtime.stepNow();
      }
      return (await pending) as AicAnswer;
    },
    async pass(ticks) {
      for (let i = 0; i < ticks; i++) runtime.stepNow();
    },
  };
}

export function httpClient(baseUrl: string, tokens: Record<string, string>, tickRate = 20): ScenarioClient {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    runId: `r${Date.now().toString(36)}`,
    async call(endpoint, agentId, body) {
      const token = tokens[agentId];
      if (!token) throw new Error(`no token for agent ${agentId}`);
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${base}/${endpoint}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as AicAnswer;
        // Rate limits are part of the contract; a conformance run waits them out, as agents should.
        if (answer.status === "error" && answer.error.code === "rate_limited" && attempt < 20) {
          const seconds = Number(res.headers.get("retry-after") ?? 1);
          await new Promise((r) => setTimeout(r, Math.max(1, seconds) * 1000));
          continue;
        }
        return answer;
      }
    },
    async pass(ticks) {
      await new Promise((r) => setTimeout(r, (ticks * 1000) / tickRate));
    },
  };
}
