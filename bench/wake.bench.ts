// Wake targets benchmark. A world ticking in real time (in process, at its tick rate)
// with remote residents whose wakes go over real HTTP on loopback:
//   wake*Ms        from the tick that carried a person's words to the target receiving the wake
//                  (goal: at most one tick + 20 ms);
//   replySeen*Ms   from that tick to the agent's reply in the world, the agent answering the moment
//                  its wake arrives (no model time; goal: p95 at most 500 ms);
//   tickP99Ms*     the world's tick (step + listeners) p99 with no targets, and while 100 targets
//                  hang (never answer) or fail (HTTP 500) and every tick wakes one of them (goal:
//                  unchanged, at most 10 ms), and the same as CPU time (tickCpu*: the wall time of a
//                  tick on a shared, busy machine also holds other processes' turns on the core).
// WAKE_BENCH_ROUNDS (default 50) wakes are measured. Last line: one JSON object.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { agentEntityId } from "../src/aic/reads.ts";
import type { Actor } from "../src/aic/service.ts";
import { createTestEnv } from "../src/aic/testing/local-world.ts";
import { resolveConfig } from "../src/config/config.ts";
import { RemoteResidents } from "../src/residents/remote/remote-residents.ts";

const ROUNDS = Number(process.env.WAKE_BENCH_ROUNDS ?? 50);
const SLOW_TARGETS = 100;
const SLOW_SECONDS = Number(process.env.WAKE_BENCH_SLOW_SEC ?? 10);
const quiet = { info() {}, warn() {} };

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const round = (x: number) => Math.round(x * 10) / 10;

function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wake` }),
    ),
  );
}

async function main() {
  const names = (id: string) => ({ name: id === "fast" ? "Swift" : `B${id.slice(5)}` });
  const env = await createTestEnv({ agents: names });
  const ids = [
    "fast",
    ...Array.from({ length: SLOW_TARGETS }, (_, i) => `slow_${String(i).padStart(2, "0")}`),
  ];
  const config = resolveConfig({
    agents: Object.fromEntries(ids.map((id) => [id, { token: `${id}-token-0123456789` }])),
    wakeDelivery: {
      allowedHosts: ["127.0.0.1"],
      allowPrivateNetworks: true,
      timeoutMs: 2000,
      retryBaseMs: 200,
    },
  });
  const ann: Actor = { entityId: "hum_ann00000", kind: "human", name: "Ann", rateKey: "s:ann" };
  const tickTimes: number[] = [];
  env.runtime.onTickTiming((t) => tickTimes.push(t.totalMs));
  // The CPU time of each tick (step and listeners) beside its wall time: on a busy shared machine the
  // wall time also holds whatever ran on the core meanwhile.
  const tickCpu: number[] = [];
  const step = env.runtime.stepNow.bind(env.runtime);
  env.runtime.stepNow = () => {
    const started = process.cpuUsage();
    const result = step();
    const used = process.cpuUsage(started);
    tickCpu.push((used.user + used.system) / 1000);
    return result;
  };
  /** When the tick carrying each message was seen (by its text), and when each reply was. */
  const tickSeenAt = new Map<string, number>();
  const replySeenAt = new Map<string, number>();
  env.runtime.onTick((info) => {
    const now = performance.now();
    for (const e of info.events) {
      if (e.type !== "chat.message") continue;
      const message = String(e.payload.message);
      if (e.payload.fromEntityId === ann.entityId) tickSeenAt.set(message, now);
      else replySeenAt.set(message, now);
    }
  });
  let round_ = 0;
  const wakeAt = new Map<number, number>();
  let txs = 0;
  const fast = await listen((req, res) => {
    req.resume();
    req.on("end", () => {
      const n = round_;
      wakeAt.set(n, performance.now());
      res.writeHead(200).end();
      // The agent answers at once: what a real one would do after reading its events.
      txs += 1;
      void env.service.call("chatSend", "fast", {
        agentId: "fast",
        roomId: "lobby",
        txId: `tx_bench_reply_${String(txs).padStart(6, "0")}`,
        channel: "global",
        message: `reply ${n}`,
      });
    });
  });
  let slowHits = 0;
  const slow = await listen((req, res) => {
    slowHits += 1;
    req.resume();
    // Half hang (never answer), half fail.
    if (slowHits % 2 === 0) req.on("end", () => res.writeHead(500).end());
  });
  const remotes = new RemoteResidents({
    service: env.service,
    worldName: "bench",
    delivery: config.wakeDelivery,
    nameOf: (id) => names(id).name,
    worldBudget: { starts: [], maxTurnsPerHour: 100_000 },
    logger: quiet,
  });
  env.runtime.start();
  try {
    for (const id of ids) {
      const joined = await env.service.call("join", id, { agentId: id, roomId: "lobby" });
      if (joined.status !== "ok") throw new Error(`join ${id}: ${JSON.stringify(joined)}`);
    }
    await env.service.act(ann, { kind: "join", roomId: "lobby" });
    const pacing = {
      minIntervalSec: 0,
      maxTurnsPerHour: 3600,
      maxTurnsPerPersonPerHour: 3600,
      turnTimeoutSec: 30,
    };
    const wake = { nearby: false, name: true, approach: false, residents: false };
    await remotes.start({
      fast: { target: { kind: "webhook", url: fast.url, secret: "x".repeat(32) }, wake, ...pacing },
    });
    const say = (message: string) => env.service.act(ann, { kind: "chat", channel: "global", message });

    // 1. No slow targets: the tick as it is.
    const idleFrom = tickTimes.length;
    const idleCpuFrom = tickCpu.length;
    await new Promise((r) => setTimeout(r, 3000));
    const idleTicks = tickTimes.slice(idleFrom);
    const idleCpu = tickCpu.slice(idleCpuFrom);

    // 2. Wakes to a fast target, one at a time (each waits for the reply before the next).
    const wakeMs: number[] = [];
    const replyMs: number[] = [];
    for (let n = 1; n <= ROUNDS; n++) {
      round_ = n;
      const message = `Swift? ${n}`;
      await say(message);
      const deadline = performance.now() + 10_000;
      while (!replySeenAt.has(`reply ${n}`) && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 2));
      const tickAt = tickSeenAt.get(message);
      const woke = wakeAt.get(n);
      const replied = replySeenAt.get(`reply ${n}`);
      if (tickAt === undefined || woke === undefined || replied === undefined)
        throw new Error(`round ${n} lost`);
      wakeMs.push(woke - tickAt);
      replyMs.push(replied - tickAt);
      // Let the thinking mark come down (the turn ends on the reply's tick).
      await new Promise((r) => setTimeout(r, 60));
    }

    // 3. 100 targets that hang or fail; every tick someone says one of their names.
    // Each its own target (its own queue and circuit), all on one hanging-or-failing server.
    for (const id of ids.slice(1))
      await remotes.set(id, {
        target: { kind: "webhook", url: `${slow.url}/${id}`, secret: "x".repeat(32) },
        wake,
        ...pacing,
      });
    const slowFrom = tickTimes.length;
    const slowCpuFrom = tickCpu.length;
    const until = performance.now() + SLOW_SECONDS * 1000;
    let i = 0;
    while (performance.now() < until) {
      await say(`B${String(i % SLOW_TARGETS).padStart(2, "0")} are you there?`);
      i += 1;
    }
    const slowTicks = tickTimes.slice(slowFrom);
    const slowCpu = tickCpu.slice(slowCpuFrom);
    const delivery = remotes.deliveries.status();
    const figures = {
      rounds: ROUNDS,
      tickMs: round(1000 / env.world.definition.tickRate),
      wakeP50Ms: round(quantile(wakeMs, 0.5)),
      wakeP95Ms: round(quantile(wakeMs, 0.95)),
      replySeenP50Ms: round(quantile(replyMs, 0.5)),
      replySeenP95Ms: round(quantile(replyMs, 0.95)),
      tickP99MsIdle: round(quantile(idleTicks, 0.99)),
      tickP99MsSlowTargets: round(quantile(slowTicks, 0.99)),
      tickCpuP99MsIdle: round(quantile(idleCpu, 0.99)),
      tickCpuP99MsSlowTargets: round(quantile(slowCpu, 0.99)),
      slowTargets: SLOW_TARGETS,
      slowWakes: i,
      slowRequestsReceived: slowHits,
      slowCircuitsOpen: delivery.targets.filter((t) => t.circuit === "open").length,
      agentsThinking: ids.filter((id) => env.world.getEntity(agentEntityId(id))?.thinking).length,
    };
    console.log(JSON.stringify(figures));
  } finally {
    await remotes.stop();
    env.runtime.stop();
    fast.server.closeAllConnections();
    slow.server.closeAllConnections();
    fast.server.close();
    slow.server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
