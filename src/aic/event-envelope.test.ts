import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../world/types.ts";
import { decodeCursor } from "./cursor.ts";
import { envelopeOf } from "./event-envelope.ts";

describe("event envelopes", () => {
  it("an event's envelope is in the PRD's shape, its cursor the event's position", () => {
    const e: WorldEvent = {
      seq: 7,
      type: "chat.message",
      roomId: "lobby",
      tsMs: 1007,
      tick: 7,
      payload: { message: "hi", fromEntityId: "agt_a" },
      audience: { kind: "room" },
    };
    const envelope = envelopeOf(e);
    expect(envelope).toEqual({
      cursor: envelope.cursor,
      type: "chat.message",
      roomId: "lobby",
      tsMs: 1007,
      payload: e.payload,
    });
    expect(Object.keys(envelope)).toEqual(["cursor", "type", "roomId", "tsMs", "payload"]);
    expect(decodeCursor(envelope.cursor, "lobby")).toEqual({
      ok: true,
      position: { roomId: "lobby", afterSeq: 7 },
    });
  });
});
