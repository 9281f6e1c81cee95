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

describe("a game at the café's table in words", () => {
  it("says who took a side, each move, and who won", () => {
    const world = World.create(def);
    const events: WorldEvent[] = [];
    const step = (...inputs: Parameters<World["step"]>[0]) => events.push(...world.step(inputs).events);
    const joinAt = (id: string, tx: number, ty: number) =>
      step({ ...(join(id, "town") as Extract<Input, { kind: "join" }>), at: { tx, ty } });
    const use = (who: string, action: string, params?: Record<string, unknown>) =>
      step({
        kind: "interact",
        entityId: who,
        targetId: "obj_cafe_game_table",
        action,
        ...(params ? { params } : {}),
      });
    joinAt("hum_ann", 6, 10);
    joinAt("agt_bob", 6, 8);
    use("hum_ann", "join");
    use("agt_bob", "join");
    for (const [i, column] of [0, 1, 0, 1, 0, 1, 0].entries())
      use(i % 2 === 0 ? "hum_ann" : "agt_bob", "play", { column });
    const names = namerOf(def, (id) => ({ hum_ann: "Ann", agt_bob: "Bob" })[id]);
    const said = events
      .filter((e) => e.type === "object.state_changed" && e.payload.objectType === "game_table")
      .map((e) => eventInWords(e, names))
      .filter((l) => !l?.includes("changed the"));
    expect(said).toEqual([
      "Ann took a side at the cafe game table",
      "Bob took a side at the cafe game table",
      ...[0, 1, 2, 3, 4, 5, 6].map((i) => `${i % 2 === 0 ? "Ann" : "Bob"} played at the cafe game table`),
      "Ann won at the cafe game table",
    ]);
  });
});
