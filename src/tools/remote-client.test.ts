import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnv } from "../aic/testing/local-world.ts";
import { resolveConfig } from "../config/config.ts";
import { createAicHttpHandler } from "../http/aic/aic-app.ts";
import { worldStatus } from "../plugin/status.ts";
import type { WorldRuntime } from "../runtime/world-runtime.ts";
import { RemoteAicClient } from "./remote-client.ts";
import { statusTool } from "./status-tool.ts";
import { WORLD_TOOL_FACTORIES } from "./world-tools.ts";

const remoteConfig = (baseUrl: string, extra: Record<string, unknown> = {}) =>
  resolveConfig({ remote: { baseUrl, apiKey: "remote-key-0123456789", defaultAgentId: "far", ...extra } })
    .remote!;

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** What a tool factory gets in remote mode: the remote client as its backend, acting as "far". */
const remoteDeps = (config: ReturnType<typeof resolveConfig>) => ({
  config,
  backend: new RemoteAicClient(config.remote!),
  agentId: "far",
  timeoutMs: 10_000,
  session: "s1",
  allowedActionKinds: new Set<string>(),
});

describe("RemoteAicClient retries", () => {
  const noSleep = () => {
    const waits: number[] = [];
    return { waits, sleep: async (ms: number) => void waits.push(ms) };
  };

  it("retries retryable errors with exponential backoff and jitter, up to the maximum", async () => {
    const { waits, sleep } = noSleep();
    let calls = 0;
    const client = new RemoteAicClient(
      remoteConfig("http://127.0.0.1:9", { retryMaxAttempts: 3, retryBaseDelayMs: 100 }),
      {
        sleep,
        random: () => 0.5,
        fetch: async () => {
          calls += 1;
          return jsonResponse(200, {
            status: "error",
            error: { code: "timeout", message: "slow", retryable: true },
          });
        },
      },
    );
    const result = await client.call("observe", "far", { agentId: "far" }, new AbortController().signal);
    expect(result).toMatchObject({ status: "error", error: { code: "timeout" } });
    expect(calls).toBe(4);
    expect(waits).toEqual([150, 250, 450]);
  });

  it("does not retry non-retryable errors", async () => {
    let calls = 0;
    const client = new RemoteAicClient(remoteConfig("http://127.0.0.1:9"), {
      sleep: async () => {},
      fetch: async () => {
        calls += 1;
        return jsonResponse(200, {
          status: "error",
          error: { code: "collision_blocked", message: "wall", retryable: false },
        });
      },
    });
    const result = await client.call("moveTo", "far", {}, new AbortController().signal);
    expect(result).toMatchObject({ status: "error", error: { code: "collision_blocked" } });
    expect(calls).toBe(1);
  });

  it("honours Retry-After on 429 and succeeds on a later attempt", async () => {
    const { waits, sleep } = noSleep();
    let calls = 0;
    const client = new RemoteAicClient(remoteConfig("http://127.0.0.1:9", { retryBaseDelayMs: 10 }), {
      sleep,
      random: () => 0,
      fetch: async () => {
        calls += 1;
        return calls === 1
          ? jsonResponse(
              429,
              { status: "error", error: { code: "rate_limited", message: "slow down", retryable: true } },
              { "retry-after": "2" },
            )
          : jsonResponse(200, { status: "ok", data: { roomId: "garden" } });
      },
    });
    const result = await client.call(
      "join",
      "far",
      { agentId: "far", roomId: "garden" },
      new AbortController().signal,
    );
    expect(result.status).toBe("ok");
    expect(waits).toEqual([2000]);
    expect(client.currentRoom("far")).toBe("garden");
  });

  it("treats an unreachable server as retryable and a non-JSON answer as an error, never a throw", async () => {
    const client = new RemoteAicClient(
      remoteConfig("http://127.0.0.1:9", { retryMaxAttempts: 1, retryBaseDelayMs: 10 }),
      {
        sleep: async () => {},
        fetch: async () => {
          throw new TypeError("fetch failed");
        },
      },
    );
    expect(await client.call("observe", "far", {}, new AbortController().signal)).toMatchObject({
      status: "error",
      error: { code: "timeout", retryable: true },
    });
    const html = new RemoteAicClient(remoteConfig("http://127.0.0.1:9", { retryMaxAttempts: 0 }), {
      fetch: async () => new Response("<html>", { status: 200, headers: { "content-type": "text/html" } }),
    });
    expect(await html.call("observe", "far", {}, new AbortController().signal)).toMatchObject({
      status: "error",
      error: { code: "internal" },
    });
  });
});

describe("RemoteAicClient and a cluster standby's redirect", () => {
  const ok = (data: unknown) => jsonResponse(200, { status: "ok", data });
  const standbyAnswer = (location: string) =>
    jsonResponse(
      307,
      {
        status: "error",
        error: { code: "room_not_ready", message: "stands by", retryable: true, details: { location } },
      },
      { location },
    );

  it("follows the 307 itself with the same body and token, then goes straight to the owner", async () => {
    const seen: { url: string; auth: string | null; body: unknown; redirect: unknown }[] = [];
    let ownerUp = true;
    const client = new RemoteAicClient(
      remoteConfig("http://standby.test/aic/v0.1", { retryMaxAttempts: 1, retryBaseDelayMs: 10 }),
      {
        sleep: async () => {},
        fetch: async (input, init) => {
          const url = String(input);
          seen.push({
            url,
            auth: new Headers(init?.headers).get("authorization"),
            body: JSON.parse(String(init?.body)),
            redirect: init?.redirect,
          });
          if (url.startsWith("http://standby.test/")) {
            return standbyAnswer(url.replace("http://standby.test", "http://owner.test"));
          }
          if (!ownerUp) throw new TypeError("fetch failed");
          return ok({ roomId: "lobby" });
        },
      },
    );
    const signal = new AbortController().signal;
    expect(await client.call("observe", "far", { agentId: "far" }, signal)).toMatchObject({ status: "ok" });
    expect(seen.map((s) => s.url)).toEqual([
      "http://standby.test/aic/v0.1/observe",
      "http://owner.test/aic/v0.1/observe",
    ]);
    // fetch's own following would drop the token across origins: the client never lets it.
    expect(seen.every((s) => s.redirect === "manual")).toBe(true);
    expect(seen[1]).toMatchObject({ auth: "Bearer remote-key-0123456789", body: { agentId: "far" } });

    seen.length = 0;
    await client.call("observe", "far", { agentId: "far" }, signal);
    expect(seen.map((s) => s.url)).toEqual(["http://owner.test/aic/v0.1/observe"]);

    // The owner gone: the next attempt asks the configured gateway again (which knows the directory).
    seen.length = 0;
    ownerUp = false;
    await client.call("observe", "far", { agentId: "far" }, signal);
    expect(seen.map((s) => s.url)).toEqual([
      "http://owner.test/aic/v0.1/observe",
      "http://standby.test/aic/v0.1/observe",
      "http://owner.test/aic/v0.1/observe",
    ]);
  });

  it("stops after a few hops and answers the standby's contract error (retryable)", async () => {
    let calls = 0;
    const client = new RemoteAicClient(remoteConfig("http://a.test/aic/v0.1", { retryMaxAttempts: 0 }), {
      fetch: async (input) => {
        calls += 1;
        const url = String(input);
        return standbyAnswer(
          url.includes("//a.test") ? url.replace("a.test", "b.test") : url.replace("b.test", "a.test"),
        );
      },
    });
    const result = await client.call("observe", "far", {}, new AbortController().signal);
    expect(result).toMatchObject({ status: "error", error: { code: "room_not_ready", retryable: true } });
    expect(calls).toBe(4);
  });
});

describe("tools in remote mode against a real AIC server on loopback", () => {
  let server: Server;
  let runtime: WorldRuntime;
  let baseUrl: string;

  beforeAll(async () => {
    const env = await createTestEnv({ agents: (id) => ({ name: id }) });
    runtime = env.runtime;
    const service = env.service;
    const http = createAicHttpHandler({
      service,
      tokens: (t) => (t === "remote-key-0123456789" ? "far" : undefined),
      logger: { info() {}, warn() {}, error() {} },
    });
    server = createServer((req, res) => void http.handle(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/aic/v0.1`;
    runtime.start();
  });

  afterAll(async () => {
    runtime.stop();
    await new Promise((r) => server.close(r));
  });

  it("observe joins the remote default room; chat send is idempotent per tool call id", async () => {
    const config = resolveConfig({
      remote: { baseUrl, apiKey: "remote-key-0123456789", defaultAgentId: "far" },
    });
    const deps = remoteDeps(config);
    const observed = await WORLD_TOOL_FACTORIES.ocw_observe(deps).execute("c1", {});
    expect((observed.details as { self: { id: string } }).self.id).toBe("agt_far");
    expect(runtime.world.getEntity("agt_far")?.roomId).toBe("lobby");
    const a = await WORLD_TOOL_FACTORIES.ocw_chat_send(deps).execute("same-call", {
      message: "hello from afar",
    });
    const b = await WORLD_TOOL_FACTORIES.ocw_chat_send(deps).execute("same-call", {
      message: "hello from afar",
    });
    expect(b.details).toEqual(a.details);
    const heard = runtime.world.chatFor("agt_far", "lobby", 0).filter((m) => m.message === "hello from afar");
    expect(heard).toHaveLength(1);
  });

  it("ocw_status says where the tools act and whether the remote answers", async () => {
    const up = resolveConfig({ remote: { baseUrl, apiKey: "remote-key-0123456789", defaultAgentId: "far" } });
    const ok = await statusTool(up, "far", 10_000, (agentId) => worldStatus(undefined, up, agentId)).execute(
      "s1",
      {},
    );
    expect(ok.details).toMatchObject({ mode: "remote", remote: { reachable: true } });
    expect(ok.content[0]!.text).toContain(`remote AIC server ${baseUrl}`);
    const down = resolveConfig({ remote: { baseUrl: "http://127.0.0.1:9/aic/v0.1", defaultAgentId: "far" } });
    const bad = await statusTool(down, "far", 10_000, (agentId) =>
      worldStatus(undefined, down, agentId),
    ).execute("s2", {});
    expect(bad.details).toMatchObject({ remote: { reachable: false } });
    expect(bad.content[0]!.text).toContain("NOT reachable");
  });

  it("a wrong key is refused with the remote's error code", async () => {
    const config = resolveConfig({
      remote: { baseUrl, apiKey: "wrong-key-0123456789", defaultAgentId: "far" },
    });
    const deps = remoteDeps(config);
    await expect(WORLD_TOOL_FACTORIES.ocw_observe(deps).execute("c2", {})).rejects.toThrow(/unauthorized/);
  });
});
