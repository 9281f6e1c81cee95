// biome-ignore-all lint/style/noRestrictedImports: the words are checked against the bundled world's own tour.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import type { WorldEvent } from "../world/types.ts";
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
