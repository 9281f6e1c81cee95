// Draws the lobby tileset (worlds/lobby/tiles.png) as deterministic pixel art and writes it as a PNG
// with node:zlib. 256x64 px: 8 columns x 2 rows of 32px tiles, gid = index + 1:
//  1 grass  2 wood floor  3 stone path  4 stone wall  5 water  6 tree  7 crate  8 flowers
//  9 carpet 10 sand      11 bush       12 rock       13 brick wall 14 bridge 15 dark floor 16 fence
//  (6 tree, 7 crate, 8 flowers, 11 bush, 12 rock are decor: transparent around the object)
// Run: npx node scripts/gen-tiles.ts [outPath]
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, deflateSync } from "node:zlib";

export const TILE = 32;
export const COLUMNS = 8;
export const ROWS = 2;
export const TILE_NAMES = [
  "grass",
  "wood floor",
  "stone path",
  "stone wall",
  "water",
  "tree",
  "crate",
  "flowers",
  "carpet",
  "sand",
  "bush",
  "rock",
  "brick wall",
  "bridge",
  "dark floor",
  "fence",
] as const;

type Rgba = [number, number, number, number];

class Canvas {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.data = new Uint8Array(width * height * 4);
  }
  set(x: number, y: number, c: Rgba): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 4;
    const a = c[3] / 255;
    if (a >= 1 || this.data[i + 3] === 0) {
      this.data.set(c, i);
      return;
    }
    for (let k = 0; k < 3; k++) this.data[i + k] = Math.round(c[k]! * a + this.data[i + k]! * (1 - a));
    this.data[i + 3] = Math.max(this.data[i + 3]!, c[3]);
  }
}

/** Deterministic hash noise in [0, 1) for integer coordinates and a salt. */
function noise(x: number, y: number, salt: number): number {
  let h = (x * 374761393 + y * 668265263 + salt * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

function shade(c: Rgba, f: number): Rgba {
  const k = (v: number) => Math.max(0, Math.min(255, Math.round(v * f)));
  return [k(c[0]), k(c[1]), k(c[2]), c[3]];
}

/** A tile-local painter: coordinates 0..31 inside tile `index`. */
function tilePainter(canvas: Canvas, index: number) {
  const ox = (index % COLUMNS) * TILE;
  const oy = Math.floor(index / COLUMNS) * TILE;
  const px = (x: number, y: number, c: Rgba) => {
    if (x >= 0 && y >= 0 && x < TILE && y < TILE) canvas.set(ox + x, oy + y, c);
  };
  const rect = (x: number, y: number, w: number, h: number, c: Rgba) => {
    for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) px(i, j, c);
  };
  const disc = (
    cx: number,
    cy: number,
    r: number,
    c: (x: number, y: number, d: number) => Rgba | undefined,
  ) => {
    for (let y = Math.floor(cy - r); y <= Math.ceil(cy + r); y++)
      for (let x = Math.floor(cx - r); x <= Math.ceil(cx + r); x++) {
        const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy) / r;
        if (d <= 1) {
          const col = c(x, y, d);
          if (col) px(x, y, col);
        }
      }
  };
  return { px, rect, disc };
}

const GRASS: Rgba = [86, 156, 72, 255];

function grass(p: ReturnType<typeof tilePainter>, salt: number): void {
  for (let y = 0; y < TILE; y++)
    for (let x = 0; x < TILE; x++) {
      const n = noise(x, y, salt);
      p.px(x, y, shade(GRASS, 0.92 + n * 0.14));
    }
  for (let k = 0; k < 14; k++) {
    const x = Math.floor(noise(k, 1, salt + 7) * 30) + 1;
    const y = Math.floor(noise(k, 2, salt + 7) * 29) + 2;
    p.px(x, y, shade(GRASS, 1.25));
    p.px(x, y - 1, shade(GRASS, 1.15));
    p.px(x + 1, y + 1, shade(GRASS, 0.75));
  }
}

const painters: ((p: ReturnType<typeof tilePainter>) => void)[] = [
  // 1 grass
  (p) => grass(p, 1),
  // 2 wood floor: planks 8px tall, staggered seams
  (p) => {
    const wood: Rgba = [170, 118, 70, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) {
        const plank = Math.floor(y / 8);
        const grain = Math.sin((x + plank * 13) * 0.7 + noise(plank, y, 2) * 2) * 0.04;
        p.px(x, y, shade(wood, 0.95 + grain + noise(x, y, 3) * 0.06 - (plank % 2) * 0.05));
      }
    for (let plank = 0; plank < 4; plank++) {
      p.rect(0, plank * 8 + 7, TILE, 1, shade(wood, 0.62));
      const seam = (plank * 11 + 5) % TILE;
      p.rect(seam, plank * 8, 1, 7, shade(wood, 0.7));
    }
  },
  // 3 stone path: cobbles
  (p) => {
    const mortar: Rgba = [142, 136, 124, 255];
    p.rect(0, 0, TILE, TILE, mortar);
    const stones = [
      [0, 0, 11, 9],
      [12, 0, 10, 8],
      [23, 0, 9, 10],
      [0, 10, 8, 11],
      [9, 9, 13, 11],
      [23, 11, 9, 9],
      [0, 22, 12, 10],
      [13, 21, 9, 11],
      [23, 21, 9, 11],
    ] as const;
    stones.forEach(([x, y, w, h], k) => {
      const base = shade([172, 168, 156, 255], 0.94 + noise(k, 0, 4) * 0.1);
      for (let j = 1; j < h - 1; j++)
        for (let i = 1; i < w - 1; i++) {
          const edge = j === 1 || i === 1 ? 1.06 : j === h - 2 || i === w - 2 ? 0.9 : 1;
          p.px(x + i, y + j, shade(base, edge * (0.96 + noise(x + i, y + j, 5) * 0.08)));
        }
    });
  },
  // 4 stone wall: large grey blocks with a lit top
  (p) => {
    const stone: Rgba = [120, 124, 134, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(stone, 0.92 + noise(x, y, 6) * 0.12));
    for (let row = 0; row < 3; row++) {
      const y = row * 11;
      p.rect(0, y, TILE, 1, shade(stone, 0.55));
      p.rect(0, y + 1, TILE, 1, shade(stone, 1.25));
      const off = row % 2 === 0 ? 0 : 8;
      for (let x = off; x < TILE; x += 16) p.rect(x, y, 1, 11, shade(stone, 0.55));
    }
    p.rect(0, 28, TILE, 4, shade(stone, 0.6));
  },
  // 5 water: waves
  (p) => {
    const water: Rgba = [52, 112, 196, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) {
        const wave = Math.sin((x + y * 0.5) * 0.45) * 0.05 + Math.sin(y * 0.9) * 0.03;
        p.px(x, y, shade(water, 0.95 + wave + noise(x, y, 7) * 0.05));
      }
    for (let k = 0; k < 5; k++) {
      const x = Math.floor(noise(k, 0, 8) * 24);
      const y = Math.floor(noise(k, 1, 8) * 30) + 1;
      for (let i = 0; i < 6; i++) p.px(x + i, y + (i === 0 || i === 5 ? 1 : 0), [178, 214, 245, 255]);
    }
  },
  // 6 tree (decor: transparent around, so it sits on any ground)
  (p) => {
    p.disc(16, 27, 9, (_x, _y, d) => (d > 0.0 ? [30, 60, 30, 90] : undefined));
    p.rect(13, 20, 6, 9, [110, 72, 40, 255]);
    p.rect(13, 20, 2, 9, [134, 92, 52, 255]);
    p.disc(16, 13, 12.5, (x, y, d) => {
      const light = x + y < 26 ? 1.2 : 1;
      const n = noise(x, y, 9) * 0.18;
      return shade([46, 118, 52, 255], (d > 0.85 ? 0.7 : light) * (0.9 + n));
    });
    p.disc(11, 9, 4, (x, y) => shade([84, 164, 80, 255], 0.95 + noise(x, y, 10) * 0.1));
  },
  // 7 crate: wooden box, transparent around
  (p) => {
    const wood: Rgba = [186, 134, 72, 255];
    p.rect(4, 27, 25, 3, [0, 0, 0, 70]);
    p.rect(3, 4, 26, 24, shade(wood, 0.62));
    p.rect(4, 5, 24, 22, wood);
    for (let y = 5; y < 27; y += 5) p.rect(4, y, 24, 1, shade(wood, 0.8));
    p.rect(4, 5, 24, 3, shade(wood, 0.7));
    p.rect(4, 24, 24, 3, shade(wood, 0.7));
    for (let i = 0; i < 20; i++) {
      p.px(6 + i, 8 + Math.round(i * 0.8), shade(wood, 0.65));
      p.px(7 + i, 8 + Math.round(i * 0.8), shade(wood, 0.75));
    }
    for (const [x, y] of [
      [5, 6],
      [26, 6],
      [5, 25],
      [26, 25],
    ] as const)
      p.px(x, y, [60, 60, 60, 255]);
  },
  // 8 flowers (decor: blossoms and leaves on a transparent background)
  (p) => {
    const colors: Rgba[] = [
      [236, 84, 96, 255],
      [250, 220, 80, 255],
      [240, 240, 250, 255],
      [176, 110, 230, 255],
    ];
    for (let k = 0; k < 14; k++) {
      const x = 3 + Math.floor(noise(k, 0, 11) * 26);
      const y = 3 + Math.floor(noise(k, 1, 11) * 26);
      const c = colors[k % colors.length]!;
      p.px(x - 1, y + 2, shade(GRASS, 0.7));
      p.px(x + 1, y + 2, shade(GRASS, 0.8));
      p.px(x, y + 2, shade(GRASS, 0.6));
      p.px(x, y - 1, c);
      p.px(x - 1, y, c);
      p.px(x + 1, y, c);
      p.px(x, y + 1, c);
      p.px(x, y, [250, 200, 60, 255]);
    }
  },
  // 9 carpet: red with a gold border pattern
  (p) => {
    const red: Rgba = [150, 40, 52, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(red, 0.95 + noise(x, y, 12) * 0.08));
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) {
        const dx = Math.abs(x - 15.5);
        const dy = Math.abs(y - 15.5);
        if (Math.abs(dx + dy - 10) < 1) p.px(x, y, [214, 170, 70, 255]);
        if (Math.abs(dx + dy - 5) < 1) p.px(x, y, shade(red, 1.35));
      }
  },
  // 10 sand
  (p) => {
    const sand: Rgba = [222, 198, 140, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(sand, 0.93 + noise(x, y, 13) * 0.1));
    for (let k = 0; k < 10; k++)
      p.px(Math.floor(noise(k, 0, 14) * 32), Math.floor(noise(k, 1, 14) * 32), shade(sand, 0.75));
  },
  // 11 bush (decor: transparent around)
  (p) => {
    p.disc(16, 24, 11, () => [20, 50, 20, 70]);
    for (const [cx, cy, r] of [
      [10, 18, 7],
      [22, 18, 7],
      [16, 13, 8],
    ] as const)
      p.disc(cx, cy, r, (x, y, d) =>
        shade([58, 132, 58, 255], (d > 0.8 ? 0.72 : 1) * (0.92 + noise(x, y, 15) * 0.16)),
      );
    p.px(12, 12, [220, 60, 70, 255]);
    p.px(20, 16, [220, 60, 70, 255]);
    p.px(16, 20, [220, 60, 70, 255]);
  },
  // 12 rock: transparent around
  (p) => {
    p.disc(16, 24, 11, () => [0, 0, 0, 60]);
    p.disc(16, 18, 11, (x, y, d) => {
      if (y > 25) return undefined;
      const light = x + y < 30 ? 1.2 : 0.95;
      return shade([140, 138, 132, 255], (d > 0.85 ? 0.65 : light) * (0.92 + noise(x, y, 16) * 0.12));
    });
  },
  // 13 brick wall
  (p) => {
    const brick: Rgba = [164, 70, 52, 255];
    const mortar: Rgba = [196, 184, 168, 255];
    p.rect(0, 0, TILE, TILE, mortar);
    for (let row = 0; row < 4; row++) {
      const off = row % 2 === 0 ? 0 : 8;
      for (let bx = -1; bx < 3; bx++) {
        const x0 = bx * 16 + off;
        const f = 0.9 + noise(bx + 5, row, 17) * 0.2;
        for (let y = row * 8; y < row * 8 + 7; y++)
          for (let x = x0; x < x0 + 15; x++) {
            const edge = y === row * 8 ? 1.15 : y === row * 8 + 6 ? 0.8 : 1;
            p.px(x, y, shade(brick, f * edge * (0.95 + noise(x, y, 18) * 0.08)));
          }
      }
    }
  },
  // 14 bridge: planks across with rails
  (p) => {
    const wood: Rgba = [150, 104, 60, 255];
    for (let x = 0; x < TILE; x++)
      for (let y = 0; y < TILE; y++) {
        const plank = Math.floor(x / 6);
        p.px(x, y, shade(wood, 0.92 + noise(plank, y, 19) * 0.06 + (plank % 2) * 0.06));
      }
    for (let x = 5; x < TILE; x += 6) p.rect(x, 0, 1, TILE, shade(wood, 0.6));
    p.rect(0, 0, TILE, 3, shade(wood, 0.55));
    p.rect(0, 29, TILE, 3, shade(wood, 0.55));
    p.rect(0, 1, TILE, 1, shade(wood, 0.85));
    for (let x = 2; x < TILE; x += 10) {
      p.px(x, 8, [70, 70, 70, 255]);
      p.px(x, 23, [70, 70, 70, 255]);
    }
  },
  // 15 dark floor: slate tiles
  (p) => {
    const slate: Rgba = [62, 64, 78, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(slate, 0.94 + noise(x, y, 20) * 0.1));
    p.rect(0, 15, TILE, 1, shade(slate, 0.7));
    p.rect(15, 0, 1, TILE, shade(slate, 0.7));
    p.rect(0, 16, TILE, 1, shade(slate, 1.2));
    p.rect(16, 0, 1, TILE, shade(slate, 1.2));
  },
  // 16 fence over grass
  (p) => {
    grass(p, 16);
    const wood: Rgba = [200, 170, 120, 255];
    p.rect(0, 11, TILE, 3, wood);
    p.rect(0, 20, TILE, 3, wood);
    p.rect(0, 13, TILE, 1, shade(wood, 0.7));
    p.rect(0, 22, TILE, 1, shade(wood, 0.7));
    for (const x of [4, 24]) {
      p.rect(x, 5, 4, 24, wood);
      p.rect(x + 3, 5, 1, 24, shade(wood, 0.7));
      p.rect(x, 5, 4, 1, shade(wood, 1.15));
      p.rect(x, 29, 5, 1, [30, 60, 30, 120]);
    }
  },
];

export function drawTileset(): Canvas {
  const canvas = new Canvas(COLUMNS * TILE, ROWS * TILE);
  painters.forEach((paint, index) => {
    paint(tilePainter(canvas, index));
  });
  return canvas;
}

function chunk(type: string, body: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([len, typed, crc]);
}

/** Encode RGBA pixels as a PNG (colour type 6, 8 bits, filter 0 on every row). */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const out = resolve(process.argv[2] ?? resolve(root, "worlds/lobby/tiles.png"));
  const canvas = drawTileset();
  writeFileSync(out, encodePng(canvas.width, canvas.height, canvas.data));
  console.log(`wrote ${out} (${canvas.width}x${canvas.height}, ${TILE_NAMES.length} tiles)`);
}
