// Draws the lobby tileset (worlds/lobby/tiles.png) as deterministic pixel art and writes it as a PNG
// with node:zlib. 256x128 px: 8 columns x 4 rows of 32px tiles, gid = index + 1:
//  1 grass  2 wood floor  3 stone path  4 stone wall  5 water  6 tree  7 crate  8 flowers
//  9 carpet 10 sand      11 bush       12 rock       13 brick wall 14 bridge 15 dark floor 16 fence
// 17 water (2nd frame) 18 water (3rd frame) 19 table 20 bookshelf 21 counter 22 potted plant
// 23 rug   24 checker floor 25 plaster wall 26 lamp post 27 desk 28 market stall 29 hedge
// 30 paving 31 window wall 32 fireplace
//  (6 tree, 7 crate, 8 flowers, 11 bush, 12 rock, 19 table, 22 plant, 26 lamp, 27 desk, 28 stall and
//  29 hedge are decor: transparent around the object. Water animates through 5, 17, 18: the maps'
//  tileset says so, and the client's renderer plays it.)
// Run: npx node scripts/gen-tiles.ts [outPath]
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, deflateSync } from "node:zlib";

export const TILE = 32;
export const COLUMNS = 8;
export const ROWS = 4;
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
  "water (frame 2)",
  "water (frame 3)",
  "table",
  "bookshelf",
  "counter",
  "potted plant",
  "rug",
  "checker floor",
  "plaster wall",
  "lamp post",
  "desk",
  "market stall",
  "hedge",
  "paving",
  "window wall",
  "fireplace",
] as const;

/** Frames of the water animation, as tile ids (gid - 1), and how long each shows. */
export const WATER_FRAMES = [4, 16, 17] as const;
export const WATER_FRAME_MS = 450;

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

/** Water, one frame of three: the waves roll and the glints drift a third of the way each frame,
 * and the pattern wraps at the tile's edges so neighbouring water tiles join up. */
function water(p: ReturnType<typeof tilePainter>, frame: number): void {
  const base: Rgba = [52, 112, 196, 255];
  const phase = (frame * 2 * Math.PI) / 3;
  for (let y = 0; y < TILE; y++)
    for (let x = 0; x < TILE; x++) {
      const wave =
        Math.sin(((x + y * 0.5) * 2 * Math.PI) / 16 + phase) * 0.05 +
        Math.sin((y * 2 * Math.PI) / 8 + phase) * 0.03;
      p.px(x, y, shade(base, 0.95 + wave + noise(x, y, 7) * 0.05));
    }
  for (let k = 0; k < 5; k++) {
    const x = Math.floor(noise(k, 0, 8) * 32);
    const y = (Math.floor(noise(k, 1, 8) * 30) + 1 + frame * 2) % TILE;
    for (let i = 0; i < 6; i++)
      p.px((x + i + frame * 3) % TILE, (y + (i === 0 || i === 5 ? 1 : 0)) % TILE, [178, 214, 245, 255]);
  }
}

/** Furniture wood, lit from the top left. */
const WOOD: Rgba = [150, 98, 56, 255];

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
  // 5 water: waves (frame 1 of 3)
  (p) => water(p, 0),
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

painters.push(
  // 17, 18 water frames 2 and 3
  (p) => water(p, 1),
  (p) => water(p, 2),
  // 19 table: a square wooden top reaching the tile's edges, so neighbouring tables join into one
  //    long table (the council room's), with legs and a shadow below
  (p) => {
    p.rect(0, 26, TILE, 4, [0, 0, 0, 60]);
    p.rect(1, 20, 3, 9, shade(WOOD, 0.55));
    p.rect(28, 20, 3, 9, shade(WOOD, 0.55));
    for (let y = 2; y < 22; y++)
      for (let x = 0; x < TILE; x++) {
        const grain = Math.sin(x * 0.5 + noise(0, y, 21) * 3) * 0.03;
        p.px(x, y, shade(WOOD, (y < 4 ? 1.2 : y > 19 ? 0.7 : 1.05) + grain + noise(x, y, 21) * 0.05));
      }
    p.disc(10, 11, 3, () => [244, 236, 220, 255]); // a cup
    p.px(10, 11, [120, 70, 40, 255]);
  },
  // 20 bookshelf: shelves of coloured spines
  (p) => {
    p.rect(0, 0, TILE, TILE, shade(WOOD, 0.55));
    p.rect(2, 2, 28, 28, shade(WOOD, 0.8));
    const spines: Rgba[] = [
      [170, 50, 50, 255],
      [50, 90, 160, 255],
      [60, 130, 70, 255],
      [200, 160, 60, 255],
      [120, 70, 140, 255],
      [230, 220, 200, 255],
    ];
    for (let shelf = 0; shelf < 3; shelf++) {
      const y0 = 3 + shelf * 9;
      p.rect(2, y0 + 7, 28, 2, shade(WOOD, 0.5));
      for (let x = 3; x < 29; ) {
        const w = 2 + Math.floor(noise(x, shelf, 22) * 3);
        const h = 5 + Math.floor(noise(shelf, x, 23) * 3);
        const c = spines[Math.floor(noise(x, shelf, 24) * spines.length)]!;
        p.rect(x, y0 + 7 - h, w, h, c);
        p.rect(x, y0 + 7 - h, 1, h, shade(c, 1.2));
        x += w + (noise(x, shelf, 25) > 0.8 ? 2 : 0);
      }
    }
  },
  // 21 counter: a long wooden bar top over panelling
  (p) => {
    p.rect(0, 0, TILE, TILE, shade(WOOD, 0.7));
    for (let x = 0; x < TILE; x += 8) p.rect(x, 12, 1, 20, shade(WOOD, 0.5));
    p.rect(0, 0, TILE, 11, [206, 188, 160, 255]);
    p.rect(0, 10, TILE, 2, shade(WOOD, 0.45));
    p.rect(0, 0, TILE, 1, [236, 224, 200, 255]);
    p.disc(24, 5, 3, () => [250, 250, 250, 255]); // a saucer
    p.disc(24, 5, 1.5, () => [110, 64, 36, 255]);
  },
  // 22 potted plant
  (p) => {
    p.disc(16, 28, 8, () => [0, 0, 0, 60]);
    p.rect(10, 20, 12, 9, [176, 92, 60, 255]);
    p.rect(10, 20, 12, 2, [200, 118, 80, 255]);
    for (const [cx, cy, r] of [
      [16, 12, 7],
      [10, 15, 5],
      [22, 15, 5],
      [16, 6, 4],
    ] as const)
      p.disc(cx, cy, r, (x, y, d) =>
        shade([56, 140, 64, 255], (d > 0.8 ? 0.7 : 1) * (0.9 + noise(x, y, 26) * 0.2)),
      );
  },
  // 23 rug: teal with a cream border
  (p) => {
    const teal: Rgba = [44, 120, 128, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(teal, 0.94 + noise(x, y, 27) * 0.08));
    for (let i = 0; i < TILE; i += 4) {
      p.rect(i, 2, 2, 2, [226, 212, 170, 255]);
      p.rect(i + 2, 28, 2, 2, [226, 212, 170, 255]);
    }
  },
  // 24 checker floor (the café)
  (p) => {
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) {
        const dark = (Math.floor(x / 8) + Math.floor(y / 8)) % 2 === 1;
        const c: Rgba = dark ? [70, 62, 58, 255] : [226, 218, 200, 255];
        p.px(x, y, shade(c, 0.96 + noise(x, y, 28) * 0.06));
      }
  },
  // 25 plaster wall: cream render with a timber top beam
  (p) => {
    const plaster: Rgba = [222, 206, 172, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(plaster, 0.93 + noise(x, y, 29) * 0.1));
    p.rect(0, 0, TILE, 4, shade(WOOD, 0.75));
    p.rect(0, 4, TILE, 1, shade(WOOD, 0.5));
    p.rect(0, 28, TILE, 4, shade(plaster, 0.7));
  },
  // 26 lamp post
  (p) => {
    p.disc(16, 29, 5, () => [0, 0, 0, 70]);
    p.rect(15, 8, 3, 21, [50, 52, 60, 255]);
    p.rect(12, 27, 9, 3, [50, 52, 60, 255]);
    p.disc(16, 7, 7, () => [255, 230, 140, 60]);
    p.rect(12, 3, 9, 7, [40, 42, 50, 255]);
    p.rect(13, 4, 7, 5, [255, 226, 130, 255]);
  },
  // 27 desk with an open book
  (p) => {
    p.rect(2, 26, 28, 4, [0, 0, 0, 60]);
    p.rect(2, 6, 28, 20, shade(WOOD, 0.85));
    p.rect(2, 6, 28, 2, shade(WOOD, 1.15));
    p.rect(4, 24, 3, 6, shade(WOOD, 0.6));
    p.rect(25, 24, 3, 6, shade(WOOD, 0.6));
    p.rect(9, 10, 14, 9, [246, 240, 226, 255]);
    p.rect(15, 10, 2, 9, [200, 190, 170, 255]);
    for (let y = 12; y < 18; y += 2) {
      p.rect(10, y, 4, 1, [150, 150, 160, 255]);
      p.rect(18, y, 4, 1, [150, 150, 160, 255]);
    }
  },
  // 28 market stall: striped awning over a crate of fruit
  (p) => {
    p.rect(3, 28, 26, 3, [0, 0, 0, 60]);
    p.rect(4, 12, 24, 16, shade(WOOD, 0.8));
    for (let k = 0; k < 10; k++)
      p.disc(7 + (k % 5) * 4.5, 16 + Math.floor(k / 5) * 4, 2, () =>
        k % 3 === 0 ? [220, 60, 50, 255] : k % 3 === 1 ? [240, 170, 40, 255] : [120, 180, 60, 255],
      );
    for (let x = 1; x < 31; x++) {
      const red = Math.floor((x - 1) / 5) % 2 === 0;
      p.rect(x, 2, 1, 8, red ? [200, 52, 52, 255] : [246, 240, 230, 255]);
    }
    p.rect(1, 10, 30, 1, [120, 40, 40, 255]);
  },
  // 29 hedge: a trimmed box of leaves
  (p) => {
    p.rect(1, 26, 30, 5, [20, 50, 20, 80]);
    for (let y = 3; y < 28; y++)
      for (let x = 1; x < 31; x++) {
        const edge = y < 5 ? 1.2 : y > 24 ? 0.7 : 1;
        p.px(x, y, shade([50, 120, 50, 255], edge * (0.85 + noise(x, y, 30) * 0.25)));
      }
  },
  // 30 paving: large light slabs
  (p) => {
    const slab: Rgba = [196, 190, 178, 255];
    p.rect(0, 0, TILE, TILE, shade(slab, 0.7));
    for (const [x, y, w, h] of [
      [0, 0, 15, 15],
      [16, 0, 16, 15],
      [0, 16, 20, 16],
      [21, 16, 11, 16],
    ] as const) {
      const f = 0.95 + noise(x, y, 31) * 0.08;
      for (let j = y; j < y + h - 1; j++)
        for (let i = x; i < x + w - 1; i++) p.px(i, j, shade(slab, f * (0.97 + noise(i, j, 32) * 0.05)));
    }
  },
  // 31 window wall: plaster with a lit window
  (p) => {
    const plaster: Rgba = [222, 206, 172, 255];
    for (let y = 0; y < TILE; y++)
      for (let x = 0; x < TILE; x++) p.px(x, y, shade(plaster, 0.93 + noise(x, y, 33) * 0.1));
    p.rect(0, 0, TILE, 4, shade(WOOD, 0.75));
    p.rect(7, 8, 18, 16, shade(WOOD, 0.6));
    p.rect(9, 10, 14, 12, [150, 200, 230, 255]);
    p.rect(9, 10, 14, 4, [200, 230, 250, 255]);
    p.rect(15, 10, 2, 12, shade(WOOD, 0.6));
  },
  // 32 fireplace: stone hearth with a fire
  (p) => {
    p.rect(0, 0, TILE, TILE, [120, 116, 112, 255]);
    for (let y = 0; y < TILE; y += 8) p.rect(0, y, TILE, 1, [90, 86, 84, 255]);
    p.rect(6, 10, 20, 20, [30, 24, 22, 255]);
    p.disc(16, 24, 7, (_x, _y, d) => (d < 0.5 ? [255, 220, 120, 255] : [230, 110, 40, 255]));
    p.disc(16, 19, 4, () => [250, 170, 60, 255]);
    p.rect(0, 6, TILE, 4, [150, 146, 140, 255]);
  },
);

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
