// AIC benchmark: in-process observe throughput, and HTTP observe through the real gateway compared
// in the same run (same load generator, loopback) with the gateway's own trivial plugin route
// (GET /world/api/status: the goal is observe >= 0.8x of it, issue #13) and, as information, with a
// bare node:http JSON server.
// Rate limiting is disabled via config for the bench. Last line: one JSON object with the figures.
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { randomToken } from "../scripts/lib/gateway.ts";
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
  const joins = ids.map((id) => service.join(id, { agentId: id, roomId: "lobby" }));
  runtime.stepNow();
  for (const joined of await Promise.all(joins))
    if (joined.status !== "ok") throw new Error(JSON.stringify(joined));
  const bodies = ids.map((id) => ({ agentId: id, roomId: "lobby", radius: 300, detail: "full" }));
  for (let i = 0; i < 2_000; i++) await service.observe(ids[i % AGENTS]!, bodies[i % AGENTS]);
  const started = performance.now();
  for (let i = 0; i < IN_PROCESS_OPS; i++) {
    const result = await service.observe(ids[i % AGENTS]!, bodies[i % AGENTS]);
    if (result.status !== "ok") throw new Error(JSON.stringify(result));
  }
  return IN_PROCESS_OPS / ((performance.now() - started) / 1000);
}

interface Target {
  port: number;
  path: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body: string;
}

/** Fixed-concurrency keep-alive load on loopback; every answer must be 200. */
async function load(target: Target, total: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const once = () =>
    new Promise<void>((resolve, reject) => {
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
                  "content-length": Buffer.byteLength(target.body),
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
      else req.end(target.body);
    });
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued += 1;
      await once();
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

async function httpObserve(): Promise<{
  gatewayReqPerSec: number;
  bareReqPerSec: number;
  gatewayBaselineReqPerSec: number;
}> {
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

    const gatewayReqPerSec = await load(
      { port: Number(base.port), path: "/aic/v0.1/observe", headers, body },
      HTTP_REQUESTS,
    );

    // Reference: the gateway's own cheapest plugin route (GET /world/api/status, not AIC code), to
    // separate the gateway's per-request cost from the AIC adapter's.
    const gatewayBaselineReqPerSec = await load(
      { port: Number(base.port), path: "/world/api/status", method: "GET", headers: {}, body: "" },
      HTTP_REQUESTS,
    );

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
    return { gatewayReqPerSec, bareReqPerSec, gatewayBaselineReqPerSec };
  } finally {
    await gateway.stop();
  }
}

const inProcessObserveOpsPerSec = await inProcessObserve();
console.log(
  `in-process observe: ${Math.round(inProcessObserveOpsPerSec)} ops/s (${IN_PROCESS_OPS} ops, ${AGENTS} agents)`,
);
const { gatewayReqPerSec, bareReqPerSec, gatewayBaselineReqPerSec } = await httpObserve();
console.log(
  `HTTP observe via gateway: ${Math.round(gatewayReqPerSec)} req/s; bare node:http: ${Math.round(bareReqPerSec)} req/s (${HTTP_REQUESTS} requests, concurrency ${CONCURRENCY})`,
);
console.log(
  `reference: the gateway's own GET /world/api/status route: ${Math.round(gatewayBaselineReqPerSec)} req/s (ratio to bare ${(gatewayBaselineReqPerSec / bareReqPerSec).toFixed(3)}); observe / that route: ${(gatewayReqPerSec / gatewayBaselineReqPerSec).toFixed(3)} (goal >= 0.8)`,
);
console.log(
  JSON.stringify({
    inProcessObserveOpsPerSec: Math.round(inProcessObserveOpsPerSec),
    httpObserveReqPerSec: Math.round(gatewayReqPerSec),
    bareHttpReqPerSec: Math.round(bareReqPerSec),
    httpToBareRatio: Number((gatewayReqPerSec / bareReqPerSec).toFixed(3)),
    gatewayBaselineReqPerSec: Math.round(gatewayBaselineReqPerSec),
    observeToGatewayRouteRatio: Number((gatewayReqPerSec / gatewayBaselineReqPerSec).toFixed(3)),
    gatewayRouteToBareRatio: Number((gatewayBaselineReqPerSec / bareReqPerSec).toFixed(3)),
  }),
);
