import { describe, expect, it } from "vitest";
import { WORLD_NOTICE_ENTITY_ID } from "../../aic/reads.ts";
import { wireEvent } from "./wire-events.ts";

const tourBoard = {
  id: "obj_tour",
  objectType: "tour",
  name: "tour",
  roomId: "lobby",
  tile: { tx: 1, ty: 1 },
  props: { stops: "a b", guide: "Guide" },
};
const world = {
  getEntity: (id: string) => (id === "hum_ann" ? ({ name: "Ann" } as never) : undefined),
  objectView: () => undefined,
  definition: { rooms: { lobby: { objects: [tourBoard] } } } as never,
};
const chat = (fromEntityId: string) => ({
  type: "chat.message" as const,
  seq: 1,
  tsMs: 0,
  payload: { fromEntityId, message: "hi", channel: "proximity" },
});

describe("a chat line as the browser gets it", () => {
  it("carries its speaker's name: a person's, the world's own, an object's as it signs, else the id", () => {
    expect(wireEvent(world, chat("hum_ann")).payload.fromName).toBe("Ann");
    expect(wireEvent(world, chat("obj_tour")).payload.fromName).toBe("Guide");
    expect(wireEvent(world, chat(WORLD_NOTICE_ENTITY_ID)).payload.fromName).toBe("The world");
    expect(wireEvent(world, chat("hum_gone")).payload.fromName).toBe("hum_gone");
  });
});
