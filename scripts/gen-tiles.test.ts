import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { COLUMNS, drawTileset, encodePng, ROWS, TILE, TILE_NAMES } from "./gen-tiles.ts";

const committed = new URL("../worlds/lobby/tiles.png", import.meta.url);

describe("lobby tileset", () => {
  it("is 256x64 with 16 named 32px tiles", () => {
    const canvas = drawTileset();
    expect([canvas.width, canvas.height]).toEqual([256, 64]);
    expect(COLUMNS * ROWS).toBe(TILE_NAMES.length);
    expect(TILE).toBe(32);
  });

  it("the committed PNG is exactly what the generator draws (deterministic)", () => {
    const canvas = drawTileset();
    expect(encodePng(canvas.width, canvas.height, canvas.data).equals(readFileSync(committed))).toBe(true);
  });

  it("ground tiles are opaque and decor tiles have transparent pixels", () => {
    const canvas = drawTileset();
    const alphaOf = (index: number) => {
      const ox = (index % COLUMNS) * TILE;
      const oy = Math.floor(index / COLUMNS) * TILE;
      let transparent = 0;
      for (let y = 0; y < TILE; y++)
        for (let x = 0; x < TILE; x++)
          if (canvas.data[((oy + y) * canvas.width + ox + x) * 4 + 3] === 0) transparent++;
      return transparent;
    };
    for (const gid of [1, 2, 3, 4, 5, 9, 10, 13, 14, 15, 16]) expect(alphaOf(gid - 1), `gid ${gid}`).toBe(0);
    for (const gid of [6, 7, 8, 11, 12]) expect(alphaOf(gid - 1), `gid ${gid}`).toBeGreaterThan(100);
  });

  it("encodes a PNG whose pixel data inflates back to the input", () => {
    const rgba = new Uint8Array([255, 0, 0, 255, 0, 255, 0, 128]);
    const png = encodePng(2, 1, rgba);
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
    const idatLength = png.readUInt32BE(33);
    const raw = inflateSync(png.subarray(41, 41 + idatLength));
    expect([...raw]).toEqual([0, ...rgba]);
  });
});
