// The AIC client against this server's AIC over HTTP on 127.0.0.1 (a ticking world), and against a
// scripted fetch where the point is what it sends: txIds made once per call and kept across retries,
// retries only where `retryable`, Retry-After honoured. (The owner's 307 is covered through the
// remote tools, src/tools/remote-client.test.ts, which use this client.)
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnv, silentLogger, type TestEnv } from "../aic/testing/local-world.ts";
import { createAicHttpHandler } from "../http/aic/aic-app.ts";
import { AicClient, type AicEvent } from "./aic-client.ts";

const TOKENS: Record<string, string> = { "token-of-cl-a-000001": "cl_a", "token-of-cl-b-000001": "cl_b" };
let env: TestEnv;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  env = await createTestEnv({ agents: (id) => ({ name: id }) });
  const aic = createAicHttpHandler({ service: env.service, tokens: (t) => TOKENS[t], logger: silentLogger });
  env.runtime.start();
  server = createServer((req, res) => void aic.handle(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/aic/v0.1`;
});
afterAll(async () => {
  env.runtime.stop();
  await new Promise((r) => server.close(r));
});

const clientOf = (agentId: string) =>
  new AicClient({ baseUrl, token: Object.keys(TOKENS).find((t) => TOKENS[t] === agentId)! });

async function take(events: AsyncGenerator<AicEvent>, match: (e: AicEvent) => boolean): Promise<AicEvent> {
  for await (const event of events) if (match(event)) return event;
  throw new Error("the events ended");
}

describe("AicClient over HTTP", () => {
  it("calls typed endpoints and makes the txId of an action", async () => {
    const a = clientOf("cl_a");
    const joined = await a.join({ agentId: "cl_a", roomId: "lobby" });
    expect(joined.status).toBe("ok");
    const said = await a.chatSend({ agentId: "cl_a", roomId: "lobby", channel: "proximity", message: "hi" });
    if (said.status !== "ok") throw new Error(JSON.stringify(said));
    expect(said.data.txId).toMatch(/^tx_[0-9a-f]{32}$/);
    const seen = await a.observe({ agentId: "cl_a", roomId: "lobby", radius: 10, detail: "lite" });
    expect(seen.status === "ok" && seen.data.self.id).toBe("agt_cl_a");
  });

  it.each([
    ["long-polls", "events"],
    ["streams over SSE", "stream"],
  ] as const)("%s events as an async iterator and resumes after a cursor", async (_how, method) => {
    const a = clientOf("cl_a");
    const b = clientOf("cl_b");
    const joined = await b.join({ agentId: "cl_b", roomId: "lobby" });
    if (joined.status !== "ok") throw new Error(JSON.stringify(joined));
    const say = (message: string) =>
      a.chatSend({ agentId: "cl_a", roomId: "lobby", channel: "global", message });
    const events = (sinceCursor: string) =>
      method === "events"
        ? b.events({ agentId: "cl_b", roomId: "lobby", sinceCursor, waitMs: 2000 })
        : b.stream({ agentId: "cl_b", roomId: "lobby", sinceCursor });
    await say(`first ${method}`);
    const first = await take(events(joined.data.cursor), (e) => e.payload.message === `first ${method}`);
    await say(`second ${method}`);
    const next = await take(events(first.cursor), (e) => e.type === "chat.message");
    expect(next.payload.message).toBe(`second ${method}`);
  });
});

describe("AicClient retries", () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const busy = { status: "error", error: { code: "rate_limited", message: "slow down", retryable: true } };

  it("retries a retryable error after Retry-After with the same txId", async () => {
    const bodies: { txId: string }[] = [];
    const waits: number[] = [];
    const client = new AicClient({
      baseUrl: "http://127.0.0.1:9/aic/v0.1",
      retry: { baseDelayMs: 10 },
      random: () => 0,
      sleep: async (ms) => void waits.push(ms),
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return bodies.length === 1
          ? answer(429, busy, { "retry-after": "2" })
          : answer(200, { status: "ok", data: { txId: bodies[0]!.txId } });
      },
    });
    const result = await client.chatSend({ agentId: "x", roomId: "r", channel: "global", message: "m" });
    expect(result.status).toBe("ok");
    expect(waits).toEqual([2000]);
    expect(bodies[1]!.txId).toBe(bodies[0]!.txId);
  });

  it("answers a non-retryable error at once", async () => {
    let calls = 0;
    const client = new AicClient({
      baseUrl: "http://127.0.0.1:9/aic/v0.1",
      fetch: async () => {
        calls += 1;
        return answer(400, {
          status: "error",
          error: { code: "bad_request", message: "no", retryable: false },
        });
      },
    });
    const result = await client.observe({ agentId: "x", roomId: "r", radius: 1, detail: "lite" });
    expect(result).toMatchObject({ status: "error", error: { code: "bad_request" } });
    expect(calls).toBe(1);
  });
});
