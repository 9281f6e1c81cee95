// What the world knows of residents: a join may name the tile to appear on (their home), and an
// actor carries a "thinking" mark, an "asleep" mark and an "unwell" mark set by inputs, kept in
// snapshots only while set.
import { describe, expect, it } from "vitest";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one } from "./testing/helpers.ts";
import type { Input, TileCoord } from "./types.ts";
import { World } from "./world.ts";

const joinAt = (entityId: string, at: TileCoord): Input => ({
  ...(join(entityId) as Extract<Input, { kind: "join" }>),
  at,
});

describe("residents in the world", () => {
  it("a join at a walkable tile appears there; a blocked or outside one falls back to a spawn point", () => {
    const world = World.create(smallWorld());
    expect(one(world, joinAt("agt_guide", { tx: 5, ty: 5 }))).toMatchObject({
      ok: true,
      value: { tile: { tx: 5, ty: 5 } },
    });
    const spawns = world.definition.rooms.a!.spawns.map((s) => s.tile);
    const outside = one(world, joinAt("agt_far", { tx: 999, ty: 0 }));
    const blockedTile = { tx: 10, ty: 3 };
    expect(world.isBlocked("a", blockedTile)).toBe(true);
    const blocked = one(world, joinAt("agt_wall", blockedTile));
    for (const r of [outside, blocked])
      expect(spawns).toContainEqual(r.ok && r.value.kind === "join" && r.value.tile);
    expect(one(world, joinAt("agt_bad", { tx: 1.5, ty: 2 } as never))).toMatchObject({
      ok: false,
      error: { code: "bad_request" },
    });
  });

  it("the thinking mark is set and cleared by input, shown in the entity view, and survives a snapshot", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_guide"));
    const plainHash = world.snapshotHash();
    expect(one(world, { kind: "thinking", entityId: "agt_guide", thinking: true })).toMatchObject({
      ok: true,
    });
    expect(world.getEntity("agt_guide")?.thinking).toBe(true);
    const restored = World.restore(world.definition, world.snapshot());
    expect(restored.getEntity("agt_guide")?.thinking).toBe(true);
    one(world, { kind: "thinking", entityId: "agt_guide", thinking: false });
    expect(world.getEntity("agt_guide")).not.toHaveProperty("thinking");
    expect((world.snapshot().state as { actors: unknown[] }).actors[0]).not.toHaveProperty("thinking");
    expect(plainHash).toMatch(/^[0-9a-f]{64}$/);
    expect(one(world, { kind: "thinking", entityId: "agt_nobody", thinking: true })).toMatchObject({
      ok: false,
      error: { code: "agent_not_in_room" },
    });
    expect(one(world, { kind: "thinking", entityId: "agt_guide", thinking: "yes" } as never)).toMatchObject({
      ok: false,
      error: { code: "bad_request" },
    });
  });

  for (const mark of ["asleep", "unwell"] as const)
    it(`the ${mark} mark (asleep: no model; unwell: its turns fail) is set and cleared by input, shown, and survives a snapshot`, () => {
      const world = World.create(smallWorld());
      const set = (on: unknown) => one(world, { kind: mark, entityId: "agt_guide", [mark]: on } as never);
      one(world, join("agt_guide"));
      expect(set(true)).toMatchObject({ ok: true });
      expect(world.getEntity("agt_guide")?.[mark]).toBe(true);
      expect(World.restore(world.definition, world.snapshot()).getEntity("agt_guide")?.[mark]).toBe(true);
      set(false);
      expect(world.getEntity("agt_guide")).not.toHaveProperty(mark);
      expect((world.snapshot().state as { actors: unknown[] }).actors[0]).not.toHaveProperty(mark);
      expect(set(1)).toMatchObject({ ok: false, error: { code: "bad_request" } });
    });
});
