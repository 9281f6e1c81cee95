// The heartbeat (issue #12): delta perception, context tokens, suggestions, and an embedded action
// that takes exactly the path of its endpoint. Properties of the seed's invariants use fast-check.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTEXT_TOKEN_TTL_MS, ContextTokens } from "./context-token.ts";
import { RateLimiter } from "./rate-limit.ts";
import type { HeartbeatResponse } from "./schemas.ts";
import { AicService } from "./service.ts";
import { createTestEnv, TEST_AGENTS, type TestEnv } from "./testing/local-world.ts";
import { checkResponse } from "./testing/oracle.ts";

const A = "agent_helper";
const B = "agent_other";
const room = "lobby";

function ticks(env: TestEnv, n: number) {
  for (let i = 0; i < n; i++) env.runtime.stepNow();
}

/** One agent's move, submitted and ticked in (a walk then takes ticks of its own). */
function walk(env: TestEnv, agentId: string, txId: string, dest: { tx: number; ty: number }) {
  return env.tick(env.service.call("moveTo", agentId, { agentId, roomId: room, txId, dest }));
}

async function beat(env: TestEnv, extra: Record<string, unknown> = {}, service = env.service) {
  const answer = await service.call("heartbeat", A, { agentId: A, roomId: room, ...extra });
  expect(checkResponse("HeartbeatResponseData", answer, { oracle: false })).toEqual([]);
  return answer;
}

function data(answer: { status: string }): HeartbeatResponse {
  if (answer.status !== "ok") throw new Error(`heartbeat failed: ${JSON.stringify(answer)}`);
  return (answer as unknown as { data: HeartbeatResponse }).data;
}

describe("heartbeat: delta perception", () => {
  it("starts empty, then reports who came near, and what it heard — never its own chat", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const first = data(await beat(env));
    expect(first.delta).toEqual({});
    // The bundled lobby's spawns are on the plaza: its own arrival is the room's only activity.
    expect(first.self.place?.id).toBe("plaza");
    expect(first.signals).toEqual({ plaza: { arrive: 1 } });
    expect(first.serverTsMs).toBe(env.world.serverTsMs);
    // Defaults are left out (issue #45, the 250-token goal): the token's expiry is always serverTsMs +
    // CONTEXT_TOKEN_TTL_MS, and the room is the one asked about.
    expect(first).not.toHaveProperty("expiresAtMs");
    expect(first.self).not.toHaveProperty("roomId");

    await env.join(B);
    const at = env.world.getEntity("agt_agent_helper")!.tile;
    await walk(env, B, "tx_b_walk_0001", { tx: at.tx + 1, ty: at.ty });
    ticks(env, 60);
    await env.tick(
      env.service.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_own_chat_1",
        channel: "global",
        message: "me",
      }),
    );
    await env.tick(
      env.service.call("chatSend", B, {
        agentId: B,
        roomId: room,
        txId: "tx_b_chat_0001",
        channel: "global",
        message: "hello helper",
      }),
    );
    ticks(env, 10);
    const second = data(await beat(env, { contextToken: first.contextToken }));
    expect(second.delta.heard).toEqual([
      { from: "agt_agent_other", name: "Other Bot", channel: "global", message: "hello helper" },
    ]);
    expect(second.delta.arrived).toEqual([{ id: "agt_agent_other", name: "Other Bot" }]);
    // World signals count everyone (itself too): two chats, two arrivals, B's move, on the plaza.
    expect(second.signals).toEqual({ plaza: { move: 1, chat: 2, arrive: 2 } });
    // Answering the one who spoke comes first among the suggestions.
    expect(second.suggestions[0]).toEqual({
      why: "answer Other Bot",
      action: { kind: "chatSend", channel: "global" },
    });

    // The next heartbeat continues from the second one's position: nothing new.
    const third = data(await beat(env, { contextToken: second.contextToken }));
    expect(third.delta).toEqual({});
  });

  it("reports an embedded move's outcome: moving, then arrived; and suggests the sign it walked to", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const first = data(await beat(env));
    const moving = data(
      await env.tick(
        env.service.call("heartbeat", A, {
          agentId: A,
          roomId: room,
          contextToken: first.contextToken,
          action: { kind: "moveTo", txId: "tx_hb_move_0001", dest: { tx: 21, ty: 13 } },
        }),
      ),
    );
    expect(moving.action).toMatchObject({
      status: "ok",
      data: { txId: "tx_hb_move_0001", result: "accepted" },
    });
    expect(moving.delta.move).toEqual({ dest: { tx: 21, ty: 13 }, status: "moving" });
    ticks(env, 100);
    const arrived = data(await beat(env, { contextToken: moving.contextToken }));
    expect(arrived.delta.move).toEqual({ dest: { tx: 21, ty: 13 }, status: "arrived" });
    // Standing still is the default, and the region is the place's id: neither is spelled out.
    expect(arrived.self).toEqual({
      place: { id: "plaza", name: "Plaza" },
      tile: { tx: 21, ty: 13 },
      view: env.world.viewOf("agt_agent_helper"),
    });
    expect(arrived.suggestions).toContainEqual(
      expect.objectContaining({ action: { kind: "interact", targetId: "obj_sign_welcome", action: "read" } }),
    );
    // Once arrived the move is reported no more.
    expect(data(await beat(env, { contextToken: arrived.contextToken })).delta.move).toBeUndefined();
  });
});

describe("heartbeat: own object changes and world signals", () => {
  const interact = (env: TestEnv, who: string, txId: string, action: "open" | "close") =>
    env.tick(
      env.service.call("interact", who, {
        agentId: who,
        roomId: room,
        txId,
        targetId: "obj_door_meeting",
        action,
      }),
    );

  it("a door the agent opened or closed itself is not in its delta; others perceive it", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const a0 = data(await beat(env));
    const b0 = data(await env.service.call("heartbeat", B, { agentId: B, roomId: room }));
    await walk(env, A, "tx_door_walk_01", { tx: 36, ty: 6 });
    ticks(env, 400);
    expect(env.world.getEntity("agt_agent_helper")!.tile).toEqual({ tx: 36, ty: 6 });
    expect(await interact(env, A, "tx_door_open_01", "open")).toMatchObject({
      status: "ok",
      data: { outcome: { type: "ok" } },
    });
    const a1 = data(await beat(env, { contextToken: a0.contextToken }));
    expect(a1.delta.objects).toBeUndefined();
    expect(a1.self.place?.id).toBe("town_hall");
    const b1 = data(
      await env.service.call("heartbeat", B, { agentId: B, roomId: room, contextToken: b0.contextToken }),
    );
    expect(b1.delta.objects).toEqual([{ id: "obj_door_meeting", state: { open: true } }]);
    // The second time too: closing it again is still its own doing.
    expect(await interact(env, A, "tx_door_close_1", "close")).toMatchObject({
      data: { outcome: { type: "ok" } },
    });
    expect(data(await beat(env, { contextToken: a1.contextToken })).delta.objects).toBeUndefined();
    const b2 = data(
      await env.service.call("heartbeat", B, { agentId: B, roomId: room, contextToken: b1.contextToken }),
    );
    expect(b2.delta.objects).toEqual([{ id: "obj_door_meeting", state: { open: false } }]);
    // The interactions count in the region where A stood, as seen from both.
    expect(a1.signals?.town_hall).toMatchObject({ interact: 1 });
  });

  it("signals: own region first when active, then the busiest of the room, at most 3, zero counts left out", async () => {
    const env = await createTestEnv();
    const C = "agent_third";
    await env.join(A, B, C);
    const walk = (who: string, txId: string, tx: number, ty: number) =>
      env.tick(env.service.call("moveTo", who, { agentId: who, roomId: room, txId, dest: { tx, ty } }));
    await walk(A, "tx_sig_walk_a1", 8, 27); // the reading corner
    await walk(B, "tx_sig_walk_b1", 40, 6); // the meeting room (through the hall: its door is closed)
    await walk(C, "tx_sig_walk_c1", 44, 16); // the east gate
    ticks(env, 600);
    const hb = data(await beat(env));
    expect(hb.self.place?.id).toBe("reading_corner");
    const view = env.world.signals(room)!;
    const total = (id: string) => {
      const c = view.regions.find((r) => r.id === id)!.counts;
      return c.move + c.chat + c.interact + c.arrive + c.depart;
    };
    const listed = Object.keys(hb.signals!);
    expect(listed.length).toBe(3);
    expect(listed[0]).toBe("reading_corner");
    const others = listed.slice(1).map(total);
    expect(others).toEqual([...others].sort((x, y) => y - x));
    const leftOut = view.regions.filter((r) => !listed.includes(r.id)).map((r) => total(r.id));
    for (const n of leftOut) expect(n).toBeLessThanOrEqual(Math.min(...others));
    for (const [id, reported] of Object.entries(hb.signals!)) {
      const counts = view.regions.find((r) => r.id === id)!.counts;
      expect(reported).toEqual(Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)));
    }
  });

  it("a room without regions: no region, no signals, the heartbeat still answers", async () => {
    const env = await createTestEnv();
    await env.join(A);
    await walk(env, A, "tx_nowhere_01", { tx: 5, ty: 5 });
    ticks(env, 1400); // past the window: the arrival on the plaza is forgotten
    const hb = data(await beat(env));
    expect(env.world.getEntity("agt_agent_helper")!.tile).toEqual({ tx: 5, ty: 5 });
    expect(hb.self.place?.id).toBeUndefined();
    expect(hb.signals).toBeUndefined();
  });
});

describe("heartbeat: context tokens", () => {
  it("a first heartbeat (no token) runs its action and mints the token in the same call (#25)", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const answer = await env.tick(
      beat(env, { action: { kind: "chatSend", txId: "tx_no_token_01", channel: "global", message: "hi" } }),
    );
    const hb = data(answer);
    expect(hb.action).toMatchObject({ status: "ok" });
    expect(hb.contextToken).toMatch(/\./);
    expect(env.world.chatFor("agt_agent_other", room, 0).map((m) => m.message)).toEqual(["hi"]);
    // The minted token carries the protection on: the next beat with it reports from here on.
    const next = data(await beat(env, { contextToken: hb.contextToken }));
    expect(next.reset).toBeUndefined();
  });

  it("an embedded action carries expect guards: a stale one is refused in `action`, a fresh one applies (#30)", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const said = (txId: string, equals: boolean) =>
      env.tick(
        beat(env, {
          action: {
            kind: "chatSend",
            txId,
            channel: "global",
            message: `door open: ${equals}`,
            expect: { objectState: { objectId: "obj_door_meeting", field: "open", equals } },
          },
        }),
      );
    const stale = data(await said("tx_beat_guard_01", true));
    expect(stale.action).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { guard: { kind: "object_state_is" } } },
    });
    const fresh = data(await said("tx_beat_guard_02", false));
    expect(fresh.action).toMatchObject({ status: "ok" });
    expect(env.world.chatFor("agt_agent_other", room, 0).map((m) => m.message)).toEqual(["door open: false"]);
  });

  it("an expired token refuses the action (conflict context_expired) and resets a plain heartbeat", async () => {
    const env = await createTestEnv();
    const tokens = new ContextTokens(Buffer.alloc(32, 7));
    const service = new AicService({
      runtime: env.runtime,
      agents: (id) => TEST_AGENTS[id],
      limiter: env.limiter,
      contextTokens: tokens,
    });
    await env.join(A);
    const stale = tokens.issue({
      agentId: A,
      roomId: room,
      afterSeq: 0,
      issuedTsMs: env.world.serverTsMs - CONTEXT_TOKEN_TTL_MS - 1,
      expiresAtMs: env.world.serverTsMs - 1,
    });
    const refused = await beat(
      env,
      { contextToken: stale, action: { kind: "chatSend", txId: "tx_expired_001", message: "hi" } },
      service,
    );
    expect(refused).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { reason: "context_expired" } },
    });
    const reset = data(await beat(env, { contextToken: stale }, service));
    expect(reset.reset).toBe("expired");
    expect(reset.delta).toEqual({});
    // A token of another agent, or signed by another key, is invalid.
    const other = tokens.issue({
      agentId: B,
      roomId: room,
      afterSeq: 0,
      issuedTsMs: env.world.serverTsMs,
      expiresAtMs: env.world.serverTsMs + 1000,
    });
    expect(data(await beat(env, { contextToken: other }, service)).reset).toBe("invalid");
    const fresh = data(await beat(env, {}, service)).contextToken;
    expect(data(await beat(env, { contextToken: fresh })).reset).toBe("invalid"); // env.service has its own key
  });

  it("property: an embedded action with any token not issued to this agent is refused and applies nothing", async () => {
    const env = await createTestEnv();
    await env.join(A);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.stringMatching(/^[A-Za-z0-9_-]{23,34}\.[A-Za-z0-9_-]{16}$/)),
        async (token) => {
          const answer = await env.service.call("heartbeat", A, {
            agentId: A,
            roomId: room,
            contextToken: token,
            action: { kind: "chatSend", txId: "tx_forged_0001", channel: "global", message: "forged" },
          });
          expect(answer.status).toBe("error");
          env.runtime.stepNow();
          expect(env.world.chatFor("agt_agent_helper", room, 0)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("heartbeat: the embedded action is its endpoint", () => {
  it("shares the endpoint's idempotency: the same txId via moveTo replays; another payload conflicts", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const token = data(await beat(env)).contextToken;
    const viaHeartbeat = data(
      await env.tick(
        env.service.call("heartbeat", A, {
          agentId: A,
          roomId: room,
          contextToken: token,
          action: { kind: "moveTo", txId: "tx_shared_0001", dest: { tx: 20, ty: 12 } },
        }),
      ),
    );
    const direct = await env.service.call("moveTo", A, {
      agentId: A,
      roomId: room,
      txId: "tx_shared_0001",
      dest: { tx: 20, ty: 12 },
    });
    expect(direct).toEqual(viaHeartbeat.action);
    const other = await env.service.call("moveTo", A, {
      agentId: A,
      roomId: room,
      txId: "tx_shared_0001",
      dest: { tx: 19, ty: 12 },
    });
    expect(other).toMatchObject({ status: "error", error: { code: "conflict" } });
    // And the other way round: a chat sent directly is replayed, not re-posted, by a heartbeat.
    const said = await env.tick(
      env.service.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_shared_0002",
        channel: "proximity",
        message: "once",
      }),
    );
    const again = data(
      await env.service.call("heartbeat", A, {
        agentId: A,
        roomId: room,
        contextToken: token,
        action: { kind: "chatSend", txId: "tx_shared_0002", message: "once" },
      }),
    );
    expect(again.action).toEqual(said);
    expect(env.world.chatFor("agt_agent_helper", room, 0)).toHaveLength(1);
  });

  it("shares the endpoint's rate class: embedded moves drain the same 'action' bucket as moveTo", async () => {
    const env = await createTestEnv({
      rateLimits: { classes: { action: { perSec: 0.001, burst: 2 } } },
      limiterNow: () => 0,
    });
    await env.join(A);
    const token = data(await beat(env)).contextToken;
    for (const n of [1, 2]) {
      const hb = data(
        await env.tick(
          env.service.call("heartbeat", A, {
            agentId: A,
            roomId: room,
            contextToken: token,
            action: { kind: "moveTo", txId: `tx_rate_move_${n}0`, dest: { tx: 20, ty: 10 + n } },
          }),
        ),
      );
      expect(hb.action?.status).toBe("ok");
    }
    const direct = await env.service.call("moveTo", A, {
      agentId: A,
      roomId: room,
      txId: "tx_rate_move_30",
      dest: { tx: 20, ty: 13 },
    });
    expect(direct).toMatchObject({
      status: "error",
      error: { code: "rate_limited", details: { rateClass: "action" } },
    });
    const embedded = data(
      await env.service.call("heartbeat", A, {
        agentId: A,
        roomId: room,
        contextToken: token,
        action: { kind: "interact", txId: "tx_rate_move_40", targetId: "obj_sign_welcome", action: "read" },
      }),
    );
    expect(embedded.action).toMatchObject({ status: "error", error: { code: "rate_limited" } });
  });

  it("the heartbeat has its own rate class", async () => {
    const env = await createTestEnv({
      rateLimits: { classes: { heartbeat: { perSec: 0.001, burst: 1 } } },
      limiterNow: () => 0,
    });
    await env.join(A);
    expect((await beat(env)).status).toBe("ok");
    expect(await beat(env)).toMatchObject({
      status: "error",
      error: { code: "rate_limited", details: { rateClass: "heartbeat" } },
    });
  });

  it("only for the caller's own agent, in the room it is in", async () => {
    const env = await createTestEnv();
    await env.join(A);
    expect(await env.service.call("heartbeat", B, { agentId: A, roomId: room })).toMatchObject({
      status: "error",
      error: { code: "forbidden" },
    });
    expect(await env.service.call("heartbeat", B, { agentId: B, roomId: room })).toMatchObject({
      status: "error",
      error: { code: "agent_not_in_room" },
    });
    expect(await env.service.call("heartbeat", A, { agentId: A, roomId: room, extra: 1 })).toMatchObject({
      status: "error",
      error: { code: "bad_request" },
    });
  });
});

describe("heartbeat: properties", () => {
  const step = fc.oneof(
    fc.record({
      who: fc.constantFrom(A, B),
      kind: fc.constant("chat" as const),
      message: fc.string({ minLength: 1, maxLength: 20 }),
    }),
    fc.record({
      who: fc.constantFrom(A, B),
      kind: fc.constant("move" as const),
      tx: fc.integer({ min: 17, max: 24 }),
      ty: fc.integer({ min: 9, max: 14 }),
    }),
    fc.record({ who: fc.constantFrom(A, B), kind: fc.constant("beat" as const) }),
    fc.record({
      who: fc.constantFrom(A, B),
      kind: fc.constant("wait" as const),
      n: fc.integer({ min: 1, max: 30 }),
    }),
  );

  it("a delta never includes the agent's own actions, and heartbeats without an action change nothing", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        run++;
        const env = await createTestEnv();
        const twin = await createTestEnv(); // the same inputs, no heartbeats
        await env.join(A, B);
        await twin.join(A, B);
        const tokens: Record<string, string | undefined> = {};
        let n = 0;
        for (const s of steps) {
          n++;
          const txId = `tx_prop_${run}_${n}_x`;
          if (s.kind === "beat") {
            const answer = await env.service.call("heartbeat", s.who, {
              agentId: s.who,
              roomId: room,
              ...(tokens[s.who] ? { contextToken: tokens[s.who] } : {}),
            });
            const d = data(answer);
            tokens[s.who] = d.contextToken;
            const self = `agt_${s.who}`;
            expect((d.delta.heard ?? []).every((h) => h.from !== self)).toBe(true);
            expect(
              [...(d.delta.arrived ?? []), ...(d.delta.departed ?? [])].every((e) => e.id !== self),
            ).toBe(true);
            continue;
          }
          for (const e of [env, twin]) {
            if (s.kind === "wait") ticks(e, s.n);
            else if (s.kind === "chat")
              await e.tick(
                e.service.call("chatSend", s.who, {
                  agentId: s.who,
                  roomId: room,
                  txId,
                  channel: "global",
                  message: s.message,
                }),
              );
            else
              await e.tick(
                e.service.call("moveTo", s.who, {
                  agentId: s.who,
                  roomId: room,
                  txId,
                  dest: { tx: s.tx, ty: s.ty },
                }),
              );
          }
        }
        expect(env.world.tick).toBe(twin.world.tick);
        expect(env.world.snapshotHash()).toBe(twin.world.snapshotHash());
      }),
      { numRuns: 25 },
    );
  });
});

void RateLimiter;

describe("the view digest: what the agent saw, and a guard on it (#30)", () => {
  it("heartbeat and observe show the same view; expect.view acts only while nothing near changed, on every door", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const hb = data(await beat(env));
    const observed = await env.service.call("observe", A, {
      agentId: A,
      roomId: room,
      radius: 64,
      detail: "lite",
    });
    // The PRD's observe answer stays valid: the digest rides in self.meta, the one open object.
    expect(checkResponse("ObserveResponseData", observed)).toEqual([]);
    const meta = (observed as unknown as { data: { self: { meta: { view: string } } } }).data.self.meta;
    expect(hb.self.view).toMatch(/^[0-9a-f]{12}$/);
    expect(meta.view).toBe(hb.self.view);
    const say = (txId: string, view: string) =>
      env.tick(
        env.service.call("chatSend", A, {
          agentId: A,
          roomId: room,
          txId,
          channel: "global",
          message: txId,
          expect: { view },
        }),
      );
    expect(await say("tx_view_same_01", hb.self.view!)).toMatchObject({ status: "ok" });
    await env.join(B);
    await walk(env, B, "tx_view_b_walk1", { tx: hb.self.tile.tx + 1, ty: hb.self.tile.ty });
    ticks(env, 60);
    expect(await say("tx_view_stale_1", hb.self.view!)).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { guard: { kind: "view_is" } } },
    });
    const fresh = data(await beat(env));
    expect(fresh.self.view).not.toBe(hb.self.view);
    const embedded = data(
      await env.tick(
        beat(env, {
          contextToken: fresh.contextToken,
          action: {
            kind: "chatSend",
            txId: "tx_view_embed_1",
            channel: "global",
            message: "still",
            expect: { view: fresh.self.view },
          },
        }),
      ),
    );
    expect(embedded.action).toMatchObject({ status: "ok" });
    expect(env.world.chatFor("agt_agent_other", room, 0).map((m) => m.message)).toEqual(["still"]);
    const malformed = await env.service.call("chatSend", A, {
      agentId: A,
      roomId: room,
      txId: "tx_view_bad_001",
      channel: "global",
      message: "x",
      expect: { view: "not a digest" },
    });
    expect(malformed).toMatchObject({ status: "error", error: { code: "bad_request" } });
  });
});
