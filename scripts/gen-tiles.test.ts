import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { COLUMNS, drawTileset, encodePng, ROWS, TILE, TILE_NAMES, WATER_FRAMES } from "./gen-tiles.ts";

const committed = new URL("../worlds/lobby/tiles.png", import.meta.url);

describe("lobby tileset", () => {
  it("is 256x128 with 32 named 32px tiles", () => {
    const canvas = drawTileset();
    expect([canvas.width, canvas.height]).toEqual([256, 128]);
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
    for (const gid of [1, 2, 3, 4, 5, 9, 10, 13, 14, 15, 16, 17, 18, 20, 21, 23, 24, 25, 30, 31, 32])
      expect(alphaOf(gid - 1), `gid ${gid}`).toBe(0);
    for (const gid of [6, 7, 8, 11, 12, 19, 22, 26, 27, 28, 29])
      expect(alphaOf(gid - 1), `gid ${gid}`).toBeGreaterThan(60);
  });

  it("water has three frames that differ but share the same colours", () => {
    const canvas = drawTileset();
    const pixels = (id: number) => {
      const ox = (id % COLUMNS) * TILE;
      const oy = Math.floor(id / COLUMNS) * TILE;
      const out: number[] = [];
      for (let y = 0; y < TILE; y++)
        for (let x = 0; x < TILE; x++)
          out.push(
            ...canvas.data.subarray(
              ((oy + y) * canvas.width + ox + x) * 4,
              ((oy + y) * canvas.width + ox + x) * 4 + 4,
            ),
          );
      return out;
    };
    const [a, b, c] = WATER_FRAMES.map(pixels);
    expect(a).not.toEqual(b);
    expect(b).not.toEqual(c);
    const mean = (p: number[]) => p.filter((_, i) => i % 4 === 2).reduce((n, v) => n + v, 0) / (p.length / 4);
    expect(Math.abs(mean(a!) - mean(b!))).toBeLessThan(6);
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
