// The view sync's efficiency rules: a patch rate separate from the tick rate (nothing lost between
// patches), one wire object per actor per patch shared by every viewer, and slow sockets skipped,
// then closed with a reason (bounded memory).

import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { worldReads } from "../../aic/reads.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import { PreparedText } from "./prepared-text.ts";
import { PresenceState } from "./presence-state.ts";
import type { ServerMessage } from "./protocol.ts";
import { type HumanSession, newSession } from "./session.ts";
import {
  createViewSync,
  type PatchDelivery,
  SLOW_CLIENT_CLOSE,
  SLOW_CLIENT_MS,
  type ViewSyncOptions,
} from "./view-sync.ts";
import { type DecodedDelta, DeltaDecoder } from "./wire-delta.ts";

const quiet = { info() {}, warn() {}, error() {} };

function fakeSocket() {
  const ws = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    closed: undefined as unknown,
    close(code: number, reason: string) {
      ws.closed = { code, reason };
    },
  };
  return ws;
}

async function setup(options: ViewSyncOptions = {}, maxVisible?: number) {
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
  const reads = worldReads(runtime);
  const sent: { s: HumanSession; message: ServerMessage | DecodedDelta; raw: unknown }[] = [];
  const readers = new Map<HumanSession, DeltaDecoder>();
  const view = createViewSync(
    reads,
    (s, message) =>
      sent.push({
        s,
        raw: message,
        message:
          message instanceof PreparedText
            ? (JSON.parse(message.bytes.toString("utf8")) as ServerMessage)
            : message instanceof Uint8Array
              ? readers.get(s)!.decode(message)
              : message,
      }),
    () => {},
    new PresenceState(),
    // The fan-out runs its slices at once, so a test reads what a tick sent right after it.
    { defer: (run) => run(), ...options },
  );
  const sessions: HumanSession[] = [];
  const sockets: ReturnType<typeof fakeSocket>[] = [];
  for (const id of ["hum_aaaaaaaa", "hum_bbbbbbbb"]) {
    const ws = fakeSocket();
    const s = newSession(id, ws as unknown as WebSocket, 16 * 32, id, maxVisible);
    const joined = runtime.submit({ kind: "join", entityId: id, actorKind: "human", name: id });
    runtime.stepNow();
    expect((await joined).ok).toBe(true);
    sessions.push(s);
    sockets.push(ws);
  }
  for (const s of sessions) {
    const decoder = new DeltaDecoder();
    decoder.reset(view.enterRoom(s, reads.getEntity(s.actor.entityId)!, reads.latestSeq("lobby")).entities);
    readers.set(s, decoder);
  }
  let ticks = 0;
  const tick = () => {
    const result = runtime.stepNow()!;
    ticks += 1;
    view.pushTick(sessions, {
      tick: result.tick,
      serverTsMs: result.serverTsMs,
      events: result.events,
      inputs: [],
    });
  };
  const move = (s: HumanSession) =>
    runtime.submit({ kind: "moveDir", entityId: s.actor.entityId, dx: 1, dy: 0 });
  /** A global chat by `s`, idempotent under `key`. */
  const say = (s: HumanSession, message: string, key: string) =>
    runtime.submit({
      kind: "chat",
      entityId: s.actor.entityId,
      channel: "global",
      message,
      tx: { key, payloadHash: message },
    });
  return { runtime, reads, view, sent, sessions, sockets, readers, tick, move, say, ticks: () => ticks };
}

const deltas = <M extends { message: ServerMessage | DecodedDelta }>(sent: M[]) =>
  sent.filter((m) => m.message.type === "delta");

describe("view sync", () => {
  it("sends patches every patchEveryTicks ticks and loses nothing between them", async () => {
    const env = await setup({ patchEveryTicks: 2 });
    void env.move(env.sessions[0]!);
    const ticksSent = new Set<number>();
    for (let i = 0; i < 6; i++) {
      env.tick();
      for (const d of deltas(env.sent)) ticksSent.add((d.message as { tick: number }).tick);
    }
    expect(ticksSent.size).toBeGreaterThan(0);
    for (const t of ticksSent) expect(t % 2).toBe(0);
    // What the viewer has is where the mover is now (after the last patch).
    const a = env.sessions[0]!.actor.entityId;
    const lastPatchTick = Math.max(...ticksSent);
    expect(lastPatchTick).toBe(env.reads.tick - (env.reads.tick % 2));
    const shown = env.sessions[1]!.sent.get(a)!;
    expect(env.reads.tick % 2).toBe(0); // two join ticks + six
    expect(shown.x).toBe(Math.round(env.reads.getEntity(a)!.pos.x));
  });

  it("fans a patch out after the tick in slices; a patch due meanwhile is skipped and the next heals", async () => {
    const slices: (() => void)[] = [];
    const delivered: PatchDelivery[] = [];
    const env = await setup({
      defer: (run) => slices.push(run),
      sliceMs: 0, // one browser per slice
      onPatchDelivered: (p) => delivered.push(p),
    });
    const [a, b] = env.sessions as [HumanSession, HumanSession];
    env.sent.length = 0;
    void env.move(a);
    env.tick();
    const first = env.reads.tick;
    // The tick itself sent nothing: the fan-out waits for the event loop, then one browser a slice.
    expect(env.sent).toEqual([]);
    slices.shift()!();
    expect(new Set(env.sent.map((m) => m.s)).size).toBe(1);
    // A patch falls due before the other browser was served: skipped, the round finishes as it was.
    void env.move(a);
    env.tick();
    while (slices.length) slices.shift()!();
    const round1 = deltas(env.sent);
    expect(new Set(round1.map((m) => m.s))).toEqual(new Set([a, b]));
    expect(round1.map((m) => (m.message as { tick: number }).tick)).toEqual([first, first]);
    expect(delivered).toEqual([expect.objectContaining({ browsers: 2, skipped: 1 })]);
    // The next patch carries what the skipped one had: b's browser has a where a is now.
    env.tick();
    while (slices.length) slices.shift()!();
    expect(delivered).toHaveLength(2);
    const mover = env.readers
      .get(b)!
      .entities()
      .find((e) => e.id === a.actor.entityId)!;
    expect(mover.x).toBe(Math.round(env.reads.getEntity(a.actor.entityId)!.pos.x));
  });

  it("a failing delivery listener is logged, and the next patch still goes out", async () => {
    let calls = 0;
    const env = await setup({
      onPatchDelivered: () => {
        calls += 1;
        throw new Error("listener broke");
      },
    });
    void env.move(env.sessions[0]!);
    expect(() => env.tick()).not.toThrow();
    env.sent.length = 0;
    void env.move(env.sessions[0]!);
    env.tick();
    expect(calls).toBe(2);
    expect(deltas(env.sent).length).toBeGreaterThan(0);
  });

  it("puts each actor in wire form once per patch: every viewer's delta shares the object", async () => {
    const env = await setup();
    void env.move(env.sessions[0]!);
    env.tick();
    env.tick();
    const a = env.sessions[0]!.actor.entityId;
    const mine = env.sessions[0]!.sent.get(a);
    const theirs = env.sessions[1]!.sent.get(a);
    expect(mine).toBeDefined();
    expect(theirs).toBe(mine);
  });

  it("skips a slow socket, then closes it with a reason after SLOW_CLIENT_MS; a fast one keeps getting patches", async () => {
    let now = 0;
    const env = await setup({ now: () => now });
    env.sockets[1]!.bufferedAmount = 2 << 20;
    void env.move(env.sessions[0]!);
    env.tick();
    env.sent.length = 0;
    void env.move(env.sessions[0]!);
    now = SLOW_CLIENT_MS - 1;
    env.tick();
    expect(env.sent.some((m) => m.s === env.sessions[1])).toBe(false);
    expect(env.sockets[1]!.closed).toBeUndefined();
    now = SLOW_CLIENT_MS + 1;
    env.tick();
    expect(env.sockets[1]!.closed).toEqual(SLOW_CLIENT_CLOSE);
    expect(env.sockets[0]!.closed).toBeUndefined();
    // A socket that catches up is no longer counted as behind: it would need another full period.
    env.sockets[0]!.bufferedAmount = 2 << 20;
    env.tick();
    env.sockets[0]!.bufferedAmount = 0;
    env.tick();
    env.sockets[0]!.bufferedAmount = 2 << 20;
    now += SLOW_CLIENT_MS - 1;
    env.tick();
    expect(env.sockets[0]!.closed).toBeUndefined();
  });

  it("sends a browser the events it shows; proximity changes are an agent's perception, not logged for a human", async () => {
    const env = await setup();
    const [a, b] = env.sessions as [HumanSession, HumanSession];
    env.sent.length = 0;
    // b walks up to a, away and back, so their proximity changes; then a says something.
    const home = env.reads.getEntity(a.actor.entityId)!.tile;
    for (const dest of [home, { tx: home.tx - 9, ty: home.ty }, home]) {
      const moved = env.runtime.submit({ kind: "moveTo", entityId: b.actor.entityId, dest });
      for (let i = 0; i < 80; i++) env.tick();
      expect(await moved).toMatchObject({ ok: true, value: { result: "accepted" } });
    }
    void env.say(a, "hello b", "t1");
    env.tick();
    const logged = env.reads.eventsFor(b.actor.entityId, "lobby", 0, 1000).events.map((e) => e.type);
    expect(logged).not.toContain("proximity.enter");
    const shown = env.sent
      .filter((m) => m.s === b && m.message.type === "events")
      .flatMap((m) => (m.message as Extract<ServerMessage, { type: "events" }>).events.map((e) => e.type));
    expect(shown).toEqual(["chat.message"]);
    // Nothing is lost: the browser's position in the log is past everything it was not sent.
    expect(b.lastSeq).toBe(env.reads.latestSeq("lobby"));
  });

  it("builds a patch's events message once for every browser that gets the same events", async () => {
    const env = await setup();
    const [a, b] = env.sessions as [HumanSession, HumanSession];
    env.tick();
    env.sent.length = 0;
    void env.say(a, "to everyone", "t2");
    env.tick();
    const events = env.sent.filter((m) => m.message.type === "events");
    expect(events.map((m) => m.s)).toEqual(expect.arrayContaining([a, b]));
    expect(events).toHaveLength(2);
    expect(events[0]!.raw).toBeInstanceOf(PreparedText);
    expect(events[1]!.raw).toBe(events[0]!.raw);
    const message = events[0]!.message as Extract<ServerMessage, { type: "events" }>;
    expect(message.events.map((e) => e.payload.message)).toEqual(["to everyone"]);
    // The next patch builds its own (a name or an object's state may have changed since).
    void env.say(a, "again", "t3");
    env.tick();
    const next = env.sent.filter((m) => m.message.type === "events").slice(2);
    expect(next).toHaveLength(2);
    expect(next[0]!.raw).not.toBe(events[0]!.raw);
  });

  it("after an operator restore every browser gets the whole view again, and events continue", async () => {
    const env = await setup();
    const [a, b] = env.sessions as [HumanSession, HumanSession];
    const definition = env.runtime.world.definition;
    const saved = env.runtime.world.snapshot();
    // The timeline the operator will abandon: a chat, and a third human who joins after the save.
    void env.say(a, "from the abandoned future", "t1");
    env.tick();
    const lateWs = fakeSocket();
    const late = newSession("hum_cccccccc", lateWs as unknown as WebSocket, 16 * 32, "hum_cccccccc");
    void env.runtime.submit({ kind: "join", entityId: "hum_cccccccc", actorKind: "human", name: "c" });
    env.runtime.stepNow();
    env.view.enterRoom(late, env.reads.getEntity("hum_cccccccc")!, env.reads.latestSeq("lobby"));
    env.sessions.push(late);
    env.tick();

    env.runtime.replaceWorld(World.restore(definition, saved));
    env.sent.length = 0;
    void env.say(b, "after the restore", "t2");
    env.tick();
    for (const s of [a, b]) {
      const room = env.sent.find((m) => m.s === s && m.message.type === "room")?.message;
      expect(room, `${s.actor.entityId} gets the whole view`).toMatchObject({
        type: "room",
        room: { roomId: "lobby" },
      });
      // The restored world's roster and chat: nobody from the abandoned timeline, none of its chat.
      const r = room as Extract<ServerMessage, { type: "room" }>;
      expect(r.roster.map((x) => x.id).sort()).toEqual(["hum_aaaaaaaa", "hum_bbbbbbbb"]);
      expect(JSON.stringify(r.history)).not.toContain("abandoned future");
      // The chat said in the restored world reaches everyone (its seq reuses an abandoned one's).
      const events = env.sent.filter((m) => m.s === s && m.message.type === "events");
      expect(JSON.stringify(events)).toContain("after the restore");
    }
    // The late joiner has no character in the restored world: told so, and closed to join afresh.
    expect(lateWs.closed).toEqual({ code: 4010, reason: "the world was restored; join again" });
    // The next patch is a delta again, not another whole view.
    env.sent.length = 0;
    void env.move(a);
    env.tick();
    expect(env.sent.some((m) => m.message.type === "room")).toBe(false);
    expect(deltas(env.sent).length).toBeGreaterThan(0);
  });

  it("streams a viewer in a crowd of N > maxVisible the nearest ones only; the radar shows the rest", async () => {
    const maxVisible = 8;
    const env = await setup({}, maxVisible);
    const [viewer] = env.sessions as [HumanSession, HumanSession];
    const crowd = Array.from({ length: 30 }, (_, i) => `agt_crowd${String(i).padStart(2, "0")}`);
    for (const [i, id] of crowd.entries()) {
      void env.runtime.submit({ kind: "join", entityId: id, actorKind: "agent", name: id });
      // Spread over the plaza, all within the viewer's 16-tile radius.
      void env.runtime.submit({
        kind: "moveTo",
        entityId: id,
        dest: { tx: 16 + (i % 10), ty: 12 + Math.floor(i / 10) },
      });
    }
    const shownTo = (s: HumanSession) =>
      new Set(
        env.readers
          .get(s)!
          .entities()
          .map((e) => e.id),
      );
    const me = viewer.actor.entityId;
    let most = 0;
    for (let t = 0; t < 200; t++) {
      env.tick();
      most = Math.max(most, shownTo(viewer).size);
    }
    // Never more than maxVisible, and what the browser holds is exactly what the server says it has.
    expect(most).toBeLessThanOrEqual(maxVisible);
    expect([...shownTo(viewer)].sort()).toEqual([...viewer.sent.keys()].sort());
    // The nearest admitRank (by distance, ties by id) are all shown, the viewer's own too.
    const self = env.reads.getEntity(me)!;
    const ranked = env.reads
      .actorsInRoom("lobby")
      .filter((a) => a.id !== me)
      .map((a) => ({ id: a.id, d2: (a.pos.x - self.pos.x) ** 2 + (a.pos.y - self.pos.y) ** 2 }))
      .sort((a, b) => a.d2 - b.d2 || (a.id < b.id ? -1 : 1));
    expect(shownTo(viewer).has(me)).toBe(true);
    for (const a of ranked.slice(0, viewer.interest.admitRank)) expect(shownTo(viewer).has(a.id)).toBe(true);
    // Everyone left out is on the radar (the feed is the whole room, sent when it changed): the
    // latest feed the viewer got, a period after everyone stopped.
    for (let t = 0; t < env.reads.definition.tickRate; t++) env.tick();
    const radar = env.sent.filter((m) => m.s === viewer && m.message.type === "radar");
    expect(radar.length).toBeGreaterThan(0);
    const dots = (radar.at(-1)!.message as Extract<ServerMessage, { type: "radar" }>).dots.map((d) => d[0]);
    for (const a of ranked) if (!shownTo(viewer).has(a.id)) expect(dots).toContain(a.id);
    // The farthest walks up to the viewer: it is streamed again.
    const far = ranked.at(-1)!.id;
    expect(shownTo(viewer).has(far)).toBe(false);
    void env.runtime.submit({ kind: "moveTo", entityId: far, dest: self.tile });
    for (let t = 0; t < 300 && !shownTo(viewer).has(far); t++) env.tick();
    expect(shownTo(viewer).has(far)).toBe(true);
    expect(shownTo(viewer).size).toBeLessThanOrEqual(maxVisible);
  });
});

describe("view sync: creatures", () => {
  it("tells a room's browsers where its creatures are whenever one moves or changes what it does, in one shared message", async () => {
    const env = await setup();
    const [a, b] = env.sessions as [HumanSession, HumanSession];
    env.sent.length = 0;
    const cat = () => env.reads.getEntity("obj_mochi")!;
    const lookOf = () => {
      const state = env.reads.objectView("obj_mochi")!.state;
      return `${cat().tile.tx},${cat().tile.ty},${state.facing},${state.doing}`;
    };
    let changes = 0;
    let look = lookOf();
    for (let i = 0; i < 60 * 20; i++) {
      env.tick();
      if (lookOf() !== look) changes += 1;
      look = lookOf();
    }
    const told = (s: HumanSession) => env.sent.filter((m) => m.s === s && m.message.type === "creatures");
    expect(changes).toBeGreaterThan(3);
    expect(told(a)).toHaveLength(changes);
    expect(told(a).map((m) => m.raw)).toEqual(told(b).map((m) => m.raw));
    const last = told(a).at(-1)!.message as Extract<ServerMessage, { type: "creatures" }>;
    expect(last.objects).toEqual([
      expect.objectContaining({
        id: "obj_mochi",
        objectType: "creature",
        tx: cat().tile.tx,
        ty: cat().tile.ty,
      }),
    ]);
    // Its steps are no events: nothing else was sent to browsers that stood still.
    expect(env.sent.filter((m) => m.message.type === "events")).toEqual([]);
  });
});
