import { describe, expect, it } from "vitest";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import type { Input, InputResult } from "./types.ts";
import { World } from "./world.ts";

function chatId(r: InputResult): string {
  if (!r.ok || r.value.kind !== "chat") throw new Error(JSON.stringify(r));
  return r.value.chatMessageId;
}

describe("chat", () => {
  it("proximity chat is heard within the radius (sender included); global by the whole room", () => {
    const world = World.create(smallWorld({ chat_radius_tiles: 3 }));
    world.step([join("agt_a"), join("agt_b"), join("agt_far")]);
    walkTo(world, "agt_far", 8, 8);
    walkTo(world, "agt_b", 4, 2);
    const r = world.step([{ kind: "chat", entityId: "agt_a", channel: "proximity", message: "hello" }]);
    const id = chatId(r.results[0]!);
    expect(id).toMatch(/^msg_[A-Za-z0-9._-]{12,128}$/);
    expect(r.events).toEqual([
      expect.objectContaining({
        type: "chat.message",
        audience: { kind: "entities", ids: ["agt_a", "agt_b"] },
        payload: {
          messageId: id,
          fromEntityId: "agt_a",
          channel: "proximity",
          message: "hello",
          tsMs: r.serverTsMs,
        },
      }),
    ]);
    expect(world.chatFor("agt_b", "a", 0).map((m) => m.message)).toEqual(["hello"]);
    expect(world.chatFor("agt_far", "a", 0)).toEqual([]);
    const g = one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "all" });
    expect(world.chatFor("agt_far", "a", 0).map((m) => [m.id, m.fromName, m.channel])).toEqual([
      [chatId(g), "a", "global"],
    ]);
    expect(world.chatFor("agt_b", "a", 0, "proximity").map((m) => m.message)).toEqual(["hello"]);
    expect(world.chatFor("agt_b", "a", g.serverTsMs).map((m) => m.message)).toEqual(["all"]);
  });

  it("global chats share who heard them until someone joins or leaves, also after a restore", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a"), join("hum_b")]);
    const say = (message: string) =>
      one(world, { kind: "chat", entityId: "agt_a", channel: "global", message });
    say("one");
    say("two");
    world.step([join("agt_c")]);
    say("three");
    const heard = (w: World) => w.chatFor("agt_a", "a", 0).map((m) => m.heardBy);
    const [one_, two, three] = heard(world) as [readonly string[], readonly string[], readonly string[]];
    expect(one_).toEqual(["agt_a", "hum_b"]);
    expect(two).toBe(one_);
    expect(three).toEqual(["agt_a", "agt_c", "hum_b"]);
    // A reader's copy cannot change what the world keeps.
    expect(() => (one_ as string[]).push("agt_x")).toThrow(TypeError);
    // The snapshot writes each list once.
    const snapshot = JSON.parse(JSON.stringify(world.snapshot()));
    const room = snapshot.state.rooms.a as { chat: { heardBy: unknown }[]; hearers: string[][] };
    expect(room.hearers).toEqual([one_, three]);
    expect(room.chat.map((m) => m.heardBy)).toEqual([0, 0, 1]);
    const restored = World.restore(smallWorld(), snapshot);
    expect(heard(restored)).toEqual([one_, two, three]);
    expect(heard(restored)[1]).toBe(heard(restored)[0]);
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
    // A snapshot from before `hearers` (the ids in every message) restores to the same world.
    const { hearers, ...older } = room;
    snapshot.state.rooms.a = {
      ...older,
      chat: room.chat.map((m) => ({ ...m, heardBy: hearers[m.heardBy as number] })),
    };
    const fromOlder = World.restore(smallWorld(), snapshot);
    expect(heard(fromOlder)).toEqual([one_, two, three]);
    expect(heard(fromOlder)[1]).toBe(heard(fromOlder)[0]);
    expect(fromOlder.snapshotHash()).toBe(world.snapshotHash());
  });

  it("rejects empty and over-long messages", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    for (const message of ["", "   ", "x".repeat(501)]) {
      const r = one(world, { kind: "chat", entityId: "agt_a", channel: "global", message });
      expect(!r.ok && r.error.code).toBe("bad_request");
    }
    expect(
      one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "x".repeat(500) }).ok,
    ).toBe(true);
  });

  it("keeps at least 300 s of history", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "old" });
    run(world, 300 * 20);
    expect(world.chatFor("agt_a", "a", 0).map((m) => m.message)).toEqual(["old"]);
    run(world, 400 * 20);
    expect(world.chatFor("agt_a", "a", 0)).toEqual([]);
  });
});

describe("events", () => {
  it("seq is monotonic per room; a recipient sees room events from its join until it left", () => {
    const world = World.create(smallWorld({ proximity_debounce_ticks: 1 }));
    one(world, join("agt_a"));
    one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "before b" });
    one(world, join("agt_b"));
    one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "with b" });
    const b = world.eventsFor("agt_b", "a", 0, 100).events;
    one(world, { kind: "leave", entityId: "agt_b", reason: "kicked" });
    one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: "after b" });
    const all = world.eventsFor("agt_a", "a", 0, 100).events;
    const seqs = all.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(b.map((e) => e.type)).toEqual(["presence.join", "proximity.enter", "chat.message"]);
    expect(b.map((e) => e.payload.message).filter(Boolean)).toEqual(["with b"]);
    // agt_a sees b come and go and every global message, not the proximity events addressed to b.
    expect(all.map((e) => e.payload.message).filter(Boolean)).toEqual(["before b", "with b", "after b"]);
    expect(all.filter((e) => e.type === "presence.leave").map((e) => e.payload.entityId)).toEqual(["agt_b"]);
    expect(
      all.filter((e) => e.type.startsWith("proximity")).every((e) => e.payload.subjectId === "agt_a"),
    ).toBe(true);
    // Gone, b's own events go with it: a cursor from its stay is told so, not silently skipped.
    const leaveSeq = all.find((e) => e.type === "presence.leave")!.seq;
    expect(world.eventsFor("agt_b", "a", b.at(-1)!.seq, 100).expired?.oldestRetainedSeq).toBe(leaveSeq + 1);
    expect(world.latestSeq("a")).toBe(all[all.length - 1]!.seq);
    expect(world.latestSeq("b")).toBe(0);
  });

  it("a proximity change is recorded for an agent's side only: nobody reads a human's", () => {
    const world = World.create(smallWorld({ proximity_debounce_ticks: 1 }));
    world.step([join("hum_a"), join("agt_b"), join("hum_c")]);
    const proximity = () =>
      world
        .eventsFor("agt_b", "a", 0, 100)
        .events.filter((e) => e.type.startsWith("proximity."))
        .map((e) => [e.type, e.payload.otherId]);
    run(world, 2);
    expect(proximity()).toEqual([
      ["proximity.enter", "hum_a"],
      ["proximity.enter", "hum_c"],
    ]);
    walkTo(world, "agt_b", 8, 8);
    run(world, 2);
    expect(proximity().slice(2)).toEqual([
      ["proximity.exit", "hum_a"],
      ["proximity.exit", "hum_c"],
    ]);
    // The humans met and parted too; none of it is in the log for them or anyone else.
    for (const reader of ["hum_a", "hum_c"]) {
      expect(world.eventsFor(reader, "a", 0, 100).events.map((e) => e.type)).not.toContain("proximity.enter");
    }
    expect(
      world
        .eventsFor("agt_b", "a", 0, 100)
        .events.every((e) => !String(e.payload.subjectId).startsWith("hum_")),
    ).toBe(true);
  });
  it("pages with limit and reports expiry instead of silently losing events", () => {
    // The room keeps its newest 10 room-audience events and a pool of 10 older ones.
    const world = World.create(smallWorld({ event_retention: 10, event_retention_per_recipient: 10 }));
    one(world, join("agt_a"));
    for (let i = 0; i < 25; i++)
      one(world, { kind: "chat", entityId: "agt_a", channel: "global", message: `m${i}` });
    expect(world.latestSeq("a")).toBe(26);
    const page = world.eventsFor("agt_a", "a", 0, 4);
    expect(page.expired).toEqual({ oldestRetainedSeq: 7, droppedCount: 6 });
    expect(page.events.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(page.nextSeq).toBe(10);
    const rest = world.eventsFor("agt_a", "a", page.nextSeq, 100);
    expect(rest.expired).toBeUndefined();
    expect(rest.events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => 11 + i));
    expect(rest.nextSeq).toBe(26);
    expect(world.eventsFor("agt_a", "a", 26, 100)).toEqual({ events: [], nextSeq: 26 });
  });
});

describe("idempotency", () => {
  const chat = (message: string, payloadHash: string): Input => ({
    kind: "chat",
    entityId: "agt_a",
    channel: "global",
    message,
    tx: { key: "agt_a:tx_1", payloadHash },
  });

  it("replays the stored result for the same key and payload, conflicts otherwise, expires after the TTL", () => {
    const world = World.create(smallWorld({ tx_ttl_sec: 10 }));
    one(world, join("agt_a"));
    const first = one(world, chat("hi", "h1"));
    const seqAfterFirst = world.latestSeq("a");
    const replay = world.step([chat("hi", "h1")]);
    expect(replay.results[0]).toEqual({ ...first, replayed: true });
    expect(replay.events).toEqual([]);
    expect(world.latestSeq("a")).toBe(seqAfterFirst);
    const conflict = one(world, chat("other", "h2"));
    expect(!conflict.ok && conflict.error.code).toBe("conflict");
    expect(world.lookupTx("agt_a:tx_1")).toEqual({ payloadHash: "h1", result: first });
    run(world, 10 * 20);
    expect(world.lookupTx("agt_a:tx_1")).toBeUndefined();
    const fresh = one(world, chat("again", "h2"));
    expect(fresh.ok && fresh.replayed).toBeFalsy();
    expect(chatId(fresh)).not.toBe(chatId(first));
  });

  it("two inputs with the same key in one step: the second is a replay", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    const r = world.step([chat("hi", "h1"), chat("hi", "h1")]);
    expect(r.results[1]).toEqual({ ...r.results[0], replayed: true });
    expect(r.events.length).toBe(1);
  });
});

describe("idempotency records are bounded per actor (issue #30)", () => {
  const say = (entityId: string, n: number): Input => ({
    kind: "chat",
    entityId,
    channel: "global",
    message: `m${n}`,
    tx: { key: `${entityId}:tx_${n}`, payloadHash: `h${n}` },
  });

  it("an actor keeps its newest tx_max_per_actor results; a flood never costs another actor one", () => {
    const world = World.create(smallWorld({ tx_max_per_actor: 3 }));
    one(world, join("agt_a"));
    one(world, join("agt_b"));
    one(world, say("agt_b", 0));
    for (let n = 0; n < 6; n++) one(world, say("agt_a", n));
    expect([0, 1, 2].map((n) => world.lookupTx(`agt_a:tx_${n}`))).toEqual([undefined, undefined, undefined]);
    expect([3, 4, 5].every((n) => world.lookupTx(`agt_a:tx_${n}`) !== undefined)).toBe(true);
    expect(world.lookupTx("agt_b:tx_0")).toBeDefined();
    // A snapshot holds the bound's state: the restored world forgets the same records next.
    const restored = World.restore(world.definition, world.snapshot());
    for (const w of [world, restored]) one(w, say("agt_a", 6));
    expect(restored.lookupTx("agt_a:tx_3")).toBeUndefined();
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
  });

  it("records of a snapshot written before the bound (no owner) are restored whole and expire by TTL", () => {
    const world = World.create(smallWorld({ tx_max_per_actor: 2, tx_ttl_sec: 10 }));
    one(world, join("agt_a"));
    for (let n = 0; n < 2; n++) one(world, say("agt_a", n));
    const snapshot = world.snapshot();
    const old = { ...snapshot, state: { ...snapshot.state } } as typeof snapshot;
    const tx = (old.state as { tx: { owner?: string }[] }).tx;
    (old.state as { tx: unknown[] }).tx = [
      ...tx.map(({ owner: _owner, ...rest }) => rest),
      ...tx.map(({ owner: _owner, ...rest }, i) => ({ ...rest, key: `legacy_${i}` })),
    ];
    const restored = World.restore(world.definition, old);
    expect(restored.lookupTx("legacy_0")).toBeDefined();
    expect(restored.lookupTx("agt_a:tx_0")).toBeDefined();
    run(restored, 10 * 20);
    expect(restored.lookupTx("legacy_0")).toBeUndefined();
  });
});

describe("guards", () => {
  it("tick_is and snapshot_hash_is compare with the state at the start of the step", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    const tick = world.tick;
    const hash = world.snapshotHash();
    const ok = one(world, {
      kind: "chat",
      entityId: "agt_a",
      channel: "global",
      message: "x",
      guards: [
        { kind: "tick_is", tick },
        { kind: "snapshot_hash_is", hash },
      ],
    });
    expect(ok.ok).toBe(true);
    const stale = world.step([
      {
        kind: "chat",
        entityId: "agt_a",
        channel: "global",
        message: "y",
        guards: [{ kind: "snapshot_hash_is", hash }],
      },
    ]);
    expect(stale.results[0]).toMatchObject({
      ok: false,
      error: {
        code: "conflict",
        details: { guard: { kind: "snapshot_hash_is" }, actual: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
    });
    expect(stale.events).toEqual([]);
    const lateTick = one(world, {
      kind: "chat",
      entityId: "agt_a",
      channel: "global",
      message: "z",
      guards: [{ kind: "tick_is", tick }],
    });
    expect(lateTick).toMatchObject({ ok: false, error: { code: "conflict", details: { actual: tick + 2 } } });
  });

  it("entity_near and object_state_is are evaluated at apply time; nothing is applied on failure", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a"), join("agt_b")]);
    walkTo(world, "agt_a", 9, 8);
    const near = one(world, {
      kind: "moveTo",
      entityId: "agt_b",
      dest: { tx: 3, ty: 3 },
      guards: [{ kind: "entity_near", entityId: "agt_a", withinTiles: 2 }],
    });
    expect(near).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { guard: { kind: "entity_near" } } },
    });
    expect(world.getEntity("agt_b")!.speed).toBe(0);
    const closeIfOpen: Input = {
      kind: "interact",
      entityId: "agt_a",
      targetId: "obj_door_a",
      action: "close",
      guards: [
        { kind: "object_state_is", objectId: "obj_door_a", field: "open", equals: true },
        { kind: "entity_near", entityId: "obj_door_a", withinTiles: 2 },
      ],
    };
    expect(one(world, closeIfOpen).ok).toBe(true);
    const again = one(world, closeIfOpen);
    expect(again).toMatchObject({ ok: false, error: { code: "conflict", details: { actual: false } } });
    expect(world.objectView("obj_door_a")!.version).toBe(2);
  });
});
