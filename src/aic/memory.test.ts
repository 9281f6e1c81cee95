// Reflection memory through the contract (issue #12, seed 003 section 3): POST /memory/reflect is
// strict, typed and idempotent like every action; the working memory in heartbeat and observe is
// the caller's own, on request only, and trimmed by the weights of src/world/memory.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MEMORY_LIMITS } from "../world/memory.ts";
import { encodeCursor } from "./cursor.ts";
import type { HeartbeatResponse, MemoryEntryT, ObserveResponse, ReflectResponse } from "./schemas.ts";
import { createTestEnv, type TestEnv } from "./testing/local-world.ts";
import { checkResponse } from "./testing/oracle.ts";

const A = "agent_helper";
const B = "agent_other";
const room = "lobby";

function body(over: Record<string, unknown> = {}) {
  return {
    agentId: A,
    roomId: room,
    txId: "tx_reflect_0001",
    content: "B likes the fountain",
    importance: 0.7,
    ...over,
  };
}

async function reflect(env: TestEnv, over: Record<string, unknown> = {}, caller = A) {
  const answer = await env.tick(env.service.call("reflect", caller, body(over)));
  expect(checkResponse("ReflectResponseData", answer, { oracle: false })).toEqual([]);
  return answer;
}

function okData<T>(answer: { status: string }): T {
  if (answer.status !== "ok") throw new Error(`expected ok: ${JSON.stringify(answer)}`);
  return (answer as unknown as { data: T }).data;
}

function errorOf(answer: { status: string }) {
  if (answer.status !== "error") throw new Error(`expected an error: ${JSON.stringify(answer)}`);
  return (
    answer as unknown as { error: { code: string; message: string; details?: Record<string, unknown> } }
  ).error;
}

async function memoryVia(env: TestEnv, endpoint: "heartbeat" | "observe", agentId: string, memory: number) {
  const answer =
    endpoint === "heartbeat"
      ? await env.service.call("heartbeat", agentId, { agentId, roomId: room, memory })
      : await env.service.call("observe", agentId, {
          agentId,
          roomId: room,
          radius: 64,
          detail: "lite",
          memory,
        });
  const def = endpoint === "heartbeat" ? "HeartbeatResponseData" : "ObserveResponseData";
  expect(checkResponse(def, answer, { oracle: false })).toEqual([]);
  return okData<HeartbeatResponse | ObserveResponse>(answer).memory as MemoryEntryT[];
}

describe("POST /memory/reflect", () => {
  it("stores the reflection with its sources; the answer repeats it, with the id and simulation time", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const source = encodeCursor(room, env.world.latestSeq(room));
    const answer = await reflect(env, { topics: ["people", "places"], sources: [source] });
    const data = okData<ReflectResponse>(answer);
    expect(data).toEqual({
      txId: "tx_reflect_0001",
      reflection: {
        id: expect.stringMatching(/^mem_\d+$/),
        tsMs: env.world.serverTsMs,
        content: "B likes the fountain",
        topics: ["people", "places"],
        sources: [source],
        importance: 0.7,
      },
      serverTsMs: env.world.serverTsMs,
    });
    expect(env.world.memoryOf("agt_agent_helper")!.reflections).toEqual([
      {
        id: data.reflection.id,
        tsMs: data.reflection.tsMs,
        content: "B likes the fountain",
        topics: ["people", "places"],
        sources: [{ roomId: room, seq: env.world.latestSeq(room) }],
        importance: 0.7,
      },
    ]);
    expect(env.world.memoryOf("agt_agent_other")?.reflections ?? []).toEqual([]);
  });

  it("is idempotent by txId: a retry answers byte-identically and stores nothing new; another payload is a conflict", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const first = await reflect(env);
    const hashBefore = env.world.snapshotHash();
    const retry = await env.service.call("reflect", A, body());
    expect(JSON.stringify(retry)).toBe(JSON.stringify(first));
    env.runtime.stepNow();
    expect(env.world.memoryOf("agt_agent_helper")!.reflections).toHaveLength(1);
    const other = errorOf(await env.service.call("reflect", A, body({ content: "something else" })));
    expect(other).toMatchObject({ code: "conflict", details: { reason: "tx_payload_mismatch" } });
    expect(hashBefore).not.toBe(env.world.snapshotHash()); // only because a tick passed
  });

  it("refuses bad input with typed errors, and nothing is stored", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const code = async (over: Record<string, unknown>, caller = A) => {
      const answer = await env.tick(env.service.call("reflect", caller, body(over)));
      return errorOf(answer).code;
    };
    expect(await code({ importance: 1.5 })).toBe("bad_request");
    expect(await code({ importance: -0.1 })).toBe("bad_request");
    expect(await code({ importance: "high" })).toBe("bad_request");
    expect(await code({ importance: undefined })).toBe("bad_request");
    expect(await code({ content: "x".repeat(MEMORY_LIMITS.contentChars + 1) })).toBe("bad_request");
    expect(await code({ content: "" })).toBe("bad_request");
    expect(await code({ content: "  \n " })).toBe("bad_request");
    expect(await code({ content: "half \ud83d" })).toBe("bad_request");
    expect(await code({ mood: "pensive" })).toBe("bad_request");
    expect(await code({ topics: ["a b"] })).toBe("bad_request");
    expect(await code({ topics: ["t", "t"] })).toBe("bad_request");
    expect(await code({ topics: Array.from({ length: 9 }, (_, i) => `t${i}`) })).toBe("bad_request");
    expect(await code({ sources: ["c_0"] })).toBe("bad_request");
    expect(await code({ sources: [encodeCursor(room, 0)] })).toBe("bad_request");
    expect(await code({ sources: [encodeCursor(room, 999_999)] })).toBe("bad_request");
    expect(await code({ sources: ["not a cursor!"] })).toBe("bad_request");
    // Strict validation: a source is named once (issue #30).
    const seen = encodeCursor(room, env.world.latestSeq(room));
    expect(await code({ sources: [seen, seen] })).toBe("bad_request");
    expect(await code({ txId: "nope" })).toBe("bad_request");
    // Another agent's id: forbidden, whoever the agent is.
    expect(await code({ agentId: B })).toBe("forbidden");
    expect(await code({ agentId: "agent_unknown" }, "agent_unknown")).toBe("forbidden");
    // In another room than the one the agent is in.
    expect(await code({ roomId: "garden" })).toBe("agent_not_in_room");
    expect(await code({ roomId: "nowhere" })).toBe("not_found");
    expect(env.world.memoryOf("agt_agent_helper")?.reflections ?? []).toEqual([]);
    expect(env.world.memoryOf("agt_agent_other")?.reflections ?? []).toEqual([]);
    const bad = errorOf(await env.tick(env.service.call("reflect", A, body({ importance: 2 }))));
    expect(bad.message).toMatch(/importance/);
  });

  it("has its own rate class, shared by nobody else", async () => {
    const env = await createTestEnv({ rateLimits: { classes: { reflect: { perSec: 0.001, burst: 2 } } } });
    await env.join(A);
    await reflect(env, { txId: "tx_reflect_rate_1" });
    await reflect(env, { txId: "tx_reflect_rate_2" });
    const limited = errorOf(
      await env.tick(env.service.call("reflect", A, body({ txId: "tx_reflect_rate_3" }))),
    );
    expect(limited).toMatchObject({ code: "rate_limited", details: { rateClass: "reflect" } });
    // Moving is another class: still allowed.
    const moved = await env.tick(
      env.service.call("moveTo", A, {
        agentId: A,
        roomId: room,
        txId: "tx_reflect_rate_mv",
        dest: { tx: 20, ty: 14 },
      }),
    );
    expect(moved.status === "ok" || errorOf(moved).code !== "rate_limited").toBe(true);
  });

  it("reports the reflection it evicted at the cap of 64", async () => {
    const env = await createTestEnv();
    await env.join(A);
    for (let i = 0; i < MEMORY_LIMITS.reflections; i++) {
      await reflect(env, {
        txId: `tx_reflect_cap_${i}_x`,
        content: `thought ${i}`,
        importance: i === 3 ? 0.05 : 0.9,
      });
    }
    const over = okData<ReflectResponse>(
      await reflect(env, { txId: "tx_reflect_cap_over", content: "one more" }),
    );
    const dropped = env.world.memoryOf("agt_agent_helper")!.reflections.map((r) => r.content);
    expect(over.evicted).toMatch(/^mem_\d+$/);
    expect(dropped).toHaveLength(MEMORY_LIMITS.reflections);
    expect(dropped).not.toContain("thought 3");
    expect(dropped).toContain("one more");
  });
});

describe("working memory in heartbeat and observe", () => {
  it("only on request; only the caller's own; reflections and episodes, oldest first", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    await env.tick(
      env.service.call("chatSend", B, {
        agentId: B,
        roomId: room,
        txId: "tx_wm_chat_0001",
        channel: "global",
        message: "hi A",
      }),
    );
    await reflect(env, { content: "B greets everyone" });
    const plain = okData<HeartbeatResponse>(
      await env.service.call("heartbeat", A, { agentId: A, roomId: room }),
    );
    expect(plain).not.toHaveProperty("memory");
    const plainObserve = okData<ObserveResponse>(
      await env.service.call("observe", A, { agentId: A, roomId: room, radius: 64, detail: "lite" }),
    );
    expect(plainObserve).not.toHaveProperty("memory");

    const mine = await memoryVia(env, "heartbeat", A, 20);
    expect(mine.filter((m) => m.kind === "reflection")).toEqual([
      expect.objectContaining({
        kind: "reflection",
        content: "B greets everyone",
        importance: 0.7,
        topics: [],
      }),
    ]);
    expect(mine).toContainEqual(
      expect.objectContaining({ kind: "episode", what: "heard", text: "Other Bot said: hi A" }),
    );
    expect(mine.map((m) => Number(m.id.slice(4)))).toEqual(
      mine.map((m) => Number(m.id.slice(4))).sort((x, y) => x - y),
    );
    expect(await memoryVia(env, "observe", A, 20)).toEqual(mine);
    const theirs = await memoryVia(env, "heartbeat", B, 20);
    expect(JSON.stringify(theirs)).not.toContain("B greets everyone");
    expect(theirs).toContainEqual(
      expect.objectContaining({ kind: "episode", what: "said", text: "said: hi A" }),
    );
  });

  it("refuses a memory size outside 1..20 (strict like every request)", async () => {
    const env = await createTestEnv();
    await env.join(A);
    for (const memory of [0, 21, 2.5, "5", true]) {
      const hb = await env.service.call("heartbeat", A, { agentId: A, roomId: room, memory });
      expect(errorOf(hb).code).toBe("bad_request");
      const ob = await env.service.call("observe", A, {
        agentId: A,
        roomId: room,
        radius: 64,
        detail: "lite",
        memory,
      });
      expect(errorOf(ob).code).toBe("bad_request");
    }
  });

  it("property: trimming to N keeps reflections over equally important, equally old episodes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 8 }),
        async (reflections, limit) => {
          const env = await createTestEnv();
          await env.join(A, B);
          // Reflections first, then more (and newer) episodes of the same importance (heard: 0.6):
          // only the weight of 2 keeps the reflections.
          for (let i = 0; i < reflections; i++) {
            await reflect(env, { txId: `tx_wm_prop_r_${i}_x`, content: `r${i}`, importance: 0.6 });
          }
          for (let i = 0; i < 10; i++) {
            await env.tick(
              env.service.call("chatSend", B, {
                agentId: B,
                roomId: room,
                txId: `tx_wm_prop_chat_${i}`,
                channel: "global",
                message: `m${i}`,
              }),
            );
          }
          const kept = await memoryVia(env, "heartbeat", A, limit);
          expect(kept).toHaveLength(limit);
          const keptReflections = kept.filter((m) => m.kind === "reflection").length;
          expect(keptReflections).toBe(Math.min(reflections, limit));
        },
      ),
      { numRuns: 10 },
    );
  });
});
