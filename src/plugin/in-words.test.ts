// biome-ignore-all lint/style/noRestrictedImports: the words are checked against the bundled world's own tour.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import { join, run } from "../world/testing/helpers.ts";
import type { Input, WorldEvent } from "../world/types.ts";
import { World } from "../world/world.ts";
import { eventInWords, namerOf } from "./in-words.ts";

const def = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));
const names = namerOf(def, (id) => (id === "hum_ann" ? "Ann" : undefined));
const TOUR = "obj_guide_tour";

const change = (path: string, value: unknown): WorldEvent =>
  ({
    type: "object.state_changed",
    seq: 1,
    tick: 1,
    tsMs: 0,
    roomId: "lobby",
    payload: { objectId: TOUR, objectType: "tour", patch: [{ op: "replace", path, value }], version: 2 },
    actorId: "hum_ann",
  }) as unknown as WorldEvent;

describe("the guided tour in words (the replay's markers, the follow page)", () => {
  it("names who started, reached a stop and finished the tour", () => {
    expect(eventInWords(change("/started", 1), names)).toBe("Ann started the tour");
    expect(eventInWords(change("/reached", "Gazebo"), names)).toBe("Ann reached the Gazebo on the tour");
    expect(eventInWords(change("/finished", 1), names)).toBe("Ann finished the tour");
  });

  it("signs the Guide's lines with the guide's name", () => {
    const line = {
      type: "chat.message",
      payload: { fromEntityId: TOUR, message: "Well done, Ann" },
    } as unknown as WorldEvent;
    expect(eventInWords(line, names)).toBe('Guide said "Well done, Ann"');
  });
});

describe("the garden's plots in words", () => {
  it("says who planted, watered and cleared the cress, and when it grew on or wilted by itself", () => {
    const world = World.create(def);
    const events: WorldEvent[] = [];
    const step = (...inputs: Parameters<World["step"]>[0]) => events.push(...world.step(inputs).events);
    const use = (action: string) =>
      step({ kind: "interact", entityId: "hum_ann", targetId: "obj_plot_cress", action });
    step({ ...(join("hum_ann", "garden") as Extract<Input, { kind: "join" }>), at: { tx: 15, ty: 23 } });
    use("plant");
    use("water");
    // The tray grows in 60 s, is thirsty after 120 s (20 ticks a second).
    for (const r of run(world, 125 * 20)) events.push(...r.events);
    use("water");
    use("clear");
    const lines = events
      .filter((e) => e.type === "object.state_changed")
      .map((e) =>
        eventInWords(
          e,
          namerOf(def, (id) => (id === "hum_ann" ? "Ann" : undefined)),
        ),
      );
    const said = lines.filter((l) => !l?.includes("changed the plot cress"));
    expect(said).toEqual([
      "Ann planted the plot cress",
      "Ann watered the plot cress",
      "Ann watered the plot cress",
      "the plot cress: growing now",
      "the plot cress: flowering now",
      "the plot cress: wilted",
      "Ann revived the plot cress",
      "Ann watered the plot cress",
      "Ann cleared the plot cress",
    ]);
  });
});
