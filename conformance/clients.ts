// The two ways to run the conformance scenarios: against a fresh in-process world, stepped tick by
// tick (deterministic: golden traces are exact), or against a live AIC server over HTTP.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket } from "ws";
import { type EndpointName, endpointPath } from "../src/aic/endpoints.ts";
import { createTestEnv, silentLogger } from "../src/aic/testing/local-world.ts";
import { AicClient } from "../src/client/aic-client.ts";
import { createWebSurface, type WebSurfaceHandle } from "../src/http/humans/web-surface.ts";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import type { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { answerProblems } from "./answer-check.ts";
import { type Capabilities, EXTENSION_ENDPOINTS, type ExtensionName } from "./capabilities.ts";
import { type Advance, connectHuman } from "./human.ts";
import type { AicAnswer, ScenarioClient } from "./scenarios.ts";

export async function inProcessClient(): Promise<ScenarioClient & { runtime: WorldRuntime; room: string }> {
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
    room: runtime.world.definition.defaultRoomId,
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

/** A live AIC server over HTTP, through the package's one AIC client (src/client). `worldUrl`: the
 * human WebSocket; by default /world/ws on the AIC server's origin. */
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
  const clients = new Map<string, AicClient>();
  const clientOf = (agentId: string) => {
    const token = tokens[agentId];
    if (!token) throw new Error(`no token for agent ${agentId}`);
    let client = clients.get(agentId);
    if (!client) {
      // Rate limits are part of the contract; a conformance run waits them out (Retry-After), as
      // agents should. Any other error is the verdict's to judge, so it is never retried away.
      client = new AicClient({
        baseUrl: base,
        token,
        retry: { maxRetries: 20, baseDelayMs: 200, retryWhen: (e) => e.code === "rate_limited" },
      });
      clients.set(agentId, client);
    }
    return client;
  };
  return {
    runId: `r${Date.now().toString(36)}`,
    human: (name) => connectHuman(worldUrl, name, async () => {}, options.joinCode),
    async call(endpoint, agentId, body) {
      // What the server sent, as sent: the verdict judges it (a body outside the wrapper included).
      const sent = await clientOf(agentId).exchange(endpoint, body);
      return ("body" in sent ? sent.body : sent.result) as AicAnswer;
    },
    async pass(ticks) {
      await new Promise((r) => setTimeout(r, (ticks * 1000) / tickRate));
    },
    capabilities: (agentId, roomId) =>
      askCapabilities(base, clientOf(agentId), { agentId, roomId }, worldUrl, tokens[agentId] ?? ""),
  };
}

/** Which of this project's extensions the server has, found by asking it. A path that exists
 * proves nothing (another server may have a `/heartbeat` of its own), so the server first shows it
 * is this project's: a join into the room, or a heartbeat without an action (it acts on nothing),
 * answered ok with this project's answer (its schema). Only then is each extension taken as ours
 * that its OpenAPI document lists (when it publishes one at openapi.json) and that refuses an empty
 * body as bad_request in the result wrapper. A server that shows nothing has none of them, and
 * each case that needs one is skipped with what it answered. The human door: a WebSocket to
 * worldUrl that opens, on a server that showed it is ours (another's /world/ws speaks its own). */
async function askCapabilities(
  base: string,
  client: AicClient,
  who: { agentId: string; roomId: string },
  worldUrl: string,
  token: string,
): Promise<Capabilities> {
  const listed = await publishedPaths(base, token);
  const unlisted = (name: ExtensionName) =>
    listed && ![...listed].some((p) => p === `/${endpointPath(name)}` || p.endsWith(`/${endpointPath(name)}`))
      ? `its openapi.json lists no /${endpointPath(name)}`
      : undefined;
  const extensions = new Set<ExtensionName>();
  const why: Partial<Record<ExtensionName, string>> = {};
  // join first: the heartbeat is asked as an agent in the room.
  for (const name of ["join", "heartbeat"] as const) {
    const problem = unlisted(name) ?? (await answeredAsOurs(client, name, who));
    if (problem) why[name] = problem;
    else extensions.add(name);
  }
  const proven = extensions.size > 0;
  for (const name of EXTENSION_ENDPOINTS) {
    if (name === "join" || name === "heartbeat") continue;
    const problem = proven
      ? (unlisted(name) ?? (await refusesEmptyBody(client, name)))
      : `the server has not shown it is this project's (join: ${why.join}; heartbeat: ${why.heartbeat})`;
    if (problem) why[name] = problem;
    else extensions.add(name);
  }
  const opened = await opens(worldUrl);
  return {
    extensions,
    human: proven && opened,
    why,
    ...(opened && !proven
      ? {
          humanWhy:
            "needs a human client: /world/ws opens, but the server has not shown it is this project's, so its protocol is another",
        }
      : {}),
  } satisfies Capabilities;
}

/** Why the server's answer to a valid `join` or `heartbeat` (no action) is not this project's, or
 * undefined when it is. */
async function answeredAsOurs(
  client: AicClient,
  name: "join" | "heartbeat",
  who: { agentId: string; roomId: string },
): Promise<string | undefined> {
  const { result, httpStatus, body } = await client.exchange(name, { ...who });
  if (result.status !== "ok")
    return `POST /${endpointPath(name)} ${JSON.stringify(who)} was answered HTTP ${httpStatus} ${result.error.code}`;
  const problems = answerProblems(name, body ?? result);
  return problems.length > 0
    ? `POST /${endpointPath(name)} was answered ok, but not as this project's (${problems.length} schema problems, the first: ${problems[0]})`
    : undefined;
}

/** Why `name` does not refuse an empty body as this project's extension does, or undefined. */
async function refusesEmptyBody(client: AicClient, name: ExtensionName): Promise<string | undefined> {
  const { result, httpStatus } = await client.exchange(name, {});
  if (httpStatus === 404 || httpStatus === 405) return `POST /${endpointPath(name)} is HTTP ${httpStatus}`;
  if (result.status === "error" && result.error.code === "bad_request" && httpStatus === 400)
    return undefined;
  return `POST /${endpointPath(name)} {} was not refused as bad_request (HTTP ${httpStatus}, ${result.status === "ok" ? "ok" : result.error.code})`;
}

/** The paths of the server's OpenAPI document, or undefined when it publishes none. */
async function publishedPaths(base: string, token: string): Promise<Set<string> | undefined> {
  try {
    const res = await fetch(`${base}/openapi.json`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const doc = (await res.json()) as { paths?: Record<string, unknown> };
    return doc.paths ? new Set(Object.keys(doc.paths)) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a WebSocket to `url` opens (it is closed at once). */
function opens(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    socket.once("open", () => {
      socket.close();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("unexpected-response", (_req, res) => {
      res.resume();
      socket.terminate();
      resolve(false);
    });
  });
}
