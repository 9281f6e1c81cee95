import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../world/types.ts";
import { decodeCursor } from "./cursor.ts";
import { ok } from "./errors.ts";
import { envelopeJson, envelopeOf, resultJson } from "./event-envelope.ts";

const event = (seq: number, payload: Record<string, unknown>): WorldEvent => ({
  seq,
  type: "chat.message",
  roomId: "lobby",
  tsMs: 1000 + seq,
  tick: seq,
  payload,
  audience: { kind: "room" },
});

describe("event envelopes", () => {
  it("every reader gets the same frozen envelope of an event, in the PRD's shape", () => {
    const e = event(7, { message: "hi", fromEntityId: "agt_a" });
    const envelope = envelopeOf(e);
    expect(envelopeOf(e)).toBe(envelope);
    expect(Object.isFrozen(envelope)).toBe(true);
    expect(envelope).toEqual({
      cursor: envelope.cursor,
      type: "chat.message",
      roomId: "lobby",
      tsMs: 1007,
      payload: e.payload,
    });
    expect(decodeCursor(envelope.cursor, "lobby")).toEqual({
      ok: true,
      position: { roomId: "lobby", afterSeq: 7 },
    });
    expect(envelopeJson(envelope)).toBe(JSON.stringify(envelope));
  });

  it("a page's JSON is exactly JSON.stringify's, whatever the payloads", () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }),
        fc.string(),
        fc.nat(),
        (payloads, nextCursor, serverTsMs) => {
          const events = payloads.map((p, i) => envelopeOf(event(i + 1, p)));
          const page = ok({ events, nextCursor, serverTsMs });
          expect(resultJson(page)).toBe(JSON.stringify(page));
          const bare = ok({ events });
          expect(resultJson(bare)).toBe(JSON.stringify(bare));
        },
      ),
    );
  });

  it("anything but a page is plain JSON.stringify", () => {
    const results = [
      ok({ nextCursor: "x", events: [] }),
      ok({ events: "not a list" }),
      ok({ events: [1, null] }),
      ok(null),
      ok("text"),
      { status: "error" as const, error: { code: "bad_request" as const, message: "m", retryable: false } },
    ];
    for (const r of results) expect(resultJson(r)).toBe(JSON.stringify(r));
  });
});
