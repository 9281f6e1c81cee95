import { describe, expect, it } from "vitest";
import { smallWorld } from "../testing/fixtures.ts";
import { join, one, walkTo } from "../testing/helpers.ts";
import { World } from "../world.ts";

describe("emote", () => {
  it("is a proximity chat line those near hear (the actor included), answered as an emote", () => {
    const world = World.create(smallWorld({ chat_radius_tiles: 3 }));
    world.step([join("agt_a"), join("hum_b"), join("agt_far")]);
    walkTo(world, "agt_far", 8, 8);
    walkTo(world, "hum_b", 4, 2);
    const r = world.step([{ kind: "emote", entityId: "agt_a", emote: "wave" }]);
    const result = r.results[0]!;
    if (!result.ok || result.value.kind !== "emote") throw new Error(JSON.stringify(result));
    const id = result.value.chatMessageId;
    expect(r.events).toEqual([
      expect.objectContaining({
        type: "chat.message",
        audience: { kind: "entities", ids: ["agt_a", "hum_b"] },
        payload: {
          messageId: id,
          fromEntityId: "agt_a",
          channel: "proximity",
          message: "👋 waves",
          tsMs: r.serverTsMs,
        },
      }),
    ]);
    expect(world.chatFor("hum_b", "a", 0).map((m) => [m.id, m.fromName, m.message])).toEqual([
      [id, "a", "👋 waves"],
    ]);
    expect(world.chatFor("agt_far", "a", 0)).toEqual([]);
    expect(world.memoryOf("agt_a")?.episodes.at(-1)?.text).toBe("said: 👋 waves");
  });

  it("refuses an unknown emote and one by someone not in the world; a replayed txId answers the same", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a")]);
    const unknown = one(world, { kind: "emote", entityId: "agt_a", emote: "dance" } as never);
    expect(unknown).toMatchObject({ ok: false, error: { code: "bad_request" } });
    expect(unknown.ok ? "" : unknown.error.message).toMatch(/^emote: /);
    const absent = one(world, { kind: "emote", entityId: "agt_nobody", emote: "nod" });
    expect(absent).toMatchObject({ ok: false, error: { code: "agent_not_in_room" } });
    const tx = { key: "k1", payloadHash: "h1" };
    const first = one(world, { kind: "emote", entityId: "agt_a", emote: "clap", tx });
    const again = one(world, { kind: "emote", entityId: "agt_a", emote: "clap", tx });
    expect(again).toEqual({ ...first, replayed: true });
    expect(world.chatFor("agt_a", "a", 0)).toHaveLength(1);
  });

  it("survives a snapshot and restore like any chat line", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a")]);
    one(world, { kind: "emote", entityId: "agt_a", emote: "laugh" });
    const restored = World.restore(world.definition, world.snapshot());
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
    expect(restored.chatFor("agt_a", "a", 0).map((m) => m.message)).toEqual(["😄 laughs"]);
  });
});
