import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test/support/wait.ts";
import { createTestEnv, silentLogger, type TestEnv } from "../../aic/testing/local-world.ts";
import { checkResponse } from "../../aic/testing/oracle.ts";
import { anyText } from "../../world/testing/any-text.ts";
import { createAicHttpHandler } from "./aic-app.ts";

const A = "agent_helper";
const B = "agent_other";
const TOKENS: Record<string, string> = { "tok-helper": A, "tok-other": B };

interface Harness {
  env: TestEnv;
  base: string;
  close(): Promise<void>;
  handler: ReturnType<typeof createAicHttpHandler>;
  logs: string[];
}

const open: Harness[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function harness(
  options: Parameters<typeof createTestEnv>[0] & { sseHeartbeatMs?: number } = {},
): Promise<Harness> {
  const env = await createTestEnv(options);
  const logs: string[] = [];
  const logger = { ...silentLogger, error: (m: string) => logs.push(m) };
  const handler = createAicHttpHandler({
    service: env.service,
    tokens: (t) => TOKENS[t],
    logger,
    ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
  });
  const server: Server = createServer((req, res) => {
    void handler.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const h: Harness = {
    env,
    base: `http://127.0.0.1:${port}/aic/v0.1`,
    handler,
    logs,
    async close() {
      handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(h);
  return h;
}

function post(
  h: Harness,
  path: string,
  body: unknown,
  token = "tok-helper",
  headers: Record<string, string> = {},
) {
  return fetch(`${h.base}/${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function joinOverHttp(h: Harness, agentId = A, token = "tok-helper") {
  const pending = post(h, "join", { agentId, roomId: "lobby" }, token);
  await until(() => h.env.runtime.health().queueDepth > 0);
  h.env.runtime.stepNow();
  const res = await pending;
  expect(res.status).toBe(200);
  return res.json();
}

/** Steps the world until `pending` is answered: on a busy machine the request may reach the world
 * after any fixed pause, and a tick before it arrives applies nothing. */
async function stepUntilAnswered(h: Harness, pending: Promise<Response>): Promise<Response> {
  let answered = false;
  void pending.finally(() => {
    answered = true;
  });
  await until(
    "the answer",
    () => {
      if (!answered) h.env.runtime.stepNow();
      return answered;
    },
    { everyMs: 10, timeoutMs: 5_000 },
  );
  return pending;
}

function listenerCount(env: TestEnv): number {
  return (env.runtime as unknown as { listeners: Set<unknown> }).listeners.size;
}

describe("AIC over HTTP (real lobby world, 127.0.0.1)", () => {
  it("join + observe: wrapper, schema-valid data, X-Request-Id echoed or generated", async () => {
    const h = await harness();
    const joined = await joinOverHttp(h);
    expect(checkResponse("JoinResponseData", joined, { oracle: false })).toEqual([]);
    const res = await post(
      h,
      "observe",
      { agentId: A, roomId: "lobby", radius: 300, detail: "full" },
      "tok-helper",
      {
        "x-request-id": "req-123",
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-123");
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(checkResponse("ObserveResponseData", await res.json())).toEqual([]);
    const generated = await post(
      h,
      "observe",
      { agentId: A, roomId: "lobby", radius: 10, detail: "lite" },
      "tok-helper",
      {
        "x-request-id": "bad id with spaces",
      },
    );
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("auth: 401 without/unknown token, 403 for another agent's id", async () => {
    const h = await harness();
    const body = { agentId: A, roomId: "lobby", radius: 10, detail: "lite" };
    for (const token of ["", "nope"]) {
      const res = await post(h, "observe", body, token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/Bearer/);
      const json = await res.json();
      expect(json).toMatchObject({ status: "error", error: { code: "unauthorized", retryable: false } });
      expect(checkResponse("ObserveResponseData", json)).toEqual([]);
    }
    const forbidden = await post(h, "observe", body, "tok-other");
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: "forbidden" } });
    const sse = await fetch(`${h.base}/events/stream?roomId=lobby&agentId=${A}`, {
      headers: { authorization: "Bearer tok-other" },
    });
    expect(sse.status).toBe(403);
  });

  it("framing: malformed JSON 400, >64 KB 413, unknown path 404, wrong method 405, all wrapped", async () => {
    const h = await harness();
    const malformed = await post(h, "observe", "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ status: "error", error: { code: "bad_request" } });
    const big = await post(h, "chatSend", {
      agentId: A,
      roomId: "lobby",
      txId: "tx_bigbody_01",
      channel: "global",
      message: "x".repeat(70_000),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ status: "error", error: { code: "bad_request" } });
    const schemaFail = await post(h, "observe", { agentId: A, roomId: "lobby", radius: 0, detail: "full" });
    expect(schemaFail.status).toBe(400);
    const unknown = await post(h, "teleport", {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: "error", error: { code: "not_found" } });
    const outside = await fetch(h.base.replace("/aic/v0.1", "/elsewhere"));
    expect(outside.status).toBe(404);
    const wrongMethod = await fetch(`${h.base}/observe`, { headers: { authorization: "Bearer tok-helper" } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toMatchObject({ status: "error" });
    expect(h.logs).toEqual([]);
  });

  it("serves the generated OpenAPI document", async () => {
    const h = await harness();
    const res = await fetch(`${h.base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(
      readFileSync(new URL("../../../docs/aic/v0.1/openapi.json", import.meta.url), "utf8"),
    );
  });

  it("idempotency over HTTP: byte-identical replay (ok and error), conflict on another payload", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const send = async (body: unknown) => {
      const res = await stepUntilAnswered(h, post(h, "moveTo", body));
      expect(res.status).toBe(200);
      return res.text();
    };
    const ok = { agentId: A, roomId: "lobby", txId: "tx_http_ok_01", dest: { tx: 22, ty: 14 } };
    const first = await send(ok);
    expect(JSON.parse(first)).toMatchObject({ status: "ok", data: { applied: true } });
    expect(await send(ok)).toBe(first);
    const bad = { agentId: A, roomId: "lobby", txId: "tx_http_err_1", dest: { tx: 0, ty: 0 } };
    const err = await send(bad);
    expect(JSON.parse(err)).toMatchObject({ status: "error", error: { code: "collision_blocked" } });
    expect(await send(bad)).toBe(err);
    expect(JSON.parse(await send({ ...ok, dest: { tx: 23, ty: 14 } }))).toMatchObject({
      error: { code: "conflict" },
    });
  });

  it("POST /memory/reflect: stored, byte-identical on retry; 403 for another agent's id; 405 on GET; /reflect is no endpoint", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const send = async (body: unknown, token = "tok-helper") => {
      const res = await stepUntilAnswered(h, post(h, "memory/reflect", body, token));
      return { status: res.status, text: await res.text() };
    };
    const body = { agentId: A, roomId: "lobby", txId: "tx_http_reflect", content: "noted", importance: 0.4 };
    const first = await send(body);
    expect(first.status).toBe(200);
    expect(checkResponse("ReflectResponseData", JSON.parse(first.text), { oracle: false })).toEqual([]);
    expect(JSON.parse(first.text)).toMatchObject({
      status: "ok",
      data: { reflection: { content: "noted" } },
    });
    expect(await send(body)).toEqual(first);
    expect(h.env.world.memoryOf(`agt_${A}`)!.reflections).toHaveLength(1);
    const forbidden = await send({ ...body, agentId: B });
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.text)).toMatchObject({ error: { code: "forbidden" } });
    const tooLong = await send({ ...body, txId: "tx_http_reflect_long", content: "x".repeat(1001) });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text)).toMatchObject({ error: { code: "bad_request" } });
    const get = await fetch(`${h.base}/memory/reflect`, { headers: { authorization: "Bearer tok-helper" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await post(h, "reflect", body)).status).toBe(404);
    expect(h.env.world.memoryOf(`agt_${B}`)).toBeUndefined();
  });

  it("a world that is stopping (a reload) answers retryable with Retry-After; a refusal for good has none", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const refused = await post(h, "observe", { agentId: B, roomId: "lobby", radius: 10, detail: "lite" });
    expect(((await refused.json()) as { error: { retryable: boolean } }).error.retryable).toBe(false);
    expect(refused.headers.get("retry-after")).toBeNull();
    h.handler.close();
    const stopping = await post(h, "observe", { agentId: A, roomId: "lobby", radius: 10, detail: "lite" });
    expect(stopping.headers.get("retry-after")).toBe("1");
    expect(await stopping.json()).toMatchObject({ error: { code: "room_not_ready", retryable: true } });
  });

  it("429 with Retry-After (seconds, ceil) and retryable", async () => {
    const h = await harness({
      rateLimits: { classes: { observe: { perSec: 0.5, burst: 2 } } },
      limiterNow: () => 0,
    });
    await joinOverHttp(h);
    const body = { agentId: A, roomId: "lobby", radius: 10, detail: "lite" };
    expect((await post(h, "observe", body)).status).toBe(200);
    expect((await post(h, "observe", body)).status).toBe(200);
    const limited = await post(h, "observe", body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.json()).toMatchObject({
      error: { code: "rate_limited", retryable: true, details: { retryAfterMs: 2000 } },
    });
  });

  it("long-poll wakes on the tick with a visible event; client disconnect aborts the parked poll", async () => {
    const h = await harness();
    await joinOverHttp(h);
    await joinOverHttp(h, B, "tok-other");
    const start = (await (
      await post(h, "pollEvents", { agentId: A, roomId: "lobby", sinceCursor: "c_0", limit: 200 })
    ).json()) as {
      data: { nextCursor: string };
    };
    const baseline = listenerCount(h.env);
    const parked = post(h, "pollEvents", {
      agentId: A,
      roomId: "lobby",
      sinceCursor: start.data.nextCursor,
      waitMs: 20000,
    });
    await until(() => listenerCount(h.env) === baseline + 1);
    const chat = post(
      h,
      "chatSend",
      { agentId: B, roomId: "lobby", txId: "tx_http_wake1", channel: "global", message: "wake" },
      "tok-other",
    );
    await until(() => h.env.runtime.health().queueDepth > 0);
    h.env.runtime.stepNow();
    const woke = await (await parked).json();
    expect(woke.data.events.map((e: { type: string }) => e.type)).toEqual(["chat.message"]);
    expect(checkResponse("PollEventsResponseData", woke)).toEqual([]);
    await chat;
    expect(listenerCount(h.env)).toBe(baseline);

    const controller = new AbortController();
    const abandoned = fetch(`${h.base}/pollEvents`, {
      method: "POST",
      headers: { authorization: "Bearer tok-helper", "content-type": "application/json" },
      body: JSON.stringify({ agentId: A, roomId: "lobby", sinceCursor: woke.data.nextCursor, waitMs: 25000 }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await until(() => listenerCount(h.env) === baseline + 1);
    controller.abort();
    await abandoned;
    await until(() => listenerCount(h.env) === baseline);
  });

  it("SSE: data lines carry EventEnvelope, id the cursor; heartbeats; resume via Last-Event-ID; close() ends it", async () => {
    const h = await harness({ sseHeartbeatMs: 20 });
    await joinOverHttp(h);
    await joinOverHttp(h, B, "tok-other");
    const say = async (message: string, n: number) => {
      const p = post(
        h,
        "chatSend",
        { agentId: B, roomId: "lobby", txId: `tx_sse_msg_0${n}`, channel: "global", message },
        "tok-other",
      );
      await until(() => h.env.runtime.health().queueDepth > 0);
      h.env.runtime.stepNow();
      await p;
    };
    await say("one", 1);
    const res = await fetch(`${h.base}/events/stream?roomId=lobby&agentId=${A}&sinceCursor=c_0`, {
      headers: { authorization: "Bearer tok-helper" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    const decoder = new TextDecoder();
    const readUntil = async (predicate: (t: string) => boolean) => {
      while (!predicate(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil((t) => t.includes('"message":"one"'));
    await say("two", 2);
    await readUntil((t) => t.includes('"message":"two"') && t.includes(": heartbeat"));
    const frames = text.split("\n\n").filter((f) => f.includes("data: "));
    const parsed = frames.map((f) => ({
      id: /^id: (.+)$/m.exec(f)?.[1],
      data: JSON.parse(/^data: (.+)$/m.exec(f)![1]!),
    }));
    for (const frame of parsed) {
      expect(frame.id).toBe(frame.data.cursor);
      expect(
        checkResponse("PollEventsResponseData", {
          status: "ok",
          data: { events: [frame.data], nextCursor: frame.id, serverTsMs: 0 },
        }),
      ).toEqual([]);
    }
    const afterOne = parsed.find((f) => f.data.payload.message === "one")!.id!;
    h.handler.close();
    await readUntil(() => false); // ends when the server closes the stream

    // Resume: Last-Event-ID wins over sinceCursor; only "two" follows "one".
    const resumed = await harnessFrom(h, afterOne);
    expect(resumed).toContain('"message":"two"');
    expect(resumed).not.toContain('"message":"one"');
  });

  it("fuzz: random raw bodies on every endpoint never give a 5xx and always the wrapper", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const endpoints = [
      "observe",
      "moveTo",
      "interact",
      "chatSend",
      "chatObserve",
      "pollEvents",
      "join",
      "leave",
      "memory/reflect",
      "memory/nope",
      "nope",
    ];
    const body = fc.oneof(
      anyText({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ agentId: A, roomId: "lobby", extra: v })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), body, fc.boolean(), async (endpoint, text, auth) => {
        const res = await post(h, endpoint, text, auth ? "tok-helper" : "");
        expect(res.status).toBeLessThan(500);
        const json = await res.json();
        // Nothing random is a valid request, so every answer is an error wrapper valid per schema.
        expect(json.status).toBe("error");
        expect(checkResponse("ObserveResponseData", json)).toEqual([]);
      }),
      { numRuns: 400 },
    );
    expect(h.logs).toEqual([]);
  });

  it("GET /status answers liveness without credentials (the PRD reference client's health check)", async () => {
    const h = await harness();
    const res = await fetch(`${h.base}/status`);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toMatchObject({
      status: "ok",
      data: { aicVersion: "0.1", running: true, rooms: expect.arrayContaining(["lobby"]), tickRate: 20 },
    });
    expect(checkResponse("AicStatusData", json, { oracle: false })).toEqual([]);
    expect(JSON.stringify(json)).not.toMatch(/error|token/i);
    const wrongMethod = await fetch(`${h.base}/status`, { method: "POST" });
    expect(wrongMethod.status).toBe(405);
    h.handler.close();
    const closed = await fetch(`${h.base}/status`);
    expect((await closed.json()).status).toBe("error");
  });

  it("the join answer carries heartbeat setup for external agents (seed 003): snippet, interval, instructions", async () => {
    const h = await harness();
    const joined = (await joinOverHttp(h)) as {
      status: string;
      data: { heartbeatSetup: Record<string, string> };
    };
    const setup = joined.data.heartbeatSetup;
    expect(Object.keys(setup).sort()).toEqual(["instructions", "interval", "workspaceSnippet"]);
    expect(setup.workspaceSnippet).toMatch(/^## OpenClawWorld \(every heartbeat\)/);
    expect(setup.workspaceSnippet).toContain(`POST /aic/v0.1/heartbeat {"agentId":"${A}","roomId":"lobby"`);
    expect(setup.interval).toMatch(/seconds/);
    expect(setup.instructions).toMatch(/HEARTBEAT\.md/);
  });

  it("GET /heartbeat is the heartbeat without an action (seed 003, heartbeat_get_still_works)", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const auth = { authorization: "Bearer tok-helper" };
    const byPost = (await (await post(h, "heartbeat", { agentId: A, roomId: "lobby" })).json()) as {
      data: { contextToken: string };
    };
    const got = await fetch(`${h.base}/heartbeat?roomId=lobby`, { headers: auth });
    expect(got.status).toBe(200);
    const byGet = (await got.json()) as { status: string; data: Record<string, unknown> };
    // The same answer as POST (the same format; the token differs only by being issued again).
    expect(Object.keys(byGet.data).sort()).toEqual(Object.keys(byPost.data).sort());
    const next = await fetch(
      `${h.base}/heartbeat?agentId=${A}&roomId=lobby&memory=5&contextToken=${encodeURIComponent(byPost.data.contextToken)}`,
      { headers: auth },
    );
    expect(next.status).toBe(200);
    expect(((await next.json()) as { data: { reset?: boolean } }).data.reset).toBeUndefined();
    // What only POST may carry, a bad value, another agent, no credential: typed refusals.
    for (const [query, status, code] of [
      ["roomId=lobby&action=%7B%7D", 400, "bad_request"],
      ["roomId=lobby&memory=lots", 400, "bad_request"],
      ["roomId=lobby&roomId=garden", 400, "bad_request"],
      [`roomId=lobby&agentId=${B}`, 403, "forbidden"],
    ] as const) {
      const res = await fetch(`${h.base}/heartbeat?${query}`, { headers: auth });
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ status: "error", error: { code } });
    }
    expect((await fetch(`${h.base}/heartbeat?roomId=lobby`)).status).toBe(401);
    const put = await fetch(`${h.base}/heartbeat`, { method: "PUT", headers: auth });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
    expect(h.logs).toEqual([]);
  });

  it("routing: a trailing slash and a query string reach the endpoint; HEAD reads; other methods 405; a second request on the same connection is answered", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const body = { agentId: A, roomId: "lobby", radius: 10, detail: "lite" };
    for (const path of ["observe/", "observe?debug=1"]) {
      const res = await post(h, path, body);
      expect(res.status).toBe(200);
      expect(checkResponse("ObserveResponseData", await res.json())).toEqual([]);
    }
    const head = await fetch(`${h.base}/status`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const [path, method, allow] of [
      ["openapi.json", "DELETE", "GET"],
      ["events/stream", "POST", "GET"],
      ["observe", "PUT", "POST"],
    ] as const) {
      const res = await fetch(`${h.base}/${path}`, {
        method,
        headers: { authorization: "Bearer tok-helper" },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect(await res.json()).toMatchObject({ status: "error", error: { code: "not_found" } });
    }
    // Names are exact: another case or an encoded letter is no endpoint (and no body is read).
    for (const path of ["Observe", "obs%65rve", "observe/extra", ""]) {
      const res = await post(h, path, body);
      expect(res.status).toBe(404);
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(h.logs).toEqual([]);
  });

  it("fuzz: invalid Unicode (bad UTF-8 bytes, escaped lone surrogates) is 400 bad_request and never stored", async () => {
    const h = await harness();
    await joinOverHttp(h);
    const raw = (endpoint: string, body: Uint8Array) =>
      fetch(`${h.base}/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer tok-helper" },
        body: new Uint8Array(body),
      });
    const requests: Record<string, Record<string, unknown>> = {
      chatSend: { agentId: A, roomId: "lobby", txId: "tx_unicode_fuzz_1", channel: "global", message: "@" },
      interact: {
        agentId: A,
        roomId: "lobby",
        txId: "tx_unicode_fuzz_2",
        targetId: "obj_sign_welcome",
        action: "@",
      },
      moveTo: {
        agentId: A,
        roomId: "lobby",
        txId: "tx_unicode_fuzz_3",
        dest: { tx: 3, ty: 3 },
        expect: { objectState: { objectId: "obj_door_1", field: "@", equals: "@" } },
      },
      observe: { agentId: A, roomId: "lobby", radius: 10, detail: "lite", "@": 1 },
    };
    // Invalid UTF-8: overlong "/", a UTF-8-encoded surrogate (CESU-8), stray continuation, bytes that
    // never occur, a truncated 3-byte sequence, a code point above U+10FFFF.
    const badBytes = fc.constantFrom(
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0x80],
      [0xff],
      [0xfe],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
    );
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => `\\u${u.toString(16)}`);
    const text = fc.string({ maxLength: 8 }).map((t) => JSON.stringify(t).slice(1, -1));
    const body = fc.oneof(
      fc
        .tuple(fc.constantFrom(...Object.keys(requests)), text, badBytes, text)
        .map(([endpoint, pre, bytes, post]) => {
          const [before, after] = JSON.stringify(requests[endpoint]).split("@", 2) as [string, string];
          const encoder = new TextEncoder();
          return {
            endpoint,
            bytes: Buffer.concat([
              encoder.encode(before + pre),
              Buffer.from(bytes),
              encoder.encode(post + after),
            ]),
          };
        }),
      fc
        .tuple(fc.constantFrom(...Object.keys(requests)), text, loneSurrogate, text)
        .map(([endpoint, pre, esc, post]) => ({
          endpoint,
          bytes: Buffer.from(JSON.stringify(requests[endpoint]).replace("@", `${pre}${esc}${post}`), "utf8"),
        })),
    );
    await fc.assert(
      fc.asyncProperty(body, async ({ endpoint, bytes }) => {
        const res = await raw(endpoint, bytes);
        const json = await res.json();
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(json).toMatchObject({ status: "error", error: { code: "bad_request", retryable: false } });
        expect(checkResponse("ObserveResponseData", json)).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // Nothing was queued or stored: the world still hashes, and its chat log is empty.
    expect(h.env.runtime.health().queueDepth).toBe(0);
    expect(() => h.env.world.snapshotHash()).not.toThrow();
    expect(h.env.world.chatFor(`agt_${A}`, "lobby", 0)).toEqual([]);
    expect(h.logs).toEqual([]);
  });
});

/** A second adapter on the same env; reads one resumed batch via Last-Event-ID. */
async function harnessFrom(h: Harness, lastEventId: string): Promise<string> {
  const handler = createAicHttpHandler({
    service: h.env.service,
    tokens: (t) => TOKENS[t],
    logger: silentLogger,
  });
  const server = createServer((req, res) => void handler.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(
      `http://127.0.0.1:${port}/aic/v0.1/events/stream?roomId=lobby&agentId=${A}&sinceCursor=c_0`,
      {
        headers: { authorization: "Bearer tok-helper", "last-event-id": lastEventId },
      },
    );
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"message":"two"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    handler.close();
    return text;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
