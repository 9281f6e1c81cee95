// The view digest and its guard (issue #30): "nothing changed near me since my last look".
import { describe, expect, it } from "vitest";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import type { Input } from "./types.ts";
import { VIEW_DIGEST_PATTERN } from "./view.ts";
import { World } from "./world.ts";

const say = (view: string): Input => ({
  kind: "chat",
  entityId: "agt_a",
  channel: "global",
  message: "nothing changed",
  guards: [{ kind: "view_is", view }],
});

describe("view digest", () => {
  it("changes when someone comes near, the actor moves or an object in view changes; not for the far or the idle", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    const alone = world.viewOf("agt_a")!;
    expect(alone).toMatch(VIEW_DIGEST_PATTERN);
    run(world, 5);
    expect(world.viewOf("agt_a")).toBe(alone);
    one(world, join("agt_b"));
    const withB = world.viewOf("agt_a")!;
    expect(withB).not.toBe(alone);
    walkTo(world, "agt_a", 9, 8);
    const byTheDoor = world.viewOf("agt_a")!;
    expect(byTheDoor).not.toBe(withB);
    // agt_b is more than 8 tiles away now: its steps are out of agt_a's view.
    walkTo(world, "agt_b", 3, 2);
    expect(world.viewOf("agt_a")).toBe(byTheDoor);
    one(world, { kind: "interact", entityId: "agt_b", targetId: "obj_sign_hello", action: "read" });
    expect(world.viewOf("agt_a")).toBe(byTheDoor);
    one(world, { kind: "interact", entityId: "agt_a", targetId: "obj_door_a", action: "close" });
    expect(world.viewOf("agt_a")).not.toBe(byTheDoor);
    expect(world.viewOf("agt_nobody")).toBeUndefined();
  });

  it("view_is applies an action on an unchanged view and refuses it (conflict, nothing applied) on a changed one", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    const seen = world.viewOf("agt_a")!;
    expect(one(world, say(seen)).ok).toBe(true);
    one(world, join("agt_b"));
    const stale = world.step([say(seen)]);
    expect(stale.results[0]).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { guard: { kind: "view_is" }, actual: world.viewOf("agt_a") } },
    });
    expect(stale.events.filter((e) => e.type === "chat.message")).toEqual([]);
    expect(one(world, say(world.viewOf("agt_a")!)).ok).toBe(true);
  });

  it("a malformed view guard is a bad request", () => {
    const world = World.create(smallWorld());
    one(world, join("agt_a"));
    const bad = one(world, { ...say("x"), guards: [{ kind: "view_is", view: 7 }] } as unknown as Input);
    expect(bad).toMatchObject({ ok: false, error: { code: "bad_request" } });
  });
});
