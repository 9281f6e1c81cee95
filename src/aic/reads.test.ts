import { describe, expect, it } from "vitest";
import { WorldRuntime } from "../runtime/world-runtime.ts";
import { World } from "../world/world.ts";
import { worldReads } from "./reads.ts";
import { lobbyDefinition } from "./testing/local-world.ts";

describe("worldReads", () => {
  it("reads the runtime's current world after it is swapped (operator restore, journal rollback)", async () => {
    const def = await lobbyDefinition();
    const before = World.create(def);
    const runtime = new WorldRuntime(before, { info() {}, warn() {}, error() {} });
    const reads = worldReads(runtime);
    const earlier = before.snapshot();
    before.step([{ kind: "join", entityId: "agt_reader", actorKind: "agent", name: "Reader" }]);
    expect(reads.getEntity("agt_reader")).toBeDefined();
    expect(reads.tick).toBe(1);

    runtime.replaceWorld(World.restore(def, earlier));

    expect(reads.getEntity("agt_reader")).toBeUndefined();
    expect(reads.tick).toBe(0);
    expect(reads.actorsInRoom("lobby")).toHaveLength(0);
  });
});
