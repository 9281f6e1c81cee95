import { describe, expect, it } from "vitest";
import { approachTile, withinRange } from "./approach-spot.ts";

/** A grid from rows of "#" (blocked) and "." (free). */
function grid(rows: string[]) {
  const width = rows[0]!.length;
  return {
    width,
    height: rows.length,
    blocked: Uint8Array.from(rows.join("").split(""), (c) => (c === "#" ? 1 : 0)),
  };
}

describe("approachTile", () => {
  // A door (D) in a vertical wall: the tile below it is wall, the way in is from the side.
  const room = grid(["##########", "#....#...#", "#....D...#", "#....#...#", "#....#...#", "##########"]);
  const door = { tx: 5, ty: 2 };
  room.blocked[2 * 10 + 5] = 1; // a closed door blocks its tile

  it("stops on a free tile next to an object in a wall, on the walker's side", () => {
    const tile = approachTile(room, { tx: 1, ty: 4 }, door, 1);
    expect(tile).toBeDefined();
    expect(room.blocked[tile!.ty * 10 + tile!.tx]).toBe(0);
    expect(tile!.tx).toBeLessThan(5);
    expect(withinRange(tile!, door, 1)).toBe(true);
  });

  it("is deterministic and nearest by walking", () => {
    const a = approachTile(room, { tx: 1, ty: 1 }, door, 1);
    expect(a).toEqual(approachTile(room, { tx: 1, ty: 1 }, door, 1));
    expect(a).toEqual({ tx: 4, ty: 2 });
  });

  it("never chooses a tile someone stands on: the next free one in range (walking through theirs)", () => {
    const taken = (tx: number, ty: number) => tx === 4 && ty === 2;
    expect(approachTile(room, { tx: 1, ty: 2 }, door, 2)).toEqual({ tx: 3, ty: 2 });
    const tile = approachTile(room, { tx: 1, ty: 2 }, door, 2, (tx, ty) => tx === 3 && ty === 2);
    expect(tile).toBeDefined();
    expect(tile).not.toEqual({ tx: 3, ty: 2 });
    expect(withinRange(tile!, door, 2)).toBe(true);
    // Within 1 of the door only (4, 2) on this side (the other side is walled off): taken, nowhere.
    expect(approachTile(room, { tx: 1, ty: 1 }, door, 1)).toEqual({ tx: 4, ty: 2 });
    expect(approachTile(room, { tx: 1, ty: 1 }, door, 1, taken)).toBeUndefined();
  });

  it("answers the start tile when already in range, twice in a row", () => {
    expect(approachTile(room, { tx: 4, ty: 3 }, door, 2)).toEqual({ tx: 4, ty: 3 });
    expect(approachTile(room, { tx: 4, ty: 3 }, door, 2)).toEqual({ tx: 4, ty: 3 });
  });

  it("uses the range: two tiles away is enough with range 2", () => {
    const tile = approachTile(room, { tx: 1, ty: 2 }, door, 2);
    expect(tile).toEqual({ tx: 3, ty: 2 });
  });

  it("is undefined when nothing in range can be reached, or the start is outside", () => {
    const walled = grid(["#####", "#.#.#", "#####"]);
    expect(approachTile(walled, { tx: 1, ty: 1 }, { tx: 3, ty: 1 }, 1)).toBeUndefined();
    expect(approachTile(walled, { tx: -1, ty: 1 }, { tx: 3, ty: 1 }, 1)).toBeUndefined();
  });

  it("does not cut corners on the way", () => {
    // Only a diagonal squeeze between two walls leads to the target's neighbourhood.
    const squeeze = grid(["#####", "#.#.#", "##..#", "#####"]);
    expect(approachTile(squeeze, { tx: 1, ty: 1 }, { tx: 3, ty: 1 }, 1)).toBeUndefined();
  });
});
