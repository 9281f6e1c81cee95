import { describe, expect, it } from "vitest";
import { World } from "../world/world.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { RateLimiter } from "./rate-limit.ts";
import { AicService, LONG_POLL_MIN_INTERVAL_MS } from "./service.ts";
import { admitted, createTestEnv, lobbyDefinition, ManualClock, TEST_AGENTS } from "./testing/local-world.ts";
import { checkResponse } from "./testing/oracle.ts";

const A = "agent_helper";
const B = "agent_other";
const C = "agent_third";
const room = "lobby";

function ticks(env: { runtime: { stepNow(): unknown } }, n: number) {
  for (let i = 0; i < n; i++) env.runtime.stepNow();
}

/** A world on a hand-moved clock with `agents` joined, and A's cursor past everything so far. */
async function caughtUp(...agents: string[]) {
  const clock = new ManualClock();
  const env = await createTestEnv({ clock });
  await env.join(...agents);
  const start = await env.service.call("pollEvents", A, {
    agentId: A,
    roomId: room,
    sinceCursor: "c_0",
    limit: 200,
  });
  if (start.status !== "ok") throw new Error("poll failed");
  const listeners = () => (env.runtime as unknown as { listeners: Set<unknown> }).listeners.size;
  return { clock, env, s: env.service, cursor: start.data.nextCursor, listeners };
}

describe("AicService with the real lobby world", () => {
  it("PRD flow: join, observe, moveTo, interact(read), chatSend, chatObserve, pollEvents from c_0 — all schema-valid", async () => {
    const env = await createTestEnv();
    const s = env.service;
    const joined = await env.tick(s.call("join", A, { agentId: A, roomId: room }));
    expect(checkResponse("JoinResponseData", joined, { oracle: false })).toEqual([]);
    expect(joined).toMatchObject({ status: "ok", data: { entityId: "agt_agent_helper", roomId: room } });

    const moved = await env.tick(
      s.call("moveTo", A, {
        agentId: A,
        roomId: room,
        txId: "tx_abc123def456",
        dest: { tx: 21, ty: 13 },
        mode: "walk",
      }),
    );
    expect(moved).toMatchObject({
      status: "ok",
      data: { txId: "tx_abc123def456", applied: true, result: "accepted" },
    });
    expect(checkResponse("MoveToResponseData", moved)).toEqual([]);
    ticks(env, 80);
    expect(env.world.getEntity("agt_agent_helper")?.tile).toEqual({ tx: 21, ty: 13 });

    const observed = await s.call("observe", A, {
      agentId: A,
      roomId: room,
      radius: 100,
      detail: "full",
      includeSelf: true,
    });
    expect(checkResponse("ObserveResponseData", observed)).toEqual([]);
    if (observed.status !== "ok") throw new Error("observe failed");
    expect(observed.data.serverTsMs).toBe(env.world.serverTsMs);
    expect(observed.data.room).toEqual({ roomId: room, mapId: "lobby_v1", tickRate: 20 });
    const sign = observed.data.nearby.find((n) => n.entity.id === "obj_sign_welcome");
    expect(sign?.affords.map((a) => a.action)).toContain("read");
    expect(sign?.object).toEqual({
      objectType: "sign",
      state: expect.objectContaining({ text: "Welcome to OpenClawWorld!" }),
    });
    expect(observed.data.nearby.map((n) => n.distance)).toEqual(
      [...observed.data.nearby.map((n) => n.distance)].sort((x, y) => x - y),
    );
    expect(observed.data.nearby.some((n) => n.entity.id === "agt_agent_helper")).toBe(true);

    const lite = await s.call("observe", A, {
      agentId: A,
      roomId: room,
      radius: 100,
      detail: "lite",
      includeSelf: false,
    });
    expect(checkResponse("ObserveResponseData", lite)).toEqual([]);
    if (lite.status !== "ok") throw new Error("observe failed");
    expect(lite.data.nearby.some((n) => n.entity.id === "agt_agent_helper")).toBe(false);
    expect(lite.data.nearby.every((n) => n.object === undefined && n.entity.meta === undefined)).toBe(true);
    expect(lite.data.nearby.find((n) => n.entity.id === "obj_sign_welcome")?.affords.length).toBeGreaterThan(
      0,
    );

    const read = await env.tick(
      s.call("interact", A, {
        agentId: A,
        roomId: room,
        txId: "tx_interact_001",
        targetId: "obj_sign_welcome",
        action: "read",
        params: {},
      }),
    );
    expect(read).toMatchObject({
      status: "ok",
      data: { applied: true, outcome: { type: "ok", message: "Welcome to OpenClawWorld!" } },
    });
    expect(checkResponse("InteractResponseData", read)).toEqual([]);

    const chat = await env.tick(
      s.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_chat_001",
        channel: "proximity",
        message: "Hello everyone!",
      }),
    );
    expect(checkResponse("ChatSendResponseData", chat)).toEqual([]);

    const heard = await s.call("chatObserve", A, {
      agentId: A,
      roomId: room,
      windowSec: 60,
      channel: "proximity",
    });
    expect(checkResponse("ChatObserveResponseData", heard)).toEqual([]);
    expect(heard.status === "ok" && heard.data.messages.map((m) => m.message)).toEqual(["Hello everyone!"]);

    const polled = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: "c_0",
      limit: 50,
      waitMs: 0,
    });
    expect(checkResponse("PollEventsResponseData", polled)).toEqual([]);
    if (polled.status !== "ok") throw new Error("poll failed");
    expect(polled.data.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["presence.join", "chat.message"]),
    );
    // Cursors are monotonic and the next poll from nextCursor is empty.
    const seqs = polled.data.events.map(
      (e) => (decodeCursor(e.cursor, room) as { position: { afterSeq: number } }).position.afterSeq,
    );
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const again = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: polled.data.nextCursor,
    });
    expect(again.status === "ok" && again.data.events).toEqual([]);
  });

  it("answers agent_not_in_room until join, and again after leave", async () => {
    const env = await createTestEnv();
    const s = env.service;
    const calls = [
      () => s.call("observe", A, { agentId: A, roomId: room, radius: 10, detail: "lite" }),
      () => s.call("chatObserve", A, { agentId: A, roomId: room, windowSec: 10 }),
      () => s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: "c_0" }),
      () =>
        env.tick(
          s.call("moveTo", A, { agentId: A, roomId: room, txId: "tx_notinroom1", dest: { tx: 20, ty: 13 } }),
        ),
      () =>
        env.tick(
          s.call("chatSend", A, {
            agentId: A,
            roomId: room,
            txId: "tx_notinroom2",
            channel: "global",
            message: "x",
          }),
        ),
      () =>
        env.tick(
          s.call("interact", A, {
            agentId: A,
            roomId: room,
            txId: "tx_notinroom3",
            targetId: "obj_sign_welcome",
            action: "read",
          }),
        ),
    ];
    for (const call of calls)
      expect((await call()) as unknown).toMatchObject({
        status: "error",
        error: { code: "agent_not_in_room" },
      });
    await env.join(A);
    expect((await calls[0]!()).status).toBe("ok");
    const left = await env.tick(s.call("leave", A, { agentId: A, roomId: room }));
    expect(left).toMatchObject({ status: "ok", data: { entityId: "agt_agent_helper", roomId: room } });
    expect(checkResponse("LeaveResponseData", left, { oracle: false })).toEqual([]);
    expect(await calls[0]!()).toMatchObject({ status: "error", error: { code: "agent_not_in_room" } });
    // Another room the agent is not in.
    await env.join(A);
    expect(
      await s.call("observe", A, { agentId: A, roomId: "garden", radius: 10, detail: "lite" }),
    ).toMatchObject({
      error: { code: "agent_not_in_room" },
    });
    expect(
      await s.call("observe", A, { agentId: A, roomId: "nowhere", radius: 10, detail: "lite" }),
    ).toMatchObject({
      error: { code: "not_found" },
    });
  });

  it("scope: body agentId must be the caller (forbidden); unprovisioned agents are forbidden", async () => {
    const env = await createTestEnv();
    expect(
      await env.service.call("observe", B, { agentId: A, roomId: room, radius: 10, detail: "lite" }),
    ).toMatchObject({
      error: { code: "forbidden", retryable: false },
    });
    expect(await env.service.call("join", "ghost", { agentId: "ghost", roomId: room })).toMatchObject({
      error: { code: "forbidden" },
    });
  });

  it("strict validation: unknown keys, wrong types, non-objects are bad_request with issues", async () => {
    const env = await createTestEnv();
    await env.join(A);
    for (const body of [
      undefined,
      null,
      42,
      "x",
      [],
      { agentId: A },
      { agentId: A, roomId: room, radius: 10, detail: "full", x: 1 },
    ]) {
      const result = await env.service.call("observe", A, body);
      expect(result).toMatchObject({ status: "error", error: { code: "bad_request", retryable: false } });
      expect(checkResponse("ObserveResponseData", result)).toEqual([]);
    }
  });

  it("idempotency: same txId + payload replays byte-identical (incl. errors); other payload is conflict", async () => {
    const env = await createTestEnv();
    const s = env.service;
    await env.join(A, B);
    const chat = {
      agentId: A,
      roomId: room,
      txId: "tx_chat_once_1",
      channel: "global",
      message: "only once",
    };
    const first = JSON.stringify(await env.tick(s.call("chatSend", A, chat)));
    ticks(env, 30);
    const second = JSON.stringify(await s.call("chatSend", A, { ...chat }));
    expect(second).toBe(first);
    const heard = await s.call("chatObserve", B, { agentId: B, roomId: room, windowSec: 300 });
    expect(heard.status === "ok" && heard.data.messages.filter((m) => m.message === "only once").length).toBe(
      1,
    );

    const blocked = { agentId: A, roomId: room, txId: "tx_blocked_01", dest: { tx: 0, ty: 0 } };
    const err1 = JSON.stringify(await env.tick(s.call("moveTo", A, blocked)));
    expect(JSON.parse(err1)).toMatchObject({ status: "error", error: { code: "collision_blocked" } });
    ticks(env, 5);
    expect(JSON.stringify(await s.call("moveTo", A, blocked))).toBe(err1);
    // Defaults are part of the payload: an explicit mode "walk" is the same request.
    expect(JSON.stringify(await s.call("moveTo", A, { ...blocked, mode: "walk" }))).toBe(err1);
    expect(await s.call("moveTo", A, { ...blocked, dest: { tx: 1, ty: 0 } })).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { reason: "tx_payload_mismatch" } },
    });
    // Same txId from another agent is another key.
    expect((await env.tick(s.call("moveTo", B, { ...blocked, agentId: B }))).status).toBe("error");

    // A reused txId with another payload gets the same answer whether the first request was applied
    // ticks ago (found before queueing) or is applied in the same tick (found by the world).
    const reused = { agentId: A, roomId: room, txId: "tx_reuse_tick", dest: { tx: 22, ty: 14 } };
    const sameTickA = s.call("moveTo", A, reused);
    const sameTickB = s.call("moveTo", A, { ...reused, dest: { tx: 23, ty: 14 } });
    env.runtime.stepNow();
    await sameTickA;
    const inTick = await sameTickB;
    const later = await s.call("moveTo", A, { ...reused, dest: { tx: 23, ty: 14 } });
    expect(inTick).toMatchObject({ error: { code: "conflict", details: { reason: "tx_payload_mismatch" } } });
    expect(JSON.stringify(later)).toBe(JSON.stringify(inTick));

    // Two identical submissions in the same tick: one applies, both answers are identical.
    const move = { agentId: A, roomId: room, txId: "tx_samtick_1", dest: { tx: 22, ty: 14 } };
    const p1 = s.call("moveTo", A, move);
    const p2 = s.call("moveTo", A, move);
    env.runtime.stepNow();
    expect(JSON.stringify(await p1)).toBe(JSON.stringify(await p2));
  });

  it("approach: the world's walk into reach, at the agent door too (idempotent, schema-valid, typed refusals)", async () => {
    const env = await createTestEnv();
    const s = env.service;
    await env.join(A);
    const body = { agentId: A, roomId: room, txId: "tx_approach_sign", targetId: "obj_sign_welcome" };
    const walked = await env.tick(s.call("approach", A, body));
    expect(checkResponse("ApproachResponseData", walked, { oracle: false })).toEqual([]);
    if (walked.status !== "ok") throw new Error(JSON.stringify(walked));
    expect(walked.data).toMatchObject({ txId: body.txId, targetId: "obj_sign_welcome", applied: true });
    ticks(env, 200);
    expect(env.world.getEntity("agt_agent_helper")?.tile).toEqual(walked.data.dest);
    expect(JSON.stringify(await s.call("approach", A, body))).toBe(JSON.stringify(walked));
    const read = await env.tick(s.call("interact", A, { ...body, txId: "tx_approach_read", action: "read" }));
    expect(read).toMatchObject({ status: "ok", data: { outcome: { type: "ok" } } });
    const nope = await env.tick(
      s.call("approach", A, { ...body, txId: "tx_approach_nope", targetId: "obj_nope" }),
    );
    expect(nope).toMatchObject({ status: "error", error: { code: "not_found", retryable: false } });
    const elsewhere = await env.tick(
      s.call("approach", A, { ...body, txId: "tx_approach_room", roomId: "garden" }),
    );
    expect(elsewhere).toMatchObject({ status: "error", error: { code: "agent_not_in_room" } });
  });

  it("idempotent results survive snapshot/restore (sim-time retention)", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const chat = { agentId: A, roomId: room, txId: "tx_restore_01", channel: "global", message: "persist" };
    const first = JSON.stringify(await env.tick(env.service.call("chatSend", A, chat)));
    const restored = World.restore(await lobbyDefinition(), env.world.snapshot());
    const { WorldRuntime } = await import("../runtime/world-runtime.ts");
    const runtime = new WorldRuntime(restored, { info() {}, warn() {}, error() {} });
    const service = new AicService({
      runtime,
      agents: (id) => TEST_AGENTS[id],
      limiter: new RateLimiter({ disabled: true }),
    });
    expect(JSON.stringify(await service.call("chatSend", A, chat))).toBe(first);
  });

  it("expect guards map to world guards; a stale one is conflict and nothing applies", async () => {
    const env = await createTestEnv();
    const s = env.service;
    await env.join(A);
    const start = env.world.getEntity("agt_agent_helper")!.tile;
    const stale = await env.tick(
      s.call("moveTo", A, {
        agentId: A,
        roomId: room,
        txId: "tx_guard_0001",
        dest: { tx: 22, ty: 14 },
        expect: { tick: 999 },
      }),
    );
    expect(stale).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { guard: { kind: "tick_is" } } },
    });
    const near = await env.tick(
      s.call("interact", A, {
        agentId: A,
        roomId: room,
        txId: "tx_guard_0002",
        targetId: "obj_door_meeting",
        action: "open",
        expect: { entityNear: { entityId: "obj_door_meeting", withinTiles: 1 } },
      }),
    );
    expect(near).toMatchObject({ error: { code: "conflict", details: { guard: { kind: "entity_near" } } } });
    const state = await env.tick(
      s.call("chatSend", A, {
        agentId: A,
        roomId: room,
        txId: "tx_guard_0003",
        channel: "global",
        message: "door?",
        expect: { objectState: { objectId: "obj_door_meeting", field: "open", equals: true } },
      }),
    );
    expect(state).toMatchObject({
      error: { code: "conflict", details: { guard: { kind: "object_state_is" } } },
    });
    const hash = await env.tick(
      s.call("moveTo", A, {
        agentId: A,
        roomId: room,
        txId: "tx_guard_0004",
        dest: { tx: 22, ty: 14 },
        expect: { snapshotHash: "0".repeat(64) },
      }),
    );
    expect(hash).toMatchObject({
      error: { code: "conflict", details: { guard: { kind: "snapshot_hash_is" } } },
    });
    expect(env.world.getEntity("agt_agent_helper")!.tile).toEqual(start);
    // Fresh guards pass.
    const fresh = await env.tick(
      s.call("moveTo", A, {
        agentId: A,
        roomId: room,
        txId: "tx_guard_0005",
        dest: { tx: 22, ty: 14 },
        expect: {
          tick: env.world.tick,
          objectState: { objectId: "obj_door_meeting", field: "open", equals: false },
        },
      }),
    );
    expect(fresh).toMatchObject({ status: "ok", data: { result: "accepted" } });
  });

  it("rate limits per PRD 12: rate_limited, retryable, details.retryAfterMs; refills with the clock", async () => {
    const clock = { now: 0 };
    const env = await createTestEnv({ rateLimits: {}, limiterNow: () => clock.now });
    await env.join(A);
    const observe = () =>
      env.service.call("observe", A, { agentId: A, roomId: room, radius: 10, detail: "lite" });
    for (let i = 0; i < 5; i++) expect((await observe()).status).toBe("ok");
    const limited = await observe();
    expect(limited).toMatchObject({
      status: "error",
      error: { code: "rate_limited", retryable: true, details: { retryAfterMs: 500 } },
    });
    expect(checkResponse("ObserveResponseData", limited)).toEqual([]);
    // Another agent and another class are unaffected.
    expect(
      (await env.service.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: "c_0" })).status,
    ).toBe("ok");
    clock.now += 500;
    expect((await observe()).status).toBe("ok");
    // chatSend: burst 3.
    const results = [];
    for (let i = 0; i < 4; i++) {
      results.push(
        await env.tick(
          env.service.call("chatSend", A, {
            agentId: A,
            roomId: room,
            txId: `tx_ratechat_${i}`,
            channel: "global",
            message: "m",
          }),
        ),
      );
    }
    expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok", "error"]);
  });

  it("cursors: malformed and other-room cursors are bad_request; expired is conflict with nextCursor", async () => {
    const env = await createTestEnv({ patch: { eventRetention: 4, eventRetentionPerRecipient: 4 } });
    const s = env.service;
    await env.join(A);
    for (const sinceCursor of ["c_1", "AAAA", encodeCursor("garden", 0)]) {
      expect(await s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor })).toMatchObject({
        error: { code: "bad_request" },
      });
    }
    for (let i = 0; i < 8; i++) {
      await env.tick(
        s.call("chatSend", A, {
          agentId: A,
          roomId: room,
          txId: `tx_expire_0${i}`,
          channel: "global",
          message: `m${i}`,
        }),
      );
    }
    // A cursor that names a position from before the drops (not a start cursor, which never expires).
    const expired = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: encodeCursor(room, 0),
    });
    expect(expired).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { reason: "cursor_expired" } },
    });
    if (expired.status !== "error") throw new Error("expected error");
    const details = expired.error.details as { nextCursor: string; droppedCount: number };
    expect(details.droppedCount).toBeGreaterThan(0);
    const resumed = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: details.nextCursor,
      limit: 200,
    });
    // The room's newest 4 room-audience events and its pool of 4 older ones.
    expect(resumed.status === "ok" && resumed.data.events.length).toBe(8);
    expect(checkResponse("PollEventsResponseData", resumed)).toEqual([]);
  });

  it('a start cursor ("c_0", "0") never expires: on a world that dropped events, present and rejoining agents get what is kept', async () => {
    const env = await createTestEnv({ patch: { eventRetention: 4, eventRetentionPerRecipient: 4 } });
    const s = env.service;
    await env.join(A, B);
    const say = (k: number) =>
      env.tick(
        s.call("chatSend", B, {
          agentId: B,
          roomId: room,
          txId: `tx_start_${k}0000`,
          channel: "global",
          message: `m${k}`,
        }),
      );
    for (let i = 0; i < 8; i++) await say(i);
    // What a client resuming after cursor_expired gets: the same as a start cursor gets at once.
    const old = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: encodeCursor(room, 0),
      limit: 200,
    });
    if (old.status !== "error") throw new Error("expected the old cursor to have expired");
    const kept = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: (old.error.details as { nextCursor: string }).nextCursor,
      limit: 200,
    });
    for (const sinceCursor of ["c_0", "0"]) {
      const page = await s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor, limit: 200 });
      expect(page.status, JSON.stringify(page)).toBe("ok");
      expect(page).toEqual(kept);
      expect(checkResponse("PollEventsResponseData", page)).toEqual([]);
    }
    // A agent that left (its whole stay is dropped for it) and came back, after more traffic.
    await env.tick(s.call("leave", A, { agentId: A, roomId: room }));
    for (let i = 8; i < 12; i++) await say(i);
    await env.join(A);
    const back = await s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: "0", limit: 200 });
    expect(back.status, JSON.stringify(back)).toBe("ok");
    const messages = back.status === "ok" ? back.data.events.map((e) => e.type) : [];
    expect(messages).toContain("presence.join");
    // The SSE stream's start cursor is read the same way.
    const stream = await s.subscribeEvents(A, { agentId: A, roomId: room, sinceCursor: "c_0" });
    if (stream.status !== "ok") throw new Error(JSON.stringify(stream));
    const first = await stream.data.next(0);
    expect(first.status, JSON.stringify(first)).toBe("ok");
  });

  it("a long-poll answers one agent at most every LONG_POLL_MIN_INTERVAL_MS: a quick return waits and gets those ticks in one page", async () => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    const s = env.service;
    await env.join(A, B);
    const say = (k: number) =>
      s.call("chatSend", B, {
        agentId: B,
        roomId: room,
        txId: `tx_pace_${k}000`,
        channel: "global",
        message: `m${k}`,
      });
    const poll = (sinceCursor: string, waitMs: number) =>
      s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor, limit: 200, waitMs });
    const sent0 = say(0);
    env.runtime.stepNow();
    await sent0;
    const first = await poll("c_0", 5000);
    if (first.status !== "ok") throw new Error("poll failed");
    // Events are waiting at once, but A was answered 0 ms ago: the poll holds for the interval.
    const sent1 = say(1);
    env.runtime.stepNow();
    await sent1;
    let settled = false;
    const second = poll(first.data.nextCursor, 5000).then((r) => {
      settled = true;
      return r;
    });
    const sent2 = say(2);
    env.runtime.stepNow();
    await sent2;
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(LONG_POLL_MIN_INTERVAL_MS);
    const paced = await second;
    expect(paced.status === "ok" && paced.data.events.map((e) => e.payload.message)).toEqual(["m1", "m2"]);
    // A poll after the interval, or one that does not wait (waitMs 0), is answered at once.
    clock.advance(LONG_POLL_MIN_INTERVAL_MS);
    const sent3 = say(3);
    env.runtime.stepNow();
    await sent3;
    const later = await poll((paced as { data: { nextCursor: string } }).data.nextCursor, 5000);
    expect(later.status === "ok" && later.data.events.map((e) => e.payload.message)).toEqual(["m3"]);
    const sent4 = say(4);
    env.runtime.stepNow();
    await sent4;
    const noWait = await poll((later as { data: { nextCursor: string } }).data.nextCursor, 0);
    expect(noWait.status === "ok" && noWait.data.events.map((e) => e.payload.message)).toEqual(["m4"]);
    expect(clock.pending).toBe(0);
  });

  it("close() answers every parked read at once and parks no more: no call outlives a stopping world (#25)", async () => {
    const { clock, s, cursor, listeners } = await caughtUp(A);
    const baseline = listeners();
    const parked = s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: cursor, waitMs: 25000 });
    const stream = await s.subscribeEvents(A, { agentId: A, roomId: room });
    if (stream.status !== "ok") throw new Error("subscribe failed");
    const streamRead = stream.data.next(25000, undefined);
    await admitted();
    expect(listeners()).toBe(baseline + 2);
    s.close();
    expect(await parked).toMatchObject({ status: "ok", data: { events: [] } });
    expect(await streamRead).toMatchObject({ status: "ok", data: { events: [] } });
    expect(listeners()).toBe(baseline);
    expect(clock.pending).toBe(0);
    // A later read that would wait is told the world is stopping (retryable), and does not park.
    const later = await s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: cursor,
      waitMs: 1000,
    });
    expect(later).toMatchObject({ status: "error", error: { code: "room_not_ready", retryable: true } });
    expect(await stream.data.next(1000, undefined)).toMatchObject({ status: "error" });
    expect(listeners()).toBe(baseline);
  });

  it("parallel long-polls of one agent are paced per agent, not per request", async () => {
    const { clock, env, s, cursor } = await caughtUp(A, B);
    const answeredAt: number[] = [];
    const polls = [0, 1, 2].map(() =>
      s.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: cursor, waitMs: 5000 }).then((r) => {
        answeredAt.push(clock.nowMs());
        return r;
      }),
    );
    await admitted();
    const sent = s.call("chatSend", B, {
      agentId: B,
      roomId: room,
      txId: "tx_parallel_01",
      channel: "global",
      message: "for all three",
    });
    env.runtime.stepNow();
    await sent;
    for (let i = 0; i < 12 && answeredAt.length < 3; i++) {
      await admitted();
      clock.advance(50);
    }
    await Promise.all(polls);
    // One answer per LONG_POLL_MIN_INTERVAL_MS for the agent, whichever poll it went to.
    const gaps = answeredAt.slice(1).map((t, i) => t - answeredAt[i]!);
    expect(
      gaps.every((gap) => gap >= LONG_POLL_MIN_INTERVAL_MS),
      `answered at ${answeredAt}`,
    ).toBe(true);
  });

  it("parked long-polls and event streams are bounded per agent and in all, with a retryable rate_limited", async () => {
    const clock = new ManualClock();
    const env = await createTestEnv({
      clock,
      eventFeedLimits: { parkedPollsPerAgent: 2, parkedPollsTotal: 3, streamsPerAgent: 1, streamsTotal: 2 },
    });
    const s = env.service;
    await env.join(A, B, C);
    const latest: Record<string, string> = {};
    for (const agent of [A, B, C]) {
      const now = await s.call("pollEvents", agent, {
        agentId: agent,
        roomId: room,
        sinceCursor: "c_0",
        limit: 200,
      });
      if (now.status !== "ok") throw new Error("poll failed");
      latest[agent] = now.data.nextCursor;
    }
    const park = (agent: string) =>
      s.call("pollEvents", agent, {
        agentId: agent,
        roomId: room,
        sinceCursor: latest[agent]!,
        waitMs: 5000,
      });
    const parked = [park(A), park(A)];
    await admitted();
    const third = await park(A);
    expect(third).toMatchObject({
      status: "error",
      error: { code: "rate_limited", retryable: true, details: { reason: "too_many_per_agent", limit: 2 } },
    });
    parked.push(park(B));
    await admitted();
    expect(await park(C)).toMatchObject({
      status: "error",
      error: { code: "rate_limited", details: { reason: "too_many_in_total", limit: 3 } },
    });
    clock.advance(5000);
    await Promise.all(parked);
    const freed = park(C);
    await admitted();
    clock.advance(5000);
    expect((await freed).status).toBe("ok");

    const stream = async (agent: string) => s.subscribeEvents(agent, { agentId: agent, roomId: room });
    const first = await stream(A);
    if (first.status !== "ok") throw new Error("stream refused");
    expect(await stream(A)).toMatchObject({ status: "error", error: { code: "rate_limited" } });
    const second = await stream(B);
    expect(second.status).toBe("ok");
    expect(await stream(C)).toMatchObject({ error: { details: { reason: "too_many_in_total" } } });
    first.data.close();
    first.data.close(); // once only
    expect((await stream(C)).status).toBe("ok");
    expect((await stream(A)).status).toBe("error");
  });

  it("long-poll parks on onTick, wakes at the end of the tick with a visible event, empty at waitMs, clean abort", async () => {
    const { clock, env, s, cursor, listeners } = await caughtUp(A, B);
    const baseline = listeners();

    let settled = false;
    const parked = s
      .call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: cursor, waitMs: 5000 })
      .then((r) => {
        settled = true;
        return r;
      });
    ticks(env, 3);
    await admitted(); // and parked
    expect(settled).toBe(false);
    expect(listeners()).toBe(baseline + 1);
    const sent = s.call("chatSend", B, {
      agentId: B,
      roomId: room,
      txId: "tx_wake_0001",
      channel: "global",
      message: "wake up",
    });
    env.runtime.stepNow();
    await sent;
    const woke = await parked;
    expect(woke.status === "ok" && woke.data.events.map((e) => e.type)).toEqual(["chat.message"]);
    expect(listeners()).toBe(baseline);
    expect(clock.pending).toBe(0);

    const timedOut = s.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: (woke as { data: { nextCursor: string } }).data.nextCursor,
      waitMs: 1000,
    });
    await admitted();
    clock.advance(1000);
    expect(await timedOut).toMatchObject({ status: "ok", data: { events: [] } });
    expect(listeners()).toBe(baseline);

    const controller = new AbortController();
    const aborted = s.call(
      "pollEvents",
      A,
      {
        agentId: A,
        roomId: room,
        sinceCursor: (woke as { data: { nextCursor: string } }).data.nextCursor,
        waitMs: 25000,
      },
      { signal: controller.signal },
    );
    await admitted();
    expect(listeners()).toBe(baseline + 1);
    controller.abort();
    expect(await aborted).toMatchObject({ status: "ok", data: { events: [] } });
    expect(listeners()).toBe(baseline);
    expect(clock.pending).toBe(0);
  });

  it("an action whose tick does not come answers timeout (retryable); a retry with the txId learns the real result", async () => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    await env.join(A);
    const move = { agentId: A, roomId: room, txId: "tx_timeout_01", dest: { tx: 22, ty: 14 } };
    const pending = env.service.call("moveTo", A, move);
    clock.advance(10_000);
    expect(await pending).toMatchObject({ status: "error", error: { code: "timeout", retryable: true } });
    env.runtime.stepNow(); // the queued input applies late
    expect(await env.service.call("moveTo", A, move)).toMatchObject({
      status: "ok",
      data: { txId: "tx_timeout_01", result: "accepted" },
    });
    expect(clock.pending).toBe(0);
  });

  it("act(): humans use the same path and limiter (join, moveDir, chat, rate keys)", async () => {
    const env = await createTestEnv({ rateLimits: {}, limiterNow: () => 0 });
    const human = { entityId: "hum_alice", kind: "human" as const, name: "Alice", rateKey: "ws:alice" };
    const joined = await env.tick(env.service.act(human, { kind: "join" }));
    expect(joined).toMatchObject({ status: "ok", data: { entityId: "hum_alice", roomId: "lobby" } });
    expect((await env.tick(env.service.act(human, { kind: "moveDir", dx: 1, dy: 0 }))).status).toBe("ok");
    // A human's message is validated once, by the WebSocket protocol schema (built from the same field
    // schemas as the AIC requests); act() takes the typed action. Out-of-range steps and unknown kinds
    // are refused there: see "refuses bad JSON, unknown types ..." in src/http/humans/pure.test.ts.
    const chats = [];
    for (let i = 0; i < 4; i++)
      chats.push(
        await env.tick(env.service.act(human, { kind: "chat", channel: "global", message: `hi ${i}` })),
      );
    expect(chats.map((c) => c.status)).toEqual(["ok", "ok", "ok", "error"]);
    expect(chats[3]).toMatchObject({ error: { code: "rate_limited" } });
    expect(env.world.getEntity("hum_alice")?.kind).toBe("human");
  });

  it("act() with a browser's txId: a resend is answered from the world's record, never applied twice", async () => {
    const env = await createTestEnv({ rateLimits: {}, limiterNow: () => 0 });
    const human = { entityId: "hum_carol", kind: "human" as const, name: "Carol", rateKey: "ws:carol" };
    await env.tick(env.service.act(human, { kind: "join" }));
    const chat = { kind: "chat" as const, channel: "global" as const, message: "only once" };
    const opts = { txId: "tx_web_abcdefghijkl_1" };
    const first = await env.tick(env.service.act(human, chat, opts));
    expect(first).toMatchObject({ status: "ok", data: { applied: true } });
    // The resend after a lost answer: the same answer, no tick needed, nothing applied again.
    const again = await env.service.act(human, chat, opts);
    expect(again).toEqual(first);
    const said = env.world.chatFor("hum_carol", "lobby", 0).filter((c) => c.message === "only once");
    expect(said).toHaveLength(1);
    // The same id with another payload is the agents' conflict; another person's same id is theirs.
    expect(await env.service.act(human, { ...chat, message: "changed" }, opts)).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { reason: "tx_payload_mismatch" } },
    });
    const dave = { entityId: "hum_dave", kind: "human" as const, name: "Dave", rateKey: "ws:dave" };
    await env.tick(env.service.act(dave, { kind: "join" }));
    expect(await env.tick(env.service.act(dave, chat, opts))).toMatchObject({
      status: "ok",
      data: { applied: true },
    });
  });

  it("a full input queue: agents (call) and humans (act) get the same retryable rate_limited, nothing applied", async () => {
    const env = await createTestEnv({ maxQueuedInputs: 1 });
    await env.join(A);
    await env.join(B);
    const human = { entityId: "hum_bob", kind: "human" as const, name: "Bob", rateKey: "ws:bob" };
    const queued = env.service.call("chatSend", A, {
      agentId: A,
      roomId: room,
      txId: "tx_queued_first",
      channel: "global",
      message: "first",
    });
    await admitted();
    const full = {
      status: "error",
      error: {
        code: "rate_limited",
        retryable: true,
        details: { retryAfterMs: Math.ceil(env.runtime.tickMs), reason: "input_queue_full" },
      },
    };
    const agentRefused = await env.service.call("chatSend", B, {
      agentId: B,
      roomId: room,
      txId: "tx_queued_second",
      channel: "global",
      message: "second",
    });
    expect(agentRefused).toMatchObject(full);
    expect(checkResponse("ChatSendResponseData", agentRefused)).toEqual([]);
    expect(await env.service.act(human, { kind: "join" })).toMatchObject(full);
    env.runtime.stepNow();
    expect((await queued).status).toBe("ok");
    expect(env.world.getEntity("hum_bob")).toBeUndefined();
    // The refused txId was never applied: a retry applies it once.
    const retried = await env.tick(
      env.service.call("chatSend", B, {
        agentId: B,
        roomId: room,
        txId: "tx_queued_second",
        channel: "global",
        message: "second",
      }),
    );
    expect(retried).toMatchObject({ status: "ok", data: { applied: true } });
  });
});

describe("observe answers within one tick", () => {
  const text = JSON.stringify({ agentId: A, roomId: room, radius: 300, detail: "full" });
  const ask = (env: Awaited<ReturnType<typeof createTestEnv>>, caller: string, requestText = text) =>
    env.service.call("observe", caller, JSON.parse(requestText), { requestText });

  it("a repeat of the same bytes by the same caller in the same tick is the same answer, still rate-limited", async () => {
    const env = await createTestEnv({
      rateLimits: { classes: { observe: { perSec: 0.001, burst: 3 } } },
      limiterNow: () => 0,
    });
    await env.join(A, B);
    const first = await ask(env, A);
    expect(checkResponse("ObserveResponseData", first)).toEqual([]);
    const second = await ask(env, A);
    expect(second).toBe(first);
    // Another caller sending the same bytes is refused as before: the answer is the caller's own.
    expect(await ask(env, B)).toMatchObject({ status: "error", error: { code: "forbidden" } });
    expect(await ask(env, A)).toBe(first);
    // The burst of 3 is spent even though the last two were answered from the tick's answers.
    expect(await ask(env, A)).toMatchObject({ status: "error", error: { code: "rate_limited" } });
  });

  it("the next tick and other bytes get a fresh answer; errors are not kept", async () => {
    const env = await createTestEnv();
    await env.join(A);
    const before = await ask(env, A);
    const moving = env.service.call("moveTo", A, {
      agentId: A,
      roomId: room,
      txId: "tx_cache_move_01",
      dest: { tx: 22, ty: 14 },
    });
    env.runtime.stepNow();
    expect(await moving).toMatchObject({ status: "ok" });
    ticks(env, 30);
    const after = await ask(env, A);
    expect(after).not.toBe(before);
    if (before.status !== "ok" || after.status !== "ok") throw new Error("observe failed");
    expect(after.data.self.pos).toEqual(env.world.getEntity("agt_agent_helper")?.pos);
    expect(after.data.self.pos).not.toEqual(before.data.self.pos);
    const lite = JSON.stringify({ agentId: A, roomId: room, radius: 300, detail: "lite" });
    expect(await ask(env, A, lite)).not.toBe(after);
    const bad = JSON.stringify({ agentId: A, roomId: "nowhere", radius: 300, detail: "full" });
    const refused = await ask(env, A, bad);
    expect(refused.status).toBe("error");
    expect(await ask(env, A, bad)).not.toBe(refused);
  });
});

describe("the town's places and objects through the contract", () => {
  /** Walks an agent to a tile (moveTo, then ticks until it stands there). */
  async function walk(
    env: Awaited<ReturnType<typeof createTestEnv>>,
    agentId: string,
    tx: number,
    ty: number,
  ) {
    const moved = await env.tick(
      env.service.call("moveTo", agentId, {
        agentId,
        roomId: "town",
        txId: `tx_walk_${agentId}_${tx}_${ty}`,
        dest: { tx, ty },
      }),
    );
    expect(moved.status, JSON.stringify(moved)).toBe("ok");
    for (let i = 0; i < 600 && env.world.getEntity(`agt_${agentId}`)?.speed !== 0; i++) ticks(env, 1);
    expect(env.world.getEntity(`agt_${agentId}`)?.tile).toEqual({ tx, ty });
  }

  it("observe and heartbeat name the place; a note posted with params; the council room is private", async () => {
    const env = await createTestEnv();
    const s = env.service;
    for (const id of [A, B]) await env.tick(s.call("join", id, { agentId: id, roomId: "town" }));
    await walk(env, A, 23, 17);
    const seen = await s.call("observe", A, { agentId: A, roomId: "town", radius: 96, detail: "lite" });
    expect(checkResponse("ObserveResponseData", seen)).toEqual([]);
    if (seen.status !== "ok") throw new Error("observe failed");
    expect(seen.data.self.meta).toEqual({
      view: expect.any(String),
      place: { id: "town_square", name: "Town Square" },
    });
    const board = seen.data.nearby.find((n) => n.entity.id === "obj_board_square")!;
    expect(board.affords.map((a) => a.action)).toEqual(["read", "post"]);
    const post = (txId: string, params: unknown) =>
      env.tick(
        s.call("interact", A, {
          agentId: A,
          roomId: "town",
          txId,
          targetId: "obj_board_square",
          action: "post",
          params,
        }),
      );
    const posted = await post("tx_note_000001", { text: "Market opens at nine" });
    expect(checkResponse("InteractResponseData", posted)).toEqual([]);
    expect(posted).toMatchObject({ status: "ok", data: { applied: true, outcome: { type: "ok" } } });
    // The contract's text rule first (a lone surrogate is not text), then the board's own bounds.
    expect(await post("tx_note_000002", { text: "half \ud83d" })).toMatchObject({
      status: "error",
      error: { code: "bad_request" },
    });
    expect(await post("tx_note_000003", { text: "x".repeat(201) })).toMatchObject({
      status: "ok",
      data: { applied: false, outcome: { type: "invalid_action" } },
    });
    const full = await s.call("observe", A, { agentId: A, roomId: "town", radius: 96, detail: "full" });
    if (full.status !== "ok") throw new Error("observe failed");
    expect(full.data.nearby.find((n) => n.entity.id === "obj_board_square")?.object?.state.notes).toEqual([
      {
        id: "n1",
        by: "agt_agent_helper",
        name: "Helper Bot",
        text: "Market opens at nine",
        tsMs: expect.any(Number),
      },
    ]);

    // Into the council room: the heartbeat says it is private, and B outside does not hear A.
    await walk(env, A, 44, 29);
    await walk(env, B, 44, 25);
    const beat = await s.call("heartbeat", A, { agentId: A, roomId: "town" });
    expect(checkResponse("HeartbeatResponseData", beat, { oracle: false })).toEqual([]);
    expect(beat.status === "ok" && beat.data.self.place).toEqual({
      id: "council_room",
      name: "Council Room",
      private: true,
    });
    await env.tick(
      s.call("chatSend", A, {
        agentId: A,
        roomId: "town",
        txId: "tx_secret_0001",
        channel: "proximity",
        message: "just us",
      }),
    );
    const heardByB = await s.call("chatObserve", B, { agentId: B, roomId: "town", windowSec: 60 });
    expect(heardByB.status === "ok" && heardByB.data.messages.map((m) => m.message)).toEqual([]);
    const heardByA = await s.call("chatObserve", A, { agentId: A, roomId: "town", windowSec: 60 });
    expect(heardByA.status === "ok" && heardByA.data.messages.map((m) => m.message)).toEqual(["just us"]);
  });
});
