// What survives a crash besides the world (issue #11): rate-limit buckets (written with the tick
// commits, settled before an answer that does not wait for a tick) and the heartbeat token key. The
// property at the end is the issue's: a run that crashes (the store file is all that is left) and
// recovers answers byte-identically to the same run without a crash, and ends in the same world,
// idempotency records and rate-limit state.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ContextTokens } from "../aic/context-token.ts";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { admitted } from "../aic/testing/local-world.ts";
import { resolveConfig } from "../config/config.ts";
import { saveWorld } from "../runtime/open-world.ts";
import { contextTokenKey, persistRateLimits } from "./durable-state.ts";
import { createHost, type WorldHost } from "./host.ts";

const quiet = { info() {}, warn() {}, error() {} };
const AGENTS = ["agent_dur_a", "agent_dur_b"] as const;
const CLASSES = {
  observe: { perSec: 1, burst: 2 },
  action: { perSec: 2, burst: 3 },
  chatSend: { perSec: 1, burst: 2 },
  heartbeat: { perSec: 1, burst: 2 },
};
const T0 = Date.UTC(2026, 0, 1);

const dirs: string[] = [];
const open: WorldHost[] = [];
beforeEach(() => {
  // The limiter's clock is the wall clock: the tests move it by hand.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  for (const host of open.splice(0)) crash(host);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-durable-state-"));
  dirs.push(dir);
  return dir;
}

/** The gateway's assembly of what this test is about: host (world + store), limiter, token key. */
async function start(stateDir: string) {
  const config = resolveConfig({ snapshot: { fsync: false } });
  const host = await createHost({ config, logger: quiet, stateDir });
  open.push(host);
  const limiter = new RateLimiter({ classes: CLASSES });
  persistRateLimits(host, limiter);
  const key = contextTokenKey(host);
  const aic = new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: id }),
    limiter,
    ...(key ? { contextTokens: new ContextTokens(key) } : {}),
  });
  return { host, limiter, aic };
}
type Live = Awaited<ReturnType<typeof start>>;

/** The process died: no snapshot, no close of the adapters; only what was committed is left. */
function crash(host: WorldHost): void {
  host.runtime.stop();
  host.store?.close();
  const at = open.indexOf(host);
  if (at >= 0) open.splice(at, 1);
}

async function joinAll(live: Live): Promise<void> {
  const joined = AGENTS.map((agentId) => live.aic.call("join", agentId, { agentId, roomId: "lobby" }));
  live.host.runtime.stepNow();
  for (const answer of await Promise.all(joined)) expect(answer.status).toBe("ok");
}

const observe = (live: Live, agentId: string) =>
  live.aic.call("observe", agentId, { agentId, roomId: "lobby", radius: 3, detail: "lite" });

describe("rate-limit buckets survive a crash", () => {
  it("an agent that emptied its bucket between ticks is still limited right after a crash", async () => {
    const dir = tempDir();
    const first = await start(dir);
    await joinAll(first);
    // Two observes (the burst) are answered at once, without a tick; the third is refused.
    expect((await observe(first, AGENTS[0])).status).toBe("ok");
    expect((await observe(first, AGENTS[0])).status).toBe("ok");
    expect(await observe(first, AGENTS[0])).toMatchObject({ error: { code: "rate_limited" } });
    crash(first.host); // no tick ran after the observes

    const second = await start(dir);
    expect(await observe(second, AGENTS[0])).toMatchObject({
      status: "error",
      error: { code: "rate_limited", details: { retryAfterMs: 1000 } },
    });
    // The other agent never asked: its bucket is full. And the refill continues on the wall clock.
    expect((await observe(second, AGENTS[1])).status).toBe("ok");
    vi.setSystemTime(T0 + 1_000);
    expect((await observe(second, AGENTS[0])).status).toBe("ok");
  });

  it("an observe answered from the per-tick answer cache is saved before its answer too", async () => {
    const dir = tempDir();
    const first = await start(dir);
    await joinAll(first);
    const body = { agentId: AGENTS[0], roomId: "lobby", radius: 3, detail: "lite" };
    const requestText = JSON.stringify(body);
    const once = await first.aic.call("observe", AGENTS[0], body, { requestText });
    const again = await first.aic.call("observe", AGENTS[0], body, { requestText }); // same bytes, same tick
    expect(again).toBe(once);
    crash(first.host);
    const second = await start(dir);
    expect(await observe(second, AGENTS[0])).toMatchObject({ error: { code: "rate_limited" } });
  });

  it("an action's grant is written in its tick's transaction, not in a write of its own", async () => {
    const dir = tempDir();
    const live = await start(dir);
    await joinAll(live);
    const store = live.host.store!;
    const own = vi.spyOn(store, "writeSide");
    const tick = vi.spyOn(store, "appendTick");
    const pending = [0, 1, 2, 3].map((i) =>
      live.aic.call("chatSend", AGENTS[0], {
        agentId: AGENTS[0],
        roomId: "lobby",
        txId: `tx_durable_${i}`,
        channel: "global",
        message: `m${i}`,
      }),
    );
    live.host.runtime.stepNow();
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.status)).toEqual(["ok", "ok", "error", "error"]);
    expect(own).not.toHaveBeenCalled();
    const side = tick.mock.calls.at(-1)![3]!;
    expect(side).toEqual([
      {
        scope: "rate",
        key: '["chatSend","agent:agent_dur_a"]',
        value: '{"tokens":0,"updatedMs":1767225600000}',
      },
    ]);
    crash(live.host);
    const after = await start(dir);
    expect(after.limiter.allBuckets()).toContainEqual({
      className: "chatSend",
      key: "agent:agent_dur_a",
      bucket: { tokens: 0, updatedMs: T0 },
    });
  });

  it("a retry answered from the idempotency store takes no token: the bucket after a crash has the first send's grant only", async () => {
    const dir = tempDir();
    const live = await start(dir);
    await joinAll(live);
    const body = {
      agentId: AGENTS[1],
      roomId: "lobby",
      txId: "tx_durable_r",
      channel: "global",
      message: "once",
    };
    const first = live.aic.call("chatSend", AGENTS[1], body);
    live.host.runtime.stepNow();
    expect((await first).status).toBe("ok");
    // Replayed at once, no tick, as often as the caller retries (a page resending after a crash):
    // more retries than the burst of 2, none refused.
    for (let i = 0; i < 3; i++) expect(await live.aic.call("chatSend", AGENTS[1], body)).toEqual(await first);
    crash(live.host);
    const after = await start(dir);
    expect(after.limiter.allBuckets()).toContainEqual({
      className: "chatSend",
      key: "agent:agent_dur_b",
      bucket: { tokens: 1, updatedMs: T0 },
    });
  });

  /** One of each read, for both agents: eight grants in one event-loop turn. */
  const readsOfOneTurn = (live: Live) =>
    AGENTS.flatMap((agentId) => {
      const base = { agentId, roomId: "lobby" };
      return [
        observe(live, agentId),
        live.aic.call("heartbeat", agentId, base),
        live.aic.call("chatObserve", agentId, { ...base, windowSec: 60 }),
        live.aic.call("pollEvents", agentId, { ...base, sinceCursor: "c_0" }),
      ];
    });

  it("the reads of one event-loop turn share one write, and none is answered before it", async () => {
    const dir = tempDir();
    const live = await start(dir);
    await joinAll(live);
    const store = live.host.store!;
    const writeSide = store.writeSide.bind(store);
    const order: string[] = [];
    vi.spyOn(store, "writeSide").mockImplementation((rows) => {
      order.push(`write of ${rows.length} rows`);
      writeSide(rows);
    });
    const answers = readsOfOneTurn(live).map((read) =>
      read.then((answer) => {
        order.push(`answer ${answer.status}`);
        return answer;
      }),
    );
    await Promise.all(answers);
    expect(order).toEqual(["write of 8 rows", ...Array(8).fill("answer ok")]);
    crash(live.host);
    const after = await start(dir);
    const sorted = (limiter: RateLimiter) =>
      limiter.allBuckets().sort((x, y) => (x.className + x.key).localeCompare(y.className + y.key));
    expect(sorted(after.limiter)).toEqual(sorted(live.limiter));
  });

  it("a failed write fails every read of its turn with internal; the next turn writes them all", async () => {
    const live = await start(tempDir());
    await joinAll(live);
    const store = live.host.store!;
    const writeSide = vi.spyOn(store, "writeSide").mockImplementationOnce(() => {
      throw new Error("disk full");
    });
    const failed = await Promise.all(readsOfOneTurn(live));
    for (const answer of failed)
      expect(answer).toMatchObject({ error: { code: "internal", retryable: true } });
    expect(writeSide).toHaveBeenCalledTimes(1);
    expect(await observe(live, AGENTS[0])).toMatchObject({ status: "ok" });
    expect(writeSide).toHaveBeenCalledTimes(2);
    // The failed turn's grants were not lost: they were written with the next one.
    expect(writeSide.mock.calls[1]![0]).toHaveLength(8);
  });

  it("a grant that cannot be saved is answered with a retryable error, not silently", async () => {
    const live = await start(tempDir());
    await joinAll(live);
    vi.spyOn(live.host.store!, "writeSide").mockImplementation(() => {
      throw new Error("disk full");
    });
    expect(await observe(live, AGENTS[0])).toMatchObject({ error: { code: "internal", retryable: true } });
  });
});

describe("a long rate class survives restarts (issue #30)", () => {
  it("a bucket that refills over an hour is still empty after a crash and after a clean stop", async () => {
    const dir = tempDir();
    const hourly = { ...CLASSES, observe: { perSec: 1 / 3600, burst: 1 } };
    const startHourly = async () => {
      const config = resolveConfig({ snapshot: { fsync: false } });
      const host = await createHost({ config, logger: quiet, stateDir: dir });
      open.push(host);
      const limiter = new RateLimiter({ classes: hourly });
      persistRateLimits(host, limiter);
      const aic = new AicService({ runtime: host.runtime, agents: (id) => ({ name: id }), limiter });
      return { host, limiter, aic };
    };
    const first = await startHourly();
    await joinAll(first);
    expect((await observe(first, AGENTS[0])).status).toBe("ok");
    crash(first.host);

    vi.setSystemTime(T0 + 20 * 60_000);
    const second = await startHourly();
    expect(await observe(second, AGENTS[0])).toMatchObject({ error: { code: "rate_limited" } });
    // A clean stop (snapshot, close) keeps it too; an hour after the grant it has refilled.
    saveWorld(second.host);
    second.host.runtime.stop();
    second.host.store?.close();
    vi.setSystemTime(T0 + 50 * 60_000);
    const third = await startHourly();
    const refused = await observe(third, AGENTS[0]);
    expect(refused).toMatchObject({ error: { code: "rate_limited" } });
    expect(
      (refused as unknown as { error: { details: { retryAfterMs: number } } }).error.details.retryAfterMs,
    ).toBe(10 * 60_000);
    vi.setSystemTime(T0 + 60 * 60_000);
    expect((await observe(third, AGENTS[0])).status).toBe("ok");
  });
});

describe("heartbeat context tokens survive a restart", () => {
  it("the signing key is the world's: a token from before a crash embeds an action after it", async () => {
    const dir = tempDir();
    const first = await start(dir);
    await joinAll(first);
    const beat = await first.aic.call("heartbeat", AGENTS[0], { agentId: AGENTS[0], roomId: "lobby" });
    if (beat.status !== "ok") throw new Error(JSON.stringify(beat));
    const key = contextTokenKey(first.host);
    crash(first.host);

    const second = await start(dir);
    expect(contextTokenKey(second.host)).toEqual(key);
    vi.setSystemTime(T0 + 5_000);
    const pending = second.aic.call("heartbeat", AGENTS[0], {
      agentId: AGENTS[0],
      roomId: "lobby",
      contextToken: beat.data.contextToken,
      action: { kind: "chatSend", txId: "tx_durable_after_crash", channel: "global", message: "still me" },
    });
    await admitted();
    second.host.runtime.stepNow();
    const answer = await pending;
    expect(answer).toMatchObject({ status: "ok", data: { action: { status: "ok" } } });
    expect(answer.status === "ok" && answer.data.reset).toBeUndefined();
  });

  it("without persistence every service signs with a key of its own", async () => {
    const config = resolveConfig({ snapshot: { enabled: false } });
    const host = await createHost({ config, logger: quiet, stateDir: tempDir() });
    open.push(host);
    expect(contextTokenKey(host)).toBeUndefined();
  });
});

describe("property: a crash and recovery is invisible (world, idempotency, rate limits, tokens)", () => {
  type Call =
    | { kind: "observe"; agent: 0 | 1 }
    | { kind: "moveTo"; agent: 0 | 1; k: number; tx: number }
    | { kind: "chatSend"; agent: 0 | 1; k: number; m: string }
    | { kind: "heartbeat"; agent: 0 | 1; act: boolean; k: number }
    | { kind: "replay"; k: number };
  const agent = fc.constantFrom<0 | 1>(0, 1);
  const read: fc.Arbitrary<Call> = fc.oneof(
    agent.map((a): Call => ({ kind: "observe", agent: a })),
    fc
      .record({ a: agent, k: fc.integer({ min: 0, max: 3 }) })
      .map(({ a, k }): Call => ({ kind: "heartbeat", agent: a, act: false, k })),
    // A retry of an acknowledged chat is answered at once from the idempotency store.
    fc.integer({ min: 0, max: 7 }).map((k): Call => ({ kind: "replay", k })),
  );
  const call: fc.Arbitrary<Call> = fc.oneof(
    read,
    fc
      .record({ a: agent, k: fc.integer({ min: 0, max: 3 }), tx: fc.integer({ min: 8, max: 12 }) })
      .map(({ a, k, tx }): Call => ({ kind: "moveTo", agent: a, k, tx })),
    fc
      .record({ a: agent, k: fc.integer({ min: 0, max: 3 }), m: fc.constantFrom("hi", "yo") })
      .map(({ a, k, m }): Call => ({ kind: "chatSend", agent: a, k, m })),
    fc
      .record({ a: agent, k: fc.integer({ min: 0, max: 3 }) })
      .map(({ a, k }): Call => ({ kind: "heartbeat", agent: a, act: true, k })),
  );
  const stepArb = fc.record({
    /** Answered by the step's tick (actions wait for it). */
    ticked: fc.array(call, { maxLength: 4 }),
    /** Answered after the tick, before the next one: only reads and replays. */
    between: fc.array(read, { maxLength: 3 }),
    advanceMs: fc.integer({ min: 0, max: 1_500 }),
    snapshot: fc.boolean(),
  });
  type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;
  const planArb = fc
    .array(stepArb, { minLength: 2, maxLength: 8 })
    .chain((plan) =>
      fc.record({ plan: fc.constant(plan), crashAt: fc.integer({ min: 1, max: plan.length }) }),
    );

  /** What the client side of a run remembers: heartbeat tokens and acknowledged chats. */
  interface Client {
    tokens: (string | undefined)[];
    acked: { agentId: string; body: Record<string, unknown> }[];
  }

  function invoke(live: Live, client: Client, c: Call): Promise<unknown> {
    if (c.kind === "replay") {
      const ack = client.acked[c.k % Math.max(1, client.acked.length)];
      if (!ack) return observe(live, AGENTS[0]);
      return live.aic.call("chatSend", ack.agentId, ack.body);
    }
    const { tokens } = client;
    const agentId = AGENTS[c.agent];
    const base = { agentId, roomId: "lobby" };
    switch (c.kind) {
      case "observe":
        return live.aic.call("observe", agentId, { ...base, radius: 3, detail: "lite" });
      case "moveTo":
        return live.aic.call("moveTo", agentId, {
          ...base,
          txId: `tx_durable_m${c.k}`,
          dest: { tx: c.tx, ty: 10 },
        });
      case "chatSend":
        return live.aic.call("chatSend", agentId, {
          ...base,
          txId: `tx_durable_c${c.k}`,
          channel: "global",
          message: c.m,
        });
      case "heartbeat": {
        const token = tokens[c.agent];
        const body: Record<string, unknown> = token ? { ...base, contextToken: token } : base;
        if (c.act && token)
          body.action = { kind: "chatSend", txId: `tx_durable_h${c.k}`, channel: "global", message: "hb" };
        return live.aic.call("heartbeat", agentId, body).then((answer) => {
          if (answer.status === "ok") tokens[c.agent] = answer.data.contextToken;
          return answer;
        });
      }
    }
  }

  /** Runs the plan from a copy of `seed`, crashing before step `crashAt` (none: uninterrupted). */
  async function run(seed: string, plan: Step[], crashAt?: number) {
    const dir = tempDir();
    cpSync(seed, dir, { recursive: true });
    vi.setSystemTime(T0);
    let live = await start(dir);
    const answers: string[] = [];
    const client: Client = { tokens: [undefined, undefined], acked: [] };
    for (const [i, step] of plan.entries()) {
      if (i === crashAt) {
        crash(live.host);
        live = await start(dir);
      }
      vi.setSystemTime(Date.now() + step.advanceMs);
      const ticked = step.ticked.map((c) => invoke(live, client, c));
      await admitted();
      live.host.runtime.stepNow();
      for (const answer of await Promise.all(ticked)) answers.push(JSON.stringify(answer));
      if (step.snapshot) saveWorld(live.host); // compacts the log behind it
      for (const c of step.between) answers.push(JSON.stringify(await invoke(live, client, c)));
    }
    if (crashAt === plan.length) {
      crash(live.host);
      live = await start(dir);
    }
    const world = live.host.runtime.world;
    const txs = ["m", "c", "h"].flatMap((p) =>
      [0, 1, 2, 3].flatMap((k) =>
        AGENTS.map((a) => JSON.stringify(world.lookupTx(`aic:${a}:lobby:tx_durable_${p}${k}`) ?? null)),
      ),
    );
    const result = {
      answers,
      hash: world.snapshotHash(),
      tick: world.tick,
      txs,
      buckets: live.limiter
        .allBuckets()
        .sort((x, y) => (x.className + x.key).localeCompare(y.className + y.key)),
    };
    crash(live.host);
    return result;
  }

  it("holds for random calls, tick and crash points", { timeout: 300_000 }, async () => {
    // One joined world with its token key, copied for each run: both runs start identical.
    const seed = tempDir();
    const setup = await start(seed);
    await joinAll(setup);
    crash(setup.host);
    await fc.assert(
      fc.asyncProperty(planArb, async ({ plan, crashAt }) => {
        const uninterrupted = await run(seed, plan);
        const crashed = await run(seed, plan, crashAt);
        expect(crashed).toEqual(uninterrupted);
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });
});
