// AIC benchmark: in-process observe throughput, and HTTP observe through the real gateway compared
// in the same run (same load generator, loopback) with the gateway's own trivial plugin route
// (GET /world/api/status: the goal is observe >= 0.8x of it) and, as information, with a
// bare node:http JSON server.
// The machine is shared, so the two gateway routes are measured in alternating rounds and the median
// of the per-round ratios is the figure; the gateway's own CPU per request (from /proc) is given
// beside it, which a busy neighbour disturbs less than a rate. "observe" repeats one request (16
// connections, one agent: repeats within a tick are answered from the tick's answers); "observe,
// distinct" changes the radius by a fraction of a pixel on every request (the same answer, other
// bytes), so each one is built.
// Rate limiting is disabled via config for the bench. Last line: one JSON object with the figures.
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { randomToken } from "../scripts/lib/gateway.ts";
import { resultJson } from "../src/aic/event-envelope.ts";
import { RateLimiter } from "../src/aic/rate-limit.ts";
import { AicService } from "../src/aic/service.ts";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { World } from "../src/world/world.ts";
import { startGateway } from "../test/support/gateway.ts";

const IN_PROCESS_OPS = Number(process.env.AIC_BENCH_OPS ?? 100_000);
const HTTP_REQUESTS = Number(process.env.AIC_BENCH_REQUESTS ?? 6_000);
const CONCURRENCY = Number(process.env.AIC_BENCH_CONCURRENCY ?? 16);
const AGENTS = 10;
const ROUNDS = Number(process.env.AIC_BENCH_ROUNDS ?? 3);
const quiet = { info() {}, warn() {}, error() {} };

async function inProcessObserve(): Promise<number> {
  const definition = await loadWorldDir(fileURLToPath(new URL("../worlds/lobby", import.meta.url)));
  const runtime = new WorldRuntime(World.create(definition), quiet);
  const service = new AicService({
    runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const ids = Array.from({ length: AGENTS }, (_, i) => `bench_${i}`);
  const joins = ids.map((id) => service.call("join", id, { agentId: id, roomId: "lobby" }));
  runtime.stepNow();
  for (const joined of await Promise.all(joins))
    if (joined.status !== "ok") throw new Error(JSON.stringify(joined));
  const bodies = ids.map((id) => ({ agentId: id, roomId: "lobby", radius: 300, detail: "full" }));
  for (let i = 0; i < 2_000; i++) await service.call("observe", ids[i % AGENTS]!, bodies[i % AGENTS]);
  const started = performance.now();
  for (let i = 0; i < IN_PROCESS_OPS; i++) {
    const result = await service.call("observe", ids[i % AGENTS]!, bodies[i % AGENTS]);
    if (result.status !== "ok") throw new Error(JSON.stringify(result));
  }
  return IN_PROCESS_OPS / ((performance.now() - started) / 1000);
}

const PAGE_READERS = Number(process.env.AIC_BENCH_PAGE_READERS ?? 300);
const PAGE_EVENTS = 50;
const PAGE_ROUNDS = Number(process.env.AIC_BENCH_PAGE_ROUNDS ?? 20);

/** A crowd reading the same events: PAGE_READERS agents each poll a page of the PAGE_EVENTS global
 * chats one of them sent, and each answer is turned into the text the HTTP door sends. What an event
 * costs per reader (its envelope, cursor and JSON) is what a crowd pays for every event. Figures are
 * the process's CPU time per page (less disturbed by a busy machine than wall time), the fastest
 * round and the median. */
async function eventPages(): Promise<{ cpuMicrosPerPage: number; cpuMicrosPerPageMedian: number }> {
  const definition = await loadWorldDir(fileURLToPath(new URL("../worlds/lobby", import.meta.url)));
  const runtime = new WorldRuntime(World.create(definition), quiet);
  const service = new AicService({
    runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const ids = Array.from({ length: PAGE_READERS }, (_, i) => `reader_${i}`);
  const joins = ids.map((id) => service.call("join", id, { agentId: id, roomId: "lobby" }));
  runtime.stepNow();
  const cursors = new Map<string, string>();
  for (const [i, joined] of (await Promise.all(joins)).entries()) {
    if (joined.status !== "ok") throw new Error(JSON.stringify(joined));
    cursors.set(ids[i]!, joined.data.cursor);
  }
  // Start after the joins (everyone sees everyone's presence.join otherwise).
  const start = await service.call("pollEvents", ids[0]!, {
    agentId: ids[0],
    roomId: "lobby",
    sinceCursor: cursors.get(ids[0]!),
    limit: 200,
  });
  if (start.status !== "ok") throw new Error(JSON.stringify(start));
  let since = start.data.nextCursor;
  for (let page = 0; page < 20 && start.data.events.length > 0; page++) {
    const next = await service.call("pollEvents", ids[0]!, {
      agentId: ids[0],
      roomId: "lobby",
      sinceCursor: since,
      limit: 200,
    });
    if (next.status !== "ok" || next.data.events.length === 0) break;
    since = next.data.nextCursor;
  }
  for (let i = 0; i < PAGE_EVENTS; i++) {
    const said = service.call("chatSend", ids[0]!, {
      agentId: ids[0],
      roomId: "lobby",
      txId: `tx_bench_chat_${i}`,
      channel: "global",
      message: `event number ${i} for the whole room`,
    });
    runtime.stepNow();
    if ((await said).status !== "ok") throw new Error("chat failed");
  }
  const bodies = ids.map((id) => ({ agentId: id, roomId: "lobby", sinceCursor: since, limit: PAGE_EVENTS }));
  const perRound: number[] = [];
  for (let round = 0; round < PAGE_ROUNDS + 2; round++) {
    const started = process.cpuUsage();
    let bytes = 0;
    for (const [i, id] of ids.entries()) {
      const answer = await service.call("pollEvents", id, bodies[i]);
      if (answer.status !== "ok" || answer.data.events.length !== PAGE_EVENTS)
        throw new Error(JSON.stringify(answer));
      bytes += resultJson(answer).length;
    }
    const used = process.cpuUsage(started);
    if (round >= 2) perRound.push((used.user + used.system) / PAGE_READERS);
    if (bytes === 0) throw new Error("no text");
  }
  return { cpuMicrosPerPage: Math.min(...perRound), cpuMicrosPerPageMedian: median(perRound) };
}

interface Target {
  port: number;
  path: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  /** The body of the i-th request. */
  body: string | ((i: number) => string);
}

/** Fixed-concurrency keep-alive load on loopback; every answer must be 200. */
async function load(target: Target, total: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const once = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = typeof target.body === "function" ? target.body(i) : target.body;
      const req = request(
        {
          host: "127.0.0.1",
          port: target.port,
          path: target.path,
          method: target.method ?? "POST",
          agent,
          headers:
            target.method === "GET"
              ? target.headers
              : {
                  ...target.headers,
                  "content-type": "application/json",
                  "content-length": Buffer.byteLength(body),
                },
        },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      if (target.method === "GET") req.end();
      else req.end(body);
    });
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued += 1;
      await once(issued);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker)); // warm-up
  issued = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return total / seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The gateway process's CPU time so far, in microseconds (Linux /proc; NaN elsewhere). */
function processCpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100; // USER_HZ = 100
  } catch {
    return Number.NaN;
  }
}

interface RouteFigures {
  reqPerSec: number;
  /** Gateway CPU per request, microseconds. */
  cpuMicrosPerReq: number;
}

interface HttpFigures {
  observe: RouteFigures;
  observeDistinct: RouteFigures;
  baseline: RouteFigures;
  observeRatio: number;
  observeDistinctRatio: number;
  cpuRatio: number;
  cpuDistinctRatio: number;
  bareReqPerSec: number;
}

async function httpObserve(): Promise<HttpFigures> {
  const token = randomToken();
  const gateway = await startGateway({
    pluginConfig: { agents: { bench_agent: { token, name: "Bench Bot" } }, rateLimits: { disabled: true } },
  });
  try {
    const base = new URL(gateway.baseUrl);
    const headers = { authorization: `Bearer ${token}` };
    const joined = await fetch(`${gateway.baseUrl}/aic/v0.1/join`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ agentId: "bench_agent", roomId: "lobby" }),
    });
    if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${await joined.text()}`);
    const body = JSON.stringify({ agentId: "bench_agent", roomId: "lobby", radius: 300, detail: "full" });
    const sample = await fetch(`${gateway.baseUrl}/aic/v0.1/observe`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
    });
    const sampleText = await sample.text();
    if (sample.status !== 200 || !sampleText.includes('"status":"ok"'))
      throw new Error(`observe failed: ${sampleText}`);

    const port = Number(base.port);
    const measure = async (target: Target): Promise<RouteFigures> => {
      const before = processCpuMicros(gateway.pid);
      const reqPerSec = await load(target, HTTP_REQUESTS);
      // load() runs a warm-up pass of the same size first: the CPU covers both.
      const cpuMicrosPerReq = (processCpuMicros(gateway.pid) - before) / (2 * HTTP_REQUESTS);
      return { reqPerSec, cpuMicrosPerReq };
    };
    const distinct = (i: number) =>
      JSON.stringify({
        agentId: "bench_agent",
        roomId: "lobby",
        radius: 300 + (i % 997) / 1000,
        detail: "full",
      });
    const rounds: { observe: RouteFigures; observeDistinct: RouteFigures; baseline: RouteFigures }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const observe = await measure({ port, path: "/aic/v0.1/observe", headers, body });
      // Reference: the gateway's own cheapest plugin route (GET /world/api/status, not AIC code), to
      // separate the gateway's per-request cost from the AIC adapter's.
      const baseline = await measure({
        port,
        path: "/world/api/status",
        method: "GET",
        headers: {},
        body: "",
      });
      const observeDistinct = await measure({ port, path: "/aic/v0.1/observe", headers, body: distinct });
      rounds.push({ observe, observeDistinct, baseline });
      console.log(
        `round ${round + 1}: observe ${Math.round(observe.reqPerSec)} req/s (${observe.cpuMicrosPerReq.toFixed(0)} µs gateway CPU/req), distinct ${Math.round(observeDistinct.reqPerSec)} (${observeDistinct.cpuMicrosPerReq.toFixed(0)} µs), status route ${Math.round(baseline.reqPerSec)} (${baseline.cpuMicrosPerReq.toFixed(0)} µs)`,
      );
    }
    const pick = (f: (r: (typeof rounds)[number]) => RouteFigures): RouteFigures => ({
      reqPerSec: median(rounds.map((r) => f(r).reqPerSec)),
      cpuMicrosPerReq: median(rounds.map((r) => f(r).cpuMicrosPerReq)),
    });

    // The bare server: reads the JSON body, parses it, answers the same observe JSON.
    const bare = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(sampleText),
        });
        res.end(sampleText);
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const barePort = (bare.address() as AddressInfo).port;
    const bareReqPerSec = await load({ port: barePort, path: "/observe", headers, body }, HTTP_REQUESTS);
    await new Promise<void>((resolve) => bare.close(() => resolve()));
    return {
      observe: pick((r) => r.observe),
      observeDistinct: pick((r) => r.observeDistinct),
      baseline: pick((r) => r.baseline),
      observeRatio: median(rounds.map((r) => r.observe.reqPerSec / r.baseline.reqPerSec)),
      observeDistinctRatio: median(rounds.map((r) => r.observeDistinct.reqPerSec / r.baseline.reqPerSec)),
      cpuRatio: median(rounds.map((r) => r.baseline.cpuMicrosPerReq / r.observe.cpuMicrosPerReq)),
      cpuDistinctRatio: median(
        rounds.map((r) => r.baseline.cpuMicrosPerReq / r.observeDistinct.cpuMicrosPerReq),
      ),
      bareReqPerSec,
    };
  } finally {
    await gateway.stop();
  }
}

const inProcessObserveOpsPerSec = await inProcessObserve();
console.log(
  `in-process observe: ${Math.round(inProcessObserveOpsPerSec)} ops/s (${IN_PROCESS_OPS} ops, ${AGENTS} agents)`,
);
const pages = await eventPages();
console.log(
  `in-process event pages: ${pages.cpuMicrosPerPage.toFixed(1)} µs CPU per page of ${PAGE_EVENTS} events with its JSON (median ${pages.cpuMicrosPerPageMedian.toFixed(1)}; ${PAGE_READERS} readers of the same events, ${PAGE_ROUNDS} rounds)`,
);
const http = process.env.AIC_BENCH_HTTP === "0" ? undefined : await httpObserve();
const r3 = (v: number) => Number(v.toFixed(3));
const loadAverage = os.loadavg().map((l) => Number(l.toFixed(2)));
const pageFigures = {
  eventPageCpuMicros: Number(pages.cpuMicrosPerPage.toFixed(1)),
  eventPageCpuMicrosMedian: Number(pages.cpuMicrosPerPageMedian.toFixed(1)),
};
if (!http) {
  console.log(
    JSON.stringify({
      inProcessObserveOpsPerSec: Math.round(inProcessObserveOpsPerSec),
      ...pageFigures,
      loadAverage,
    }),
  );
} else {
  console.log(
    `HTTP observe via gateway: ${Math.round(http.observe.reqPerSec)} req/s (distinct requests ${Math.round(http.observeDistinct.reqPerSec)}); bare node:http: ${Math.round(http.bareReqPerSec)} req/s (${HTTP_REQUESTS} requests, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds)`,
  );
  console.log(
    `reference: the gateway's own GET /world/api/status route: ${Math.round(http.baseline.reqPerSec)} req/s (ratio to bare ${(http.baseline.reqPerSec / http.bareReqPerSec).toFixed(3)}); observe / that route: ${http.observeRatio.toFixed(3)}, distinct ${http.observeDistinctRatio.toFixed(3)} (goal >= 0.8); by gateway CPU per request: ${http.cpuRatio.toFixed(3)}, distinct ${http.cpuDistinctRatio.toFixed(3)}; load average ${loadAverage.join(" ")}`,
  );
  console.log(
    JSON.stringify({
      inProcessObserveOpsPerSec: Math.round(inProcessObserveOpsPerSec),
      ...pageFigures,
      httpObserveReqPerSec: Math.round(http.observe.reqPerSec),
      httpObserveDistinctReqPerSec: Math.round(http.observeDistinct.reqPerSec),
      bareHttpReqPerSec: Math.round(http.bareReqPerSec),
      httpToBareRatio: r3(http.observe.reqPerSec / http.bareReqPerSec),
      gatewayBaselineReqPerSec: Math.round(http.baseline.reqPerSec),
      observeToGatewayRouteRatio: r3(http.observeRatio),
      observeDistinctToGatewayRouteRatio: r3(http.observeDistinctRatio),
      gatewayRouteToBareRatio: r3(http.baseline.reqPerSec / http.bareReqPerSec),
      gatewayCpuMicrosPerReq: {
        observe: Math.round(http.observe.cpuMicrosPerReq),
        observeDistinct: Math.round(http.observeDistinct.cpuMicrosPerReq),
        statusRoute: Math.round(http.baseline.cpuMicrosPerReq),
      },
      observeToGatewayRouteCpuRatio: r3(http.cpuRatio),
      observeDistinctToGatewayRouteCpuRatio: r3(http.cpuDistinctRatio),
      loadAverage,
    }),
  );
}
