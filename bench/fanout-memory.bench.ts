// The browsers' fan-out process under a chat and SSE flood, and after it (finding 5: the
// child grew from 117 to 181 MiB and did not give it back). A real gateway (the project's launcher,
// web.fanout "process"): BROWSERS WebSocket humans and two AIC agents (each with SSE streams open)
// chat as fast as their rate limits let them for --flood seconds, then everyone is quiet for --idle
// seconds, then the browsers leave and it is quiet again. The child's memory comes from its own
// report (`openclawworld_fanout_memory_bytes` on /world/metrics, once a second): rss and heap_used.
// A leak (state kept per connection or per message) keeps heap_used up after the load ends and after
// the browsers leave; V8's high-water mark keeps only rss up.
// Run: npm run bench:fanout-memory [-- --flood 60 --idle 45]. The last output line is one JSON object.
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import { startGateway } from "../test/support/gateway.ts";

const { values } = parseArgs({
  options: {
    flood: { type: "string", default: "60" },
    idle: { type: "string", default: "45" },
    browsers: { type: "string", default: "16" },
  },
});
const FLOOD_SEC = Number(values.flood);
const IDLE_SEC = Number(values.idle);
const BROWSERS = Number(values.browsers);
for (const [name, n] of Object.entries({ flood: FLOOD_SEC, idle: IDLE_SEC, browsers: BROWSERS }))
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);

const AGENTS = {
  agent_flood_a: "tok-flood-a-0123456789abcdef",
  agent_flood_b: "tok-flood-b-0123456789abcdef",
};
const gw = await startGateway({
  pluginConfig: {
    agents: Object.fromEntries(Object.entries(AGENTS).map(([id, token]) => [id, { token, name: id }])),
    web: { maxConnectionsPerAddress: BROWSERS + 4, maxHumansPerAddress: BROWSERS + 4 },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

async function childMemory(): Promise<{ rss: number; heapUsed: number } | undefined> {
  const text = await (await fetch(`${gw.baseUrl}/world/metrics`)).text();
  const read = (type: string) =>
    Number(new RegExp(`^openclawworld_fanout_memory_bytes\\{type="${type}"\\} (\\S+)$`, "m").exec(text)?.[1]);
  const rss = read("rss");
  const heapUsed = read("heap_used");
  return Number.isFinite(rss) && Number.isFinite(heapUsed) ? { rss, heapUsed } : undefined;
}

/** Samples the child once a second for `seconds`; returns the samples. */
async function sample(seconds: number) {
  const samples: { rss: number; heapUsed: number }[] = [];
  for (let i = 0; i < seconds; i++) {
    const memory = await childMemory().catch(() => undefined);
    if (memory) samples.push(memory);
    await sleep(1000);
  }
  return samples;
}
const summary = (samples: { rss: number; heapUsed: number }[]) => ({
  rssMiB: { max: MiB(Math.max(...samples.map((s) => s.rss))), last: MiB(samples.at(-1)?.rss ?? 0) },
  heapUsedMiB: {
    max: MiB(Math.max(...samples.map((s) => s.heapUsed))),
    min: MiB(Math.min(...samples.map((s) => s.heapUsed))),
    last: MiB(samples.at(-1)?.heapUsed ?? 0),
  },
});

const aic = (agentId: string, endpoint: string, body: object) =>
  fetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${AGENTS[agentId as keyof typeof AGENTS]}`,
    },
    body: JSON.stringify({ agentId, roomId: "lobby", ...body }),
  });

let flooding = true;
let sent = 0;
const sockets: WebSocket[] = [];
const loops: Promise<void>[] = [];
const streams = new AbortController();
try {
  for (const agentId of Object.keys(AGENTS)) await (await aic(agentId, "join", {})).arrayBuffer();
  for (let i = 0; i < BROWSERS; i++) {
    const ws = new WebSocket(`${gw.baseUrl.replace(/^http/, "ws")}/world/ws`);
    sockets.push(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => {
        ws.send(JSON.stringify({ type: "join", name: `Flood ${i}` }));
        resolve();
      });
      ws.once("error", reject);
    });
    ws.on("message", () => {});
  }
  const baseline = summary(await sample(10));
  // Each agent's SSE streams, read to the end, while the flood lasts.
  for (const [agentId, token] of Object.entries(AGENTS))
    for (let s = 0; s < 2; s++)
      loops.push(
        fetch(`${gw.baseUrl}/aic/v0.1/events/stream?roomId=lobby&agentId=${agentId}&sinceCursor=c_0`, {
          headers: { authorization: `Bearer ${token}` },
          signal: streams.signal,
        })
          .then((res) => res.body?.pipeTo(new WritableStream()))
          .catch(() => {}),
      );
  for (const [i, ws] of sockets.entries())
    loops.push(
      (async () => {
        for (let n = 0; flooding; n++) {
          if (ws.readyState === WebSocket.OPEN) {
            ws.send(
              JSON.stringify({
                type: "chat_send",
                channel: "global",
                message: `flood ${i}.${n} ${"x".repeat(120)}`,
              }),
            );
            sent += 1;
          }
          await sleep(100);
        }
      })(),
    );
  for (const agentId of Object.keys(AGENTS))
    loops.push(
      (async () => {
        for (let n = 0; flooding; n++) {
          const txId = `tx_${agentId}_${n}`;
          await aic(agentId, "chatSend", { txId, channel: "global", message: `agent flood ${n}` })
            .then((res) => res.arrayBuffer())
            .catch(() => {});
          sent += 1;
          await sleep(200);
        }
      })(),
    );
  const flood = summary(await sample(FLOOD_SEC));
  flooding = false;
  streams.abort();
  await Promise.all(loops);
  const quiet = summary(await sample(IDLE_SEC));
  for (const ws of sockets) ws.close(4100, "page closed");
  const left = summary(await sample(IDLE_SEC));
  console.log(
    JSON.stringify({
      bench: "fanout-memory",
      browsers: BROWSERS,
      floodSec: FLOOD_SEC,
      idleSec: IDLE_SEC,
      messagesSent: sent,
      baseline,
      flood,
      quiet,
      left,
    }),
  );
} finally {
  flooding = false;
  streams.abort();
  for (const ws of sockets) ws.terminate();
  await gw.stop();
}
