// Issue #9 at the world's own door: one input's failure stays its own, the world never stores text it
// cannot hash, and a restore validates as strictly as a request (002: strict, unique ids).
import { describe, expect, it } from "vitest";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one } from "./testing/helpers.ts";
import type { Input, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

const def = smallWorld();

function populated(): World {
  const world = World.create(def);
  world.step([join("agt_a"), join("agt_b"), join("hum_c")]);
  world.step([{ kind: "chat", entityId: "agt_a", channel: "global", message: "hello 😀" }]);
  return world;
}

type Editable = WorldSnapshot & {
  state: { actors: Record<string, unknown>[]; objects: unknown[]; rooms: unknown };
};

function copy(snapshot: WorldSnapshot): Editable {
  return JSON.parse(JSON.stringify(snapshot));
}

describe("per-input isolation in a tick", () => {
  it("a throw while applying one input fails only that input; the others apply", () => {
    const world = populated();
    const poisoned = {
      kind: "chat",
      entityId: "agt_b",
      channel: "global",
      get message(): string {
        throw new Error("poisoned getter");
      },
    } as unknown as Input;
    const step = world.step([
      { kind: "moveDir", entityId: "agt_a", dx: 1, dy: 0 },
      poisoned,
      { kind: "chat", entityId: "hum_c", channel: "global", message: "still here" },
    ]);
    expect(step.results[0]).toMatchObject({ ok: true });
    expect(step.results[1]).toMatchObject({ ok: false, error: { code: "internal" } });
    expect(JSON.stringify(step.results[1])).not.toContain("poisoned getter");
    expect(step.results[2]).toMatchObject({ ok: true, value: { kind: "chat" } });
    expect(step.failures).toEqual([{ index: 1, message: "poisoned getter" }]);
    expect(() => world.snapshotHash()).not.toThrow();
  });

  it("a snapshot hash that cannot be computed fails only the inputs that guard on it", () => {
    const world = populated();
    const hashFails = world as unknown as { snapshotHash(): string };
    const real = hashFails.snapshotHash.bind(world);
    hashFails.snapshotHash = () => {
      throw new Error("cannot hash");
    };
    const step = world.step([
      { kind: "moveDir", entityId: "agt_a", dx: 0, dy: 1, guards: [{ kind: "snapshot_hash_is", hash: "0" }] },
      { kind: "moveDir", entityId: "agt_b", dx: 1, dy: 0 },
      { kind: "chat", entityId: "hum_c", channel: "global", message: "unaffected" },
    ]);
    expect(step.results.map((r) => r.ok)).toEqual([false, true, true]);
    expect(step.results[0]).toMatchObject({ error: { code: "internal" } });
    expect(step.failures?.map((f) => f.index)).toEqual([0]);
    hashFails.snapshotHash = real;
    expect(world.snapshotHash()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses names that hide or reorder text, and a person named like an AI (every door joins here)", () => {
    const world = populated();
    for (const name of [
      "\u202e1a tnegA",
      "nul\u0000",
      "bell\u0007",
      "Agent a7 · AI",
      "Sam (AI)",
      "Sam [bot]",
    ]) {
      expect(one(world, { ...join("hum_x"), name } as Input), name).toMatchObject({
        ok: false,
        error: { code: "bad_request" },
      });
    }
    expect(world.getEntity("hum_x")).toBeUndefined();
    expect(one(world, { ...join("agt_labelled"), actorKind: "agent", name: "Helper · AI" } as Input).ok).toBe(
      true,
    );
  });

  it("never stores text it cannot hash: a lone surrogate in a chat, a name or params is bad_request", () => {
    const world = populated();
    const before = world.snapshotHash();
    const bad: Input[] = [
      { kind: "chat", entityId: "agt_a", channel: "global", message: "half an emoji \ud83d" },
      { ...join("hum_x"), name: "x\udc00" } as Input,
      { kind: "interact", entityId: "agt_a", targetId: "obj_sign", action: "read", params: { k: "\ud800" } },
    ];
    for (const input of bad) {
      expect(one(world, input)).toMatchObject({ ok: false, error: { code: "bad_request" } });
    }
    expect(world.getEntity("hum_x")).toBeUndefined();
    // Ticks passed, so the hash moved on; what matters is that it can still be computed, and that a
    // hash-guarded action by someone else still applies.
    expect(world.snapshotHash()).not.toBe(before);
    const hash = world.snapshotHash();
    const guarded = one(world, {
      kind: "moveDir",
      entityId: "agt_b",
      dx: 1,
      dy: 0,
      guards: [{ kind: "snapshot_hash_is", hash }],
    });
    expect(guarded.ok).toBe(true);
  });
});

describe("strict restore (002: strict validation, unique ids)", () => {
  it("a faithful snapshot restores to the same hash (also after a JSON round trip)", () => {
    const world = populated();
    expect(World.restore(def, copy(world.snapshot())).snapshotHash()).toBe(world.snapshotHash());
  });

  const cases: [string, (s: ReturnType<typeof copy>) => void, RegExp][] = [
    ["an extra top-level key", (s) => Object.assign(s, { extra: 1 }), /extra/],
    ["an extra state key", (s) => Object.assign(s.state, { extra: 1 }), /extra/],
    ["an extra actor key", (s) => Object.assign(s.state.actors[0] as object, { admin: true }), /admin/],
    [
      "duplicate actor ids",
      (s) => s.state.actors.push({ ...s.state.actors[0]!, handle: 99 }),
      /duplicate actor agt_a/,
    ],
    [
      "duplicate actor handles",
      (s) =>
        Object.assign(s.state.actors[1] as object, {
          handle: s.state.actors[0]!.handle,
        }),
      /duplicate actor handle/,
    ],
    ["a non-finite position", (s) => Object.assign(s.state.actors[0] as object, { x: "12" }), /x/],
    ["an unknown object", (s) => s.state.objects.push({ id: "obj_nope", state: {}, version: 1 }), /obj_nope/],
    [
      "a lone surrogate in stored chat",
      (s) => {
        const room = (s.state as unknown as { rooms: Record<string, { chat: { message: string }[] }> }).rooms
          .a!;
        room.chat[0]!.message = "half \ud83d";
      },
      /canonicalized/,
    ],
    [
      "a chat message whose hearers are not in the room's lists",
      (s) => {
        const room = (s.state as unknown as { rooms: Record<string, { chat: { heardBy: unknown }[] }> }).rooms
          .a!;
        room.chat[0]!.heardBy = 7;
      },
      /no list of hearers/,
    ],
    ["a time that does not match the tick", (s) => Object.assign(s, { time: s.time + 1 }), /time/],
  ];
  it.each(cases)("refuses %s", (_name, mutate, reason) => {
    const snapshot = copy(populated().snapshot());
    mutate(snapshot);
    const attempt = () => World.restore(def, snapshot);
    expect(attempt).toThrow(SnapshotMismatchError);
    expect(attempt).toThrow(reason);
  });
});
