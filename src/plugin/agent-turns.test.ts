// The agents' turns beside the replay (issue #42): every request through the AIC service is kept
// with its answer as served (refusals included), a blocked tool call and a resident's turn too,
// bounded, and read back by the operator's desk for a stretch and an agent.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import type { OpenedWorld } from "../runtime/open-world.ts";
import { crashHost, openBundledHost } from "../runtime/testing/hosts.ts";
import { agentTurnHooks, MAX_TURN_TEXT } from "./agent-turns.ts";
import { ReplayDesk, replayRead } from "./replay-desk.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const done of cleanup.splice(0).reverse()) done();
});

async function recordedHost(maxTurnBytes = 64 * 1024 ** 2): Promise<OpenedWorld> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-agent-turns-"));
  const host = await openBundledHost(path.join(dir, "world.db"), {
    storeSync: "normal",
    logger: quiet,
    history: { maxAgeMs: 3_600_000, maxBytes: 1024 ** 3, maxTurnBytes },
  });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => crashHost(host));
  return host;
}

function serviceOf(host: OpenedWorld, limits?: ConstructorParameters<typeof RateLimiter>[0]) {
  return new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter(limits ?? { disabled: true }),
    ...agentTurnHooks({ history: host.history, runtime: host.runtime }),
  });
}

async function ticked<T>(host: OpenedWorld, pending: Promise<T>): Promise<T> {
  await new Promise((resolve) => setImmediate(resolve));
  host.runtime.stepNow();
  return pending;
}

describe("an agent's turns beside the replay", () => {
  it("keeps each request with the answer as served, refusals, blocked calls and resident turns", async () => {
    const host = await recordedHost();
    const aic = serviceOf(host);
    const me = { agentId: "agent_a", roomId: "lobby" };
    await ticked(host, aic.call("join", "agent_a", me));
    const seen = await aic.call("observe", "agent_a", { ...me, radius: 5, detail: "lite" });
    expect(seen.status).toBe("ok");
    const first = await ticked(
      host,
      aic.call("chatSend", "agent_a", { ...me, channel: "global", message: "hi", txId: "tx_turns_0001" }),
    );
    expect(first, JSON.stringify(first)).toMatchObject({ status: "ok" });
    // The same txId with other words: a conflict, kept as the refusal it was.
    const clash = await aic.call("chatSend", "agent_a", {
      ...me,
      channel: "global",
      message: "bye",
      txId: "tx_turns_0001",
    });
    expect(clash).toMatchObject({ status: "error", error: { code: "conflict" } });
    aic.noteBlocked("agent_a", "ocw_interact", { targetId: "obj_x" }, "not enabled for you");
    const hooks = agentTurnHooks(host);
    hooks.onTurnEnd!(
      "agent_a",
      {
        wokeAtTick: 1,
        startedAtTick: 2,
        startedAtMs: 1000,
        endedAtMs: 3500,
        happenings: 1,
        modelRequests: 2,
        modelMs: 2100,
        prompt: "Someone said your name.",
      },
      [{ reason: "name_said", tick: 1, roomId: "lobby", fromEntityId: "hum_bob" }],
    );

    const desk = new ReplayDesk(host.definition, host.history!);
    const read = replayRead(desk, "/turns", new URLSearchParams({ segment: "0", agent: "agent_a" })) as {
      agents: { agentId: string; turns: number }[];
      turns: {
        kind: string;
        name: string;
        status: string;
        tick: number;
        request: string;
        answer: string;
        ms: number;
      }[];
    };
    expect(read.agents).toEqual([{ agentId: "agent_a", turns: 6 }]);
    expect(read.turns.map((t) => [t.kind, t.name, t.status])).toEqual([
      ["call", "join", "ok"],
      ["call", "observe", "ok"],
      ["call", "chatSend", "ok"],
      ["call", "chatSend", "conflict"],
      ["blocked", "ocw_interact", "tool_call_blocked"],
      ["turn", "turn", "ok"],
    ]);
    // What it was shown is the answer as served; what it did, its request's arguments.
    expect(JSON.parse(read.turns[1]!.answer)).toEqual((seen as { data: unknown }).data);
    expect(JSON.parse(read.turns[2]!.request)).toMatchObject({ message: "hi", txId: "tx_turns_0001" });
    expect(JSON.parse(read.turns[3]!.answer)).toMatchObject({ code: "conflict" });
    const turn = read.turns[5]!;
    expect(turn.ms).toBe(2500);
    expect(JSON.parse(turn.request).wokenBy).toEqual([
      { reason: "name_said", tick: 1, roomId: "lobby", fromEntityId: "hum_bob" },
    ]);
    expect(JSON.parse(turn.answer)).toMatchObject({ modelRequests: 2, modelMs: 2100 });
    // Markers sit at the tick each was answered on: the chat's answer on the chat's tick.
    const { markers } = replayRead(desk, "/markers", new URLSearchParams({ segment: "0" })) as {
      markers: { tick: number; kind: string; text: string }[];
    };
    expect(read.turns[2]!.tick).toBe(markers.find((m) => m.kind === "chat" && m.text === "hi")!.tick);
    // Another agent's turns are not mixed in; the stats give sizes.
    expect(desk.turns(0, 0, 1e9, "agent_b").turns).toEqual([]);
    expect(host.history!.stats().agentTurns).toMatchObject({ count: 6, dropped: 0 });
    expect(host.history!.stats().agentTurns.bytes).toBeGreaterThan(0);
  });

  it("keeps a rate limit as a refusal, cuts a long answer, and stays within its bound", async () => {
    const host = await recordedHost(40_000);
    const aic = serviceOf(host, { classes: { observe: { perSec: 0.001, burst: 1 } } });
    const me = { agentId: "agent_r", roomId: "lobby" };
    await ticked(host, aic.call("join", "agent_r", me));
    await aic.call("observe", "agent_r", { ...me, radius: 5, detail: "lite" });
    const limited = await aic.call("observe", "agent_r", { ...me, radius: 5, detail: "lite" });
    expect(limited).toMatchObject({ status: "error", error: { code: "rate_limited" } });
    const codes = host.history!.agentTurns(0, 0, 1e9, "agent_r").map((t) => t.status);
    expect(codes).toEqual(["ok", "ok", "rate_limited"]);
    aic.noteBlocked("agent_r", "ocw_chat", { message: "x".repeat(MAX_TURN_TEXT * 2) }, "no");
    const long = host.history!.agentTurns(0, 0, 1e9, "agent_r").at(-1)!;
    expect(long.request.length).toBeLessThan(MAX_TURN_TEXT + 100);
    expect(long.request).toMatch(/cut: \d+ characters/);
    for (let i = 0; i < 10; i++)
      aic.noteBlocked("agent_r", "ocw_chat", { message: "y".repeat(MAX_TURN_TEXT) }, "no");
    host.history!.prune();
    expect(host.history!.stats().agentTurns.bytes).toBeLessThanOrEqual(40_000);
  });
});
