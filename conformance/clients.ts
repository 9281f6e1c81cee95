// The two ways to run the conformance scenarios: against a fresh in-process world, stepped tick by
// tick (deterministic: golden traces are exact), or against a live AIC server over HTTP.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ENDPOINT_NAMES, type EndpointName, endpointPath } from "../src/aic/endpoints.ts";
import { createTestEnv, silentLogger } from "../src/aic/testing/local-world.ts";
import { createWebSurface, type WebSurfaceHandle } from "../src/http/humans/web-surface.ts";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import type { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { type Capabilities, EXTENSION_ENDPOINTS, type ExtensionName } from "./capabilities.ts";
import { type Advance, connectHuman } from "./human.ts";
import type { AicAnswer, ScenarioClient } from "./scenarios.ts";

/** Where a contract endpoint is served (`memory/reflect` for reflect); an unknown name as given. */
function pathOf(endpoint: string): string {
  return (ENDPOINT_NAMES as string[]).includes(endpoint) ? endpointPath(endpoint as EndpointName) : endpoint;
}

export async function inProcessClient(): Promise<ScenarioClient & { runtime: WorldRuntime }> {
  const { runtime, service } = await createTestEnv({ agents: (id) => ({ name: id }) });
  // Humans come in over a real WebSocket on 127.0.0.1, into the same world; their ids count up so
  // the replay is deterministic.
  let humans = 0;
  let web: { surface: WebSurfaceHandle; url: string; close(): Promise<void> } | undefined;
  const openWeb = async () => {
    const surface = createWebSurface({
      service,
      worldDir: BUNDLED_WORLD_DIR,
      logger: silentLogger,
      humanIds: () => `hum_conformance_${++humans}`,
    });
    const server = createServer((req, res) => void surface.handleHttp(req, res));
    server.on("upgrade", (req, socket, head) => surface.handleUpgrade(req, socket, head));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    server.unref();
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/world/ws`;
    return {
      surface,
      url,
      async close() {
        await surface.close();
        await new Promise((r) => server.close(r));
      },
    };
  };
  // The human's input is applied by the next tick after it is queued: wait for it, then step once.
  const advance: Advance = async (answered) => {
    for (let i = 0; i < 10_000 && !answered(); i++) {
      if (runtime.health().queueDepth > 0) {
        runtime.stepNow();
        return;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  return {
    runtime,
    runId: "local",
    async human(name) {
      web ??= await openWeb();
      return connectHuman(web.url, name, advance);
    },
    async close() {
      await web?.close();
      web = undefined;
    },
    async call(endpoint, agentId, body) {
      let settled = false;
      const pending = service.call(endpoint as EndpointName, agentId, body).finally(() => {
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

/** `worldUrl`: the human WebSocket; by default /world/ws on the AIC server's origin. */
export function httpClient(
  baseUrl: string,
  tokens: Record<string, string>,
  options: { tickRate?: number; worldUrl?: string; joinCode?: string } = {},
): ScenarioClient {
  const base = baseUrl.replace(/\/+$/, "");
  const tickRate = options.tickRate ?? 20;
  const origin = new URL(base);
  const worldUrl =
    options.worldUrl ?? `${origin.protocol === "https:" ? "wss" : "ws"}://${origin.host}/world/ws`;
  return {
    runId: `r${Date.now().toString(36)}`,
    human: (name) => connectHuman(worldUrl, name, async () => {}, options.joinCode),
    async call(endpoint, agentId, body) {
      const token = tokens[agentId];
      if (!token) throw new Error(`no token for agent ${agentId}`);
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${base}/${pathOf(endpoint)}`, {
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
    /** An extension is served when an empty request to it is answered as a request (bad_request),
     * not as a path the server does not have (404, 405); nothing is changed on the server. The
     * human door is the world's WebSocket path answering a plain GET with anything but 404. A
     * server that does not answer at all is taken to have everything: its cases then say so. */
    async capabilities(agentId) {
      const token = tokens[agentId] ?? "";
      const served = async (url: string, init: RequestInit) => {
        try {
          const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
          await res.body?.cancel();
          return res.status !== 404 && res.status !== 405;
        } catch {
          return true;
        }
      };
      const extensions = new Set<ExtensionName>();
      for (const name of EXTENSION_ENDPOINTS) {
        const present = await served(`${base}/${endpointPath(name)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: "{}",
        });
        if (present) extensions.add(name);
      }
      const human = await served(worldUrl.replace(/^ws/, "http"), { method: "GET" });
      return { extensions, human } satisfies Capabilities;
    },
  };
}
