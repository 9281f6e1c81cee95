// A plugin config change on a running gateway reloads the plugin in place (issue #25, item 4): the
// gateway waits for the old instance's running calls, stops its service, and starts the new one. It
// once left the world stopped ("1 still-running call(s)", "plugin host cleanup timed out"; tools
// "not available", AIC 500 until a restart). Here the config changes twice in a row while an AIC
// agent long-polls and holds an SSE stream, a gateway agent long-polls through a tool, and a human
// is connected over the WebSocket; after each change the world runs, tools and AIC answer, and the
// new config is the one in force. A gateway of its own: the shared e2e gateway must not be reloaded.
// Then (issue #45) callers that leave requests unfinished: a browser that goes away in the middle of
// the client bundle once held the reload for its 60 s and left the old plugin in place ("admitted
// work did not settle"), every door down meanwhile; half-sent bodies and unread answers are there too.
// Last, a hostile tester's mix (issue #53): a resident's turn stalled on a silent model, an SSE stream,
// a long poll, a refused gzip bomb and malformed requests (450; OCW_MIX_REQUESTS=4500 sends the issue's
// count), then an agent added to the config.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { randomToken } from "../../scripts/lib/gateway.ts";
import { deepMerge } from "../../scripts/lib/merge.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { namedFetch } from "../support/named-fetch.ts";
import { type ScriptedModel, startScriptedModel } from "../support/scripted-model.ts";
import { until } from "../support/wait.ts";

const POLLER = "agent_poller";
const pollerToken = randomToken();
/** A resident woken by its name only (the mix test stalls its turn on a silent model). */
const STALLER = { agentId: "staller", name: "Stiller" };
let gw: TestGateway;
let model: ScriptedModel | undefined;

beforeAll(async () => {
  model = await startScriptedModel();
  gw = await startGateway({
    pluginConfig: {
      agents: { [POLLER]: { token: pollerToken, name: "Poller" } },
      residents: {
        [STALLER.agentId]: {
          name: STALLER.name,
          home: { roomId: "lobby", tx: 44, ty: 24 },
          wake: { nearby: false, name: true, approach: false },
          minIntervalSec: 1,
          turnTimeoutSec: 600,
        },
      },
    },
    // A resident is a gateway agent the world wakes: it is in the gateway's roster too.
    agentIds: ["reloader", STALLER.agentId],
    gatewayConfig: deepMerge(model.providerConfig(), {
      agents: { defaults: { heartbeat: { every: "0m" } } },
    }),
  });
});

afterAll(async () => {
  await gw?.stop();
  await model?.close();
});

function aic(endpoint: string, body: unknown, signal?: AbortSignal) {
  return namedFetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${pollerToken}` },
    body: JSON.stringify({ agentId: POLLER, roomId: "lobby", ...(body as object) }),
    ...(signal ? { signal } : {}),
  });
}

async function invokeTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const res = await namedFetch(`${gw.baseUrl}/tools/invoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, args, agentId: "reloader" }),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/** Traffic that keeps calls in flight across a reload, until `signal` stops it; `open` says which of
 * its streams are open (the SSE stream answered, the human on the WebSocket welcomed). */
function traffic(signal: AbortSignal) {
  const loops: Promise<void>[] = [];
  const open = { sse: false, ws: false };
  // Each step again, a moment after the last one ended (a refused or reset call is tried again
  // too), until the signal stops the traffic.
  const forever = (step: () => Promise<unknown>) =>
    loops.push(
      until(
        "the traffic to stop",
        async () => {
          await step().catch(() => undefined);
          return signal.aborted;
        },
        { timeoutMs: Number.POSITIVE_INFINITY, everyMs: 100 },
      ).then(() => undefined),
    );
  // An AIC agent parked in long-polls (each waits up to 20 s for an event).
  forever(async () => {
    const res = await aic("pollEvents", { sinceCursor: "c_0", waitMs: 20_000 }, signal);
    await res.body?.cancel();
  });
  // The same agent's SSE stream, reopened when it ends.
  forever(async () => {
    const res = await fetch(`${gw.baseUrl}/aic/v0.1/events/stream?roomId=lobby&agentId=${POLLER}`, {
      headers: { authorization: `Bearer ${pollerToken}` },
      signal,
    });
    open.sse = true;
    await res.body?.pipeTo(new WritableStream());
  });
  // A gateway agent long-polling through its tool.
  forever(async () => {
    await invokeTool("ocw_poll_events", { waitMs: 20_000 }, signal);
  });
  // A human on the WebSocket, reconnecting when the socket is closed.
  forever(
    () =>
      new Promise<void>((resolve) => {
        const ws = new WebSocket(`${gw.baseUrl.replace(/^http/, "ws")}/world/ws`);
        const done = () => resolve();
        ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: "Reload Watcher" })));
        // Text frames are JSON; the actors' deltas come as binary frames.
        ws.on("message", (data, binary) => {
          if (!binary && (JSON.parse(String(data)) as { type?: string }).type === "welcome") open.ws = true;
        });
        ws.once("close", done);
        ws.once("error", done);
        signal.addEventListener("abort", () => ws.close(), { once: true });
      }),
  );
  return { open, stopped: () => Promise.all(loops) };
}

/** Edits the plugin's config in the file the gateway watches. */
async function changePluginConfig(edit: (config: Record<string, unknown>) => void): Promise<void> {
  const file = JSON.parse(await readFile(gw.configPath, "utf8")) as {
    plugins: { entries: Record<string, { config: Record<string, unknown> }> };
  };
  edit(file.plugins.entries.openclawworld!.config);
  await writeFile(gw.configPath, `${JSON.stringify(file, null, 2)}\n`);
}

/** Waits until the tools report `enabled` for the agent: the new config is in force. */
async function untilToolsSee(enabled: string[], timeoutMs = 150_000): Promise<void> {
  await until(
    `the reload to take effect (tools enabled: ${enabled})`,
    async () => {
      const status = await invokeTool("ocw_status", {});
      const caller = (status.body.result as { details?: { caller?: { enabledOptionalTools?: string[] } } })
        ?.details?.caller;
      return (
        (status.status === 200 && JSON.stringify(caller?.enabledOptionalTools) === JSON.stringify(enabled)) ||
        undefined
      );
    },
    { timeoutMs, everyMs: 1000, ignoreErrors: true },
  ).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; ${await logOnFailure("hot-reload-tools")}`);
  });
}

/** What the three doors answer now: the world's status, a tool, an AIC read. */
async function doorsAnswer(): Promise<string[]> {
  const wrong: string[] = [];
  const statusRes = await namedFetch(`${gw.baseUrl}/world/api/status`);
  const statusText = await statusRes.text();
  if (statusRes.status !== 200 || !(JSON.parse(statusText) as { running?: boolean }).running)
    wrong.push(`status ${statusRes.status} ${statusText.slice(0, 200)}`);
  const observed = await invokeTool("ocw_observe", { radius: 64 });
  if (observed.status !== 200) wrong.push(`ocw_observe ${observed.status} ${JSON.stringify(observed.body)}`);
  const res = await aic("observe", { radius: 64, detail: "lite" });
  const body = await res.text();
  if (res.status !== 200 || (JSON.parse(body) as { status?: string }).status !== "ok")
    wrong.push(`AIC observe ${res.status} ${body.slice(0, 200)}`);
  return wrong;
}

/** The world answers at every door within 30 s. Not at once: while a reload ends, the gateway holds
 * requests for 2-5 s and answers some of them itself, routes with a plain 500 (the old instance's
 * PluginInstanceUnavailableError), tools with "not available", and it destroys a connection whose
 * answer had begun (an ECONNRESET failed this test once); see docs/operating.md, "Changing the plugin
 * config". The tools seeing the new config does not mean the last of those is over. */
async function worldAnswers(): Promise<void> {
  await vi.waitFor(
    async () => {
      const wrong = await doorsAnswer();
      if (wrong.length > 0) throw new Error(`not every door answered: ${wrong.join("; ")}`);
    },
    { timeout: 30_000, interval: 500 },
  );
}

/** Each case below begins with a world that answers: a reload an earlier case began may still be
 * applying on a busy machine (seen: 74 s at load 8), and that is the earlier case's failure, not
 * this one's. */
beforeEach(async () => {
  await vi
    .waitFor(
      async () => {
        const joined = await aic("join", {});
        const wrong = joined.status === 200 ? await doorsAnswer() : [`AIC join ${joined.status}`];
        if (wrong.length > 0) throw new Error(`not every door answered: ${wrong.join("; ")}`);
      },
      { timeout: 180_000, interval: 1000 },
    )
    .catch(async (error: unknown) => {
      throw new Error(`${String(error)}; ${await logOnFailure("hot-reload-before-case")}`);
    });
}, 200_000);

// First in the file: the gateway fresh, as the hostile tester found it (after the reloads below, a
// resident woken while the gateway still drained a retired plugin generation failed its turn once).
describe("hot reload after a hostile tester's mix", () => {
  it("after a stalled resident turn, an open SSE stream, a long poll, a refused gzip bomb and malformed requests, an added agent is in force, nothing is retired by force, and the world runs", async () => {
    const mark = await gw.logMark();
    const began = Date.now();
    const phase = (what: string) => console.log(`hostile mix: ${what} at ${Date.now() - began} ms`);
    expect((await aic("join", {})).status).toBe(200);
    // A resident's turn waiting on a model that answers only after two minutes.
    model!.define("stall", [{ text: "Too late.", delayMs: 120_000 }]);
    let hellos = 0;
    let lastHelloAt = 0;
    const hello = async () => {
      hellos += 1;
      lastHelloAt = Date.now();
      const said = await aic("chatSend", {
        txId: `tx_mix_${Date.now()}_${hellos}`,
        channel: "global",
        message: `${STALLER.name}, hello ocw-scenario:stall`,
      });
      expect(said.status).toBe(200);
    };
    await hello();
    // Its turn is in flight once it is thinking: first the gateway's preparation (a minute and more on a
    // loaded machine), then the model's silence; either is work a reload must cut. A turn woken while
    // the gateway still drains the plugin generation the earlier tests retired fails ("Gateway is
    // draining; new tasks are not accepted"): the person says hello again, as a person would.
    let resident: { state?: string; failing?: { error?: string } } | string | undefined;
    await until(
      "the resident's turn is in flight",
      async () => {
        if (model!.requests("stall").length > 0) return true;
        resident = (await residentStatus(STALLER.agentId).catch((error: unknown) => String(error))) as
          | { state?: string; failing?: { error?: string } }
          | string;
        if (typeof resident !== "object") return false;
        if (resident.state === "failing" && Date.now() - lastHelloAt > 5_000) await hello();
        return resident.state === "thinking" || resident.state === "recovering";
      },
      { timeoutMs: 180_000, everyMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)} (${hellos} hellos); the resident's status: ${JSON.stringify(resident)}`,
      );
    });
    phase("the resident's turn is in flight");

    const stop = new AbortController();
    const sse = namedFetch(`${gw.baseUrl}/aic/v0.1/events/stream?roomId=lobby&agentId=${POLLER}`, {
      headers: { authorization: `Bearer ${pollerToken}` },
      signal: stop.signal,
    }).then(
      (res) => res.body?.pipeTo(new WritableStream()).catch(() => undefined),
      () => undefined,
    );
    const poll = aic("pollEvents", { sinceCursor: "c_0", waitMs: 20_000 }, stop.signal).then(
      (res) => res.text(),
      () => undefined,
    );
    try {
      // A replay file whose ticks are a gzip bomb (1 GiB of zeros in ~1 MiB) is refused, typed.
      const admin = { authorization: `Bearer ${gw.gatewayToken}` };
      const exported = await namedFetch(`${gw.baseUrl}/openclawworld/admin/replay/export?lastMinutes=1`, {
        headers: admin,
      });
      expect(exported.status).toBe(200);
      const file = ((await exported.json()) as { data: Record<string, unknown> }).data;
      const bombed = await namedFetch(`${gw.baseUrl}/openclawworld/admin/replay/open`, {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify({ ...file, ticks: zerosGzipped(1024 * 1024 * 1024).toString("base64") }),
      });
      expect([bombed.status, ((await bombed.json()) as { error?: { code?: string } }).error?.code]).toEqual([
        413,
        "too_large",
      ]);

      phase("the gzip bomb refused");
      // Malformed requests at every door, 16 at a time: each answered, none with a 5xx. The issue's
      // 4,500 took 4.5 minutes at load 12; the suite sends a tenth (OCW_MIX_REQUESTS=4500 for all).
      const answers = await malformedRequests(Number(process.env.OCW_MIX_REQUESTS ?? 450), 16);
      expect(answers.failed).toEqual([]);
      expect(answers.fiveHundreds).toEqual([]);

      phase("the malformed requests answered");
      // Then an agent is added to the running gateway's config.
      const added = { id: "agent_added", token: randomToken() };
      const changedAt = Date.now();
      await changePluginConfig((config) => {
        (config.agents as Record<string, unknown>)[added.id] = { token: added.token, name: "Added" };
      });
      await until(
        "the added agent is in force (it joins with its token)",
        async () => {
          // A request the gateway holds while a reload ends is asked again, not waited on for good.
          const res = await fetch(`${gw.baseUrl}/aic/v0.1/join`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${added.token}` },
            body: JSON.stringify({ agentId: added.id, roomId: "lobby" }),
            signal: AbortSignal.timeout(10_000),
          });
          return res.status === 200;
        },
        // How soon is a figure (idle: 9 s; beside the e2e lane at load 8: 15 s, once 32 s), not this
        // test's to hold; it holds that the change takes effect and nothing is retired by force.
        { timeoutMs: 120_000, everyMs: 250, ignoreErrors: true },
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; ${await logOnFailure("hot-reload-mix")}`);
      });
      console.log(
        `hostile mix: the added agent was in force ${Date.now() - changedAt} ms after the config change`,
      );
      await worldAnswers();
    } finally {
      stop.abort();
      await Promise.all([sse, poll]);
    }
    expect(await gw.log(mark)).not.toMatch(
      /did not settle|still-running call|plugin host cleanup timed out|forced retirement|started none again/,
    );
  }, 600_000);
});

/** What a failure keeps of the gateway's logs (the test's gateway folder goes with the test): both in
 * .test-artifacts/, and for the message OpenClaw's lines on reloads, retirements and restarts (not
 * the requests it turned away meanwhile), then the last lines. */
async function logOnFailure(name: string): Promise<string> {
  const log = await gw.log();
  await mkdir(".test-artifacts", { recursive: true });
  await writeFile(`.test-artifacts/${name}.log`, log);
  const lines = log.split("\n").map(readable);
  const telling = lines
    .filter((line) => /reload|restart|retire|drain|cleanup|still-running|shutdown|stopped|exit/i.test(line))
    .filter((line) => !/reloaded or disabled/.test(line))
    .slice(-40);
  return `the gateway's logs (whole in .test-artifacts/${name}.log), on reloads and restarts:\n${telling.join("\n")}\nand the last lines:\n${lines.slice(-15).join("\n")}`;
}

/** One line of OpenClaw's log (JSON: the message under "1" or "2", the time in _meta) as "time message". */
function readable(line: string): string {
  try {
    const entry = JSON.parse(line) as Record<string, unknown> & { _meta?: { date?: string } };
    const message = [entry["1"], entry["2"]].filter((part) => typeof part === "string").join(" ");
    return `${entry._meta?.date ?? ""} ${message || line}`.slice(0, 400);
  } catch {
    return line.slice(0, 400);
  }
}

async function residentStatus(agentId: string): Promise<unknown> {
  const res = await namedFetch(`${gw.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
  });
  const status = (await res.json()) as { data?: { residents?: { agentId: string }[] } };
  return status.data?.residents?.find((r) => r.agentId === agentId);
}

describe("hot reload under traffic", () => {
  it("two config changes in a row leave the world running: status, tools and AIC answer; a follow link minted before still opens", async () => {
    const mark = await gw.logMark();
    expect((await aic("join", {})).status).toBe(200);
    await worldAnswers();
    const minted = await fetch(`${gw.baseUrl}/openclawworld/admin/follow/link`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
      body: JSON.stringify({ agentId: POLLER }),
    });
    expect(minted.status, await minted.clone().text()).toBe(200);
    const { url } = ((await minted.json()) as { data: { url: string } }).data;
    const followKey = new URLSearchParams(new URL(url).hash.slice(1)).get("key")!;
    const stop = new AbortController();
    const running = traffic(stop.signal);
    try {
      // Everything is parked or open before the first change.
      await vi.waitFor(() => expect(running.open).toEqual({ sse: true, ws: true }), {
        timeout: 60_000,
        interval: 100,
      });
      await changePluginConfig((config) => {
        config.tools = { perAgent: { reloader: { enabled: ["ocw_chat_send"] } } };
      });
      await untilToolsSee(["ocw_chat_send"]);
      await worldAnswers();
      await changePluginConfig((config) => {
        config.tools = { perAgent: { reloader: { enabled: ["ocw_move_to", "ocw_chat_send"] } } };
      });
      await untilToolsSee(["ocw_move_to", "ocw_chat_send"]);
      await worldAnswers();
      // The link outlived the two worlds the reloads retired (kept in the state folder).
      const view = await fetch(`${gw.baseUrl}/openclawworld/follow/api/view`, {
        headers: { "x-ocw-follow-key": followKey },
      });
      expect(view.status, await view.clone().text()).toBe(200);
    } finally {
      stop.abort();
      await running.stopped();
    }
    expect(await gw.log(mark)).not.toMatch(
      /still-running call|plugin host cleanup timed out|forced retirement|started none again/,
    );
  }, 420_000);

  it("requests their callers leave unfinished, and long calls held across it, do not hold a reload: the new config is in force, every door answers", async () => {
    const mark = await gw.logMark();
    const opened = await leaveRequestsUnfinished();
    // Long calls in flight when the config changes: a gateway agent's tool long-poll (a call the
    // gateway counts until it settles, as a resident's tool call in a turn) and an AIC long-poll.
    const heldTool = invokeTool("ocw_poll_events", { waitMs: 20_000 }).catch(() => undefined);
    const heldAic = aic("pollEvents", { sinceCursor: "c_0", waitMs: 20_000 }).then(
      (res) => res.text(),
      () => undefined,
    );
    try {
      await changePluginConfig((config) => {
        config.tools = { perAgent: { reloader: { enabled: ["ocw_reflect"] } } };
      });
      // The gateway lets a tool call in flight end before it stops the world (nothing tells the
      // plugin a reload began: docs/operating.md). A request that held the reload would show in the
      // log as work that "did not settle" (60 s): how soon the change is in force is a figure
      // (printed), not this test's to hold.
      await heldTool;
      const heldEndedAt = Date.now();
      await untilToolsSee(["ocw_reflect"], 120_000);
      console.log(
        `unfinished requests: the change in force ${Date.now() - heldEndedAt} ms after the held call ended`,
      );
      await worldAnswers();
      // The AIC long-poll was answered (cut by the stopping world, or its wait over), not left hanging.
      await heldAic;
      // The half-sent AIC body is answered (typed, retryable) once its deadline passes, not held.
      const answer = await opened.halfSentAicAnswer;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"code":"timeout"');
      expect(answer).toContain('"retryable":true');
    } finally {
      for (const socket of opened.sockets) socket.destroy();
    }
    expect(await gw.log(mark)).not.toMatch(
      /did not settle|still-running call|plugin host cleanup timed out|forced retirement|started none again/,
    );
  }, 420_000);
});

/** A gzip of `bytes` zero bytes: one member of 16 MiB repeated (gunzip reads the members one after
 * another), so making it costs one 16 MiB compression. */
function zerosGzipped(bytes: number): Buffer {
  const memberBytes = 16 * 1024 * 1024;
  const member = gzipSync(Buffer.alloc(memberBytes), { level: 9 });
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / memberBytes) }, () => member));
}

/** `count` malformed requests, `parallel` at a time, across the plugin's doors (bad JSON, wrong
 * fields, unknown endpoints, no or a wrong token, bad queries): what failed to get an answer, and
 * which answered with a 5xx. */
async function malformedRequests(count: number, parallel: number) {
  const aicPost = (endpoint: string, body: string, token = pollerToken) => ({
    path: `/aic/v0.1/${endpoint}`,
    init: {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    },
  });
  const kinds: { path: string; init?: RequestInit }[] = [
    aicPost("observe", "{"),
    aicPost("moveTo", JSON.stringify({ agentId: POLLER, roomId: "lobby", txId: 7, dest: "here" })),
    aicPost("chatSend", JSON.stringify({ agentId: POLLER, roomId: "lobby", message: "x".repeat(5000) })),
    aicPost("observe", JSON.stringify({ agentId: "agent_nobody", roomId: "lobby" })),
    aicPost("observe", JSON.stringify({ agentId: POLLER, roomId: "lobby" }), "wrong-token"),
    aicPost("noSuchEndpoint", "{}"),
    aicPost("pollEvents", JSON.stringify({ agentId: POLLER, roomId: "lobby", sinceCursor: "zz" })),
    { path: "/aic/v0.1/observe?radius=-1" },
    { path: "/openclawworld/admin/status", init: { headers: { authorization: "Bearer nope" } } },
    { path: "/openclawworld/admin/checkpoints", init: { method: "POST", body: "{" } },
    { path: "/openclawworld/replay/api/frame?tick=abc" },
    { path: "/world/api/status", init: { method: "DELETE" } },
    { path: "/world/%E0%A4%A" },
  ];
  const failed: string[] = [];
  const fiveHundreds: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const kind = kinds[next++ % kinds.length]!;
        try {
          const res = await fetch(`${gw.baseUrl}${kind.path}`, kind.init);
          await res.arrayBuffer();
          if (res.status >= 500)
            fiveHundreds.push(`${kind.init?.method ?? "GET"} ${kind.path}: ${res.status}`);
        } catch (error) {
          failed.push(`${kind.init?.method ?? "GET"} ${kind.path}: ${String(error)}`);
        }
      }
    }),
  );
  return { failed: [...new Set(failed)], fiveHundreds: [...new Set(fiveHundreds)] };
}

/** One raw connection that sends `text` and reads what comes back (or, `read: false`, nothing). */
function rawRequest(text: string, read = true): { socket: net.Socket; received: Promise<string> } {
  const socket = net.connect(Number(new URL(gw.baseUrl).port), "127.0.0.1");
  socket.on("error", () => {});
  let got = "";
  const received = new Promise<string>((resolve) => {
    socket.on("close", () => resolve(got));
    if (read) socket.on("data", (chunk: Buffer) => (got += chunk.toString("latin1")));
    else socket.pause();
  });
  socket.write(text);
  return { socket, received };
}

/** The request families issue #45 found (static files, operator and AIC bodies, SSE), each left
 * unfinished by its caller, as a hostile client would. */
async function leaveRequestsUnfinished() {
  const host = `Host: 127.0.0.1:${new URL(gw.baseUrl).port}`;
  const page = await (await namedFetch(`${gw.baseUrl}/world/`)).text();
  const bundle = /src="(\/world\/assets\/[^"]+\.js)"/.exec(page)?.[1];
  expect(bundle).toBeDefined();
  const sockets: net.Socket[] = [];
  const open = (text: string, read = true) => {
    const request = rawRequest(text, read);
    sockets.push(request.socket);
    return request;
  };
  // Browsers that go away after the first bytes of the client bundle (1.4 MB: still being sent).
  const gone = [1, 2, 3].map(
    () =>
      new Promise<void>((resolve) => {
        const { socket } = open(`GET ${bundle} HTTP/1.1\r\n${host}\r\n\r\n`, false);
        socket.resume();
        socket.once("data", () => {
          socket.destroy();
          resolve();
        });
      }),
  );
  await Promise.all(gone);
  // A reader that never reads the bundle, and one that never reads its SSE stream.
  open(`GET ${bundle} HTTP/1.1\r\n${host}\r\n\r\n`, false);
  open(
    `GET /aic/v0.1/events/stream?sinceCursor=c_0&sinceCursor=zz HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${pollerToken}\r\n\r\n`,
    false,
  );
  // Half a body, the connection kept open: the operator's, a world path's, and a chunked one.
  open(
    `POST /openclawworld/admin/checkpoints HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${gw.gatewayToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lab`,
  );
  open(`POST /world/api/status HTTP/1.1\r\n${host}\r\nContent-Length: 100\r\n\r\n{"a`);
  open(
    `POST /openclawworld/admin/runs HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${gw.gatewayToken}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"lab\r\n`,
  );
  const halfSentAic = open(
    `POST /aic/v0.1/observe HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${pollerToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"agentId`,
  );
  return { sockets, halfSentAicAnswer: halfSentAic.received };
}
