import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../world/types.ts";
import { decodeCursor } from "./cursor.ts";
import { ok } from "./errors.ts";
import { envelopeOf } from "./event-envelope.ts";
import { resultJson, share, sharedJson } from "./shared-json.ts";

const event = (seq: number, payload: Record<string, unknown>): WorldEvent => ({
  seq,
  type: "chat.message",
  roomId: "lobby",
  tsMs: 1000 + seq,
  tick: seq,
  payload,
  audience: { kind: "room" },
});

/** A JSON-ish value in which some objects are frozen and shared, at any depth. */
const sharedValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(undefined, Number.NaN, -0, () => 1),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 4 }),
    fc
      .dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
      .map((o) => share(Object.freeze(o))),
    fc.date({ noInvalidDate: true }),
  ),
})).value;

describe("shared JSON", () => {
  it("writes exactly JSON.stringify's text, shared parts or not, at any depth", () => {
    fc.assert(
      fc.property(sharedValue, (data) => {
        const result = ok(data);
        expect(resultJson(result)).toBe(JSON.stringify(result));
        // Twice: the second time from the kept texts.
        expect(resultJson(result)).toBe(JSON.stringify(result));
      }),
      { numRuns: 500 },
    );
  });

  it("errors and plain values are JSON.stringify's", () => {
    const results = [
      ok(null),
      ok("text"),
      ok({ events: [1, null, undefined] }),
      { status: "error" as const, error: { code: "bad_request" as const, message: "m", retryable: false } },
    ];
    for (const r of results) expect(resultJson(r)).toBe(JSON.stringify(r));
  });

  it("every reader gets the same frozen, shared envelope of an event, in the PRD's shape", () => {
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
    expect(sharedJson(envelope)).toBe(JSON.stringify(envelope));
    const page = ok({
      events: [envelope, envelopeOf(event(8, { message: "x" }))],
      nextCursor: "c",
      serverTsMs: 1,
    });
    expect(resultJson(page)).toBe(JSON.stringify(page));
  });
});
