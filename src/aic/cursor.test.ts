import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, START_CURSOR } from "./cursor.ts";
import { CURSOR_PATTERN } from "./schemas.ts";

describe("cursor codec", () => {
  it("round-trips room + seq and always matches the PRD cursor pattern", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9._-]{1,64}$/), fc.nat(), (roomId, seq) => {
        const cursor = encodeCursor(roomId, seq);
        expect(cursor).toMatch(CURSOR_PATTERN);
        expect(decodeCursor(cursor, roomId)).toEqual({ ok: true, position: { roomId, afterSeq: seq } });
      }),
    );
  });

  it("encodes exactly the documented layout: base64url of [1][seq uint64 BE][room UTF-8]", () => {
    const layout = (roomId: string, seq: number) => {
      const room = Buffer.from(roomId, "utf8");
      const bytes = Buffer.alloc(9 + room.length);
      bytes[0] = 1;
      bytes.writeBigUInt64BE(BigInt(seq), 1);
      room.copy(bytes, 9);
      return bytes.toString("base64url");
    };
    const edges = [
      0,
      1,
      255,
      256,
      2 ** 24,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 32 + 1,
      2 ** 40,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const seq of edges)
      for (const room of ["lobby", "a", "ab", "abc"]) expect(encodeCursor(room, seq)).toBe(layout(room, seq));
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9._-]{1,64}$/), fc.maxSafeNat(), (roomId, seq) => {
        expect(encodeCursor(roomId, seq)).toBe(layout(roomId, seq));
      }),
    );
  });

  it('"c_0" and "0" are start cursors of any room (from the oldest event still kept for the reader)', () => {
    expect(START_CURSOR).toBe("c_0");
    for (const start of ["c_0", "0"]) {
      expect(decodeCursor(start, "garden")).toEqual({
        ok: true,
        position: { roomId: "garden", afterSeq: 0, start: true },
      });
    }
    // A cursor naming position 0 is not a start cursor: it can expire.
    expect(decodeCursor(encodeCursor("garden", 0), "garden")).toEqual({
      ok: true,
      position: { roomId: "garden", afterSeq: 0 },
    });
  });

  it("rejects another room's cursor, malformed and foreign strings", () => {
    expect(decodeCursor(encodeCursor("lobby", 3), "garden")).toMatchObject({ ok: false });
    for (const bad of ["c_1", "c_3", "AAAA", "====", "x", `${encodeCursor("lobby", 3)}A`, "AQ"]) {
      expect(decodeCursor(bad, "lobby").ok, bad).toBe(false);
    }
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9=_-]{1,256}$/), (text) => {
        const decoded = decodeCursor(text, "lobby");
        if (decoded.ok)
          expect(
            text === "c_0" || text === "0" || encodeCursor("lobby", decoded.position.afterSeq) === text,
          ).toBe(true);
      }),
    );
  });
});
