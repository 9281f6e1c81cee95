// The project's own art for actors and objects, drawn once at start in code (no external assets).
// Humans come in LOOKS.length looks, each with 4 facings x 3 frames (stand, left step, right step);
// agents are robots with the same facings and frames, so every actor shows where it walks.
import type * as Phaser from "phaser";

/** A garden plot's texture: one per stage, and a wilted look of each planted one. */
export const plotTexture = (stage: string, wilted: boolean) =>
  `garden_plot-${stage}${wilted && stage !== "empty" ? "-wilted" : ""}`;

/** Three plants on a plot, bigger by stage; a wilted one's leaves hang and brown. */
function drawPlot(
  g: Phaser.GameObjects.Graphics,
  stage: "empty" | "seedling" | "growing" | "flowering",
  wilted: boolean,
): void {
  g.fillStyle(0x4a2f1c).fillRoundedRect(2, 4, 28, 26, 4);
  g.lineStyle(1.5, 0x5d3d25);
  for (const y of [11, 18, 25]) g.lineBetween(5, y, 27, y);
  if (stage === "empty") return;
  const leaf = wilted ? 0x9a8040 : stage === "seedling" ? 0x7fd46a : 0x3fa34d;
  const stem = wilted ? 0x7a6a38 : 0x2f7d3a;
  for (const x of [9, 16, 23]) {
    const base = 24;
    if (stage === "seedling") {
      g.fillStyle(leaf).fillEllipse(x - 2, base - 2 + (wilted ? 2 : 0), 4, 2.5);
      g.fillEllipse(x + 2, base - 2 + (wilted ? 2 : 0), 4, 2.5);
      continue;
    }
    const height = stage === "growing" ? 10 : 14;
    const top = base - (wilted ? height / 2 : height);
    g.lineStyle(2, stem).lineBetween(x, base, wilted ? x + 3 : x, top);
    g.fillStyle(leaf);
    for (const dy of [0.35, 0.65]) {
      const y = base - (base - top) * dy;
      const droop = wilted ? 3 : 0;
      g.fillEllipse(x - 3, y + droop, 5, 3);
      g.fillEllipse(x + 3, y + droop, 5, 3);
    }
    if (stage === "flowering") {
      const petals = wilted ? 0x8a6a60 : x === 16 ? 0xf2c230 : 0xe86a9a;
      g.fillStyle(petals).fillCircle(wilted ? x + 3 : x, top, 3.2);
      g.fillStyle(wilted ? 0x5a4a30 : 0xfff2b0).fillCircle(wilted ? x + 3 : x, top, 1.2);
    }
  }
}

/** A creature's texture: its species, curled up while it naps, wings out while it flies. */
export const creatureTexture = (species: string, mode: string) =>
  `creature-${species}${mode === "nap" || mode === "fly" ? `-${mode}` : ""}`;

/** A small brown bird seen from the side, facing right; wings spread while it flies. */
function drawBird(g: Phaser.GameObjects.Graphics, flying: boolean): void {
  g.fillStyle(0x000000, flying ? 0.12 : 0.22).fillEllipse(8, 15, 10, 3);
  const y = flying ? 6 : 9;
  g.fillStyle(0x8a5a3a).fillEllipse(8, y, 10, 7);
  g.fillStyle(0xd9a066).fillEllipse(9, y + 1.5, 6, 3.5);
  g.fillStyle(0x8a5a3a).fillCircle(12, y - 3, 3);
  g.fillStyle(0xf2c230).fillTriangle(14.5, y - 3.5, 17, y - 2.5, 14.5, y - 1.8);
  g.fillStyle(0x111111).fillCircle(12.8, y - 3.6, 0.8);
  g.fillStyle(0x5d3a24).fillTriangle(3, y - 1, 0, y - 3, 1, y + 1);
  if (flying) g.fillStyle(0x6b4328).fillTriangle(5, y - 1, 9, y - 8, 11, y - 1);
  else
    g.lineStyle(1, 0x3b2416)
      .lineBetween(7, y + 3, 7, 14)
      .lineBetween(9, y + 3, 9, 14);
}

/** A small orange fish seen from above through the water, facing right. */
function drawFish(g: Phaser.GameObjects.Graphics): void {
  g.fillStyle(0x1d4f7a, 0.35).fillEllipse(11, 8, 20, 10);
  g.fillStyle(0xf28c28).fillEllipse(12, 7, 13, 7);
  g.fillStyle(0xf28c28).fillTriangle(6, 7, 1, 3, 1, 11);
  g.fillStyle(0xfff2e0).fillEllipse(11, 6, 4, 2.5);
  g.fillStyle(0x111111).fillCircle(16, 6, 0.9);
}

/** A ginger cat seen from the side, facing right (flipped to go left), or curled up asleep. */
function drawCat(g: Phaser.GameObjects.Graphics, napping: boolean): void {
  const fur = 0xe08a3c;
  const stripe = 0xb8612a;
  g.fillStyle(0x000000, 0.22).fillEllipse(14, 22, 22, 5);
  if (napping) {
    g.fillStyle(fur).fillEllipse(14, 16, 20, 12);
    g.lineStyle(3, fur).beginPath().arc(14, 16, 10, 0.2, 1.9).strokePath();
    g.fillStyle(fur).fillCircle(21, 13, 5);
    g.fillStyle(fur).fillTriangle(18, 10, 20, 5, 22, 10).fillTriangle(22, 10, 25, 6, 25, 11);
    g.lineStyle(1.2, 0x4a2a10).lineBetween(20, 13, 22, 13.5).lineBetween(23.5, 13, 25, 12.5);
    g.lineStyle(1.5, stripe).lineBetween(9, 11, 10, 15).lineBetween(13, 10.5, 13.5, 14.5);
    return;
  }
  g.lineStyle(3, fur).beginPath().arc(4, 10, 6, 0.9, 2.6).strokePath();
  g.fillStyle(fur).fillEllipse(12, 15, 16, 9);
  g.fillRect(6, 17, 2.5, 5).fillRect(9.5, 17, 2.5, 5).fillRect(14, 17, 2.5, 5).fillRect(17, 17, 2.5, 5);
  g.fillCircle(21, 11, 5.5);
  g.fillTriangle(17, 8, 18.5, 2.5, 21, 7).fillTriangle(21, 7, 24.5, 2.5, 25, 8.5);
  g.fillStyle(0xf7d7b5).fillEllipse(23.5, 13, 4, 3);
  g.fillStyle(0x1b2a1b).fillCircle(22.5, 10, 1.1);
  g.lineStyle(1.5, stripe).lineBetween(9, 11, 10, 14).lineBetween(13, 10.5, 13.5, 13.5);
}

export const FACINGS = ["down", "up", "left", "right"] as const;

/** Shirt, trousers, hair and skin per look; the join form offers them by index. */
export const LOOKS = [
  { name: "Sky", shirt: 0x3b82f6, legs: 0x1e3a8a, hair: 0x3b2416, skin: 0xf1c7a0 },
  { name: "Moss", shirt: 0x22a06b, legs: 0x14532d, hair: 0x1b1b1b, skin: 0xc68b59 },
  { name: "Coral", shirt: 0xf0645a, legs: 0x5b2333, hair: 0xe0b050, skin: 0xf5d0b5 },
  { name: "Plum", shirt: 0x9b5de5, legs: 0x3c1f66, hair: 0x101010, skin: 0x8d5a3b },
  { name: "Sun", shirt: 0xf2c94c, legs: 0x6b4f1d, hair: 0x7a3b10, skin: 0xf1c7a0 },
  { name: "Teal", shirt: 0x14b8a6, legs: 0x134e4a, hair: 0xd9d9d9, skin: 0xb97a56 },
  { name: "Rose", shirt: 0xec4899, legs: 0x4a1d3a, hair: 0x2b1a10, skin: 0xe8b896 },
  { name: "Slate", shirt: 0x64748b, legs: 0x1f2937, hair: 0xb45309, skin: 0xf5d0b5 },
] as const;

export const avatarKey = (look: number, facing: string, frame: number) =>
  `av-${look}-${(FACINGS as readonly string[]).includes(facing) ? facing : "down"}-${frame}`;
export const seatKey = (style: string, facing: string) =>
  `seat-${style}-${(FACINGS as readonly string[]).includes(facing) ? facing : "down"}`;
export const agentKey = (facing: string, frame: number) =>
  `agent-${(FACINGS as readonly string[]).includes(facing) ? facing : "down"}-${frame}`;

/** A stable look for a human who did not pick one (from the entity id). */
export function defaultLook(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) >>> 0;
  return h % LOOKS.length;
}

export function drawTextures(scene: Phaser.Scene): void {
  const g = scene.add.graphics();
  const make = (key: string, w: number, h: number, draw: () => void) => {
    g.clear();
    draw();
    g.generateTexture(key, w, h);
  };
  // Frame 0 stands; frames 1 and 2 put one foot forward, then the other.
  const stride = (frame: number) => (frame === 0 ? 0 : frame === 1 ? 2 : -2);
  LOOKS.forEach((look, index) => {
    for (const facing of FACINGS) {
      for (let frame = 0; frame < 3; frame++) {
        make(avatarKey(index, facing, frame), 24, 30, () => {
          const s = stride(frame);
          g.fillStyle(0x000000, 0.25).fillEllipse(12, 28, 16, 4);
          // Legs: apart front-to-back when walking sideways, alternating up/down when walking vertically.
          g.fillStyle(look.legs);
          if (facing === "left" || facing === "right") {
            g.fillRect(9 + s, 20, 3, 7).fillRect(12 - s, 20, 3, 7);
          } else {
            g.fillRect(8, 20 - Math.max(0, s), 3, 7).fillRect(13, 20 - Math.max(0, -s), 3, 7);
          }
          g.fillStyle(look.shirt).fillRoundedRect(6, 12, 12, 10, 3);
          // Arms swing against the legs.
          g.fillStyle(look.skin);
          if (facing === "left" || facing === "right") g.fillRect(11 - s, 14, 3, 6);
          else g.fillRect(4, 13 + s / 2, 2, 6).fillRect(18, 13 - s / 2, 2, 6);
          g.fillStyle(look.skin).fillCircle(12, 8, 6);
          g.fillStyle(look.hair);
          if (facing === "up") g.fillCircle(12, 8, 6);
          else if (facing === "down") g.fillRect(6, 2, 12, 4);
          else g.fillRect(facing === "left" ? 9 : 6, 2, 9, 4).fillRect(facing === "left" ? 15 : 6, 2, 3, 8);
          g.fillStyle(0x10141c);
          if (facing === "down") g.fillRect(9, 8, 2, 2).fillRect(13, 8, 2, 2);
          else if (facing === "left") g.fillRect(8, 8, 2, 2);
          else if (facing === "right") g.fillRect(14, 8, 2, 2);
        });
      }
    }
  });
  // Agents: amber robots with an antenna and a visor that looks where they walk.
  for (const facing of FACINGS) {
    for (let frame = 0; frame < 3; frame++) {
      make(agentKey(facing, frame), 24, 30, () => {
        const s = stride(frame);
        g.fillStyle(0x000000, 0.25).fillEllipse(12, 28, 16, 4);
        g.fillStyle(0x5c3200)
          .fillRect(8, 22 - Math.max(0, s), 3, 5)
          .fillRect(13, 22 - Math.max(0, -s), 3, 5);
        g.lineStyle(2, 0xffe08a).lineBetween(12, 1, 12, 5);
        g.fillStyle(0xffe08a).fillCircle(12, 2, 2);
        g.fillStyle(0x8a4b00).fillRoundedRect(3, 5, 18, 18, 5);
        g.fillStyle(0xffb347).fillRoundedRect(5, 7, 14, 14, 4);
        if (facing !== "up") {
          const shift = facing === "left" ? -3 : facing === "right" ? 3 : 0;
          g.fillStyle(0x10141c).fillRoundedRect(7 + shift, 10, 10, 5, 2);
          g.fillStyle(0x7dfcff)
            .fillRect(8 + shift, 11.5, 3, 2)
            .fillRect(13 + shift, 11.5, 3, 2);
        } else {
          g.fillStyle(0x8a4b00).fillRect(8, 11, 8, 2);
        }
      });
    }
  }
  make("ring", 32, 16, () => {
    g.lineStyle(2, 0xffe27a, 0.9).strokeEllipse(16, 8, 28, 12);
  });
  make("marker", 32, 32, () => {
    g.lineStyle(3, 0xffffff, 0.95).strokeCircle(16, 16, 11);
    g.lineStyle(2, 0x3b82f6, 0.95).strokeCircle(16, 16, 6);
  });
  make("sign", 28, 28, () => {
    g.fillStyle(0x5a3a1a).fillRect(12, 14, 4, 13);
    g.fillStyle(0x6b4f2a).fillRoundedRect(2, 3, 24, 14, 3);
    g.fillStyle(0xe9d8a6).fillRoundedRect(4, 5, 20, 10, 2);
    g.fillStyle(0x6b4f2a).fillRect(7, 8, 14, 1.5).fillRect(7, 11, 10, 1.5);
  });
  // The tour board: a post with a map on it, a dotted route between pins.
  make("tour", 30, 30, () => {
    g.fillStyle(0x000000, 0.25).fillEllipse(15, 28, 22, 4);
    g.fillStyle(0x5a3a1a).fillRect(13, 16, 4, 12);
    g.fillStyle(0x2f6b4f).fillRoundedRect(1, 1, 28, 18, 3);
    g.fillStyle(0xe9d8a6).fillRoundedRect(3, 3, 24, 14, 2);
    for (const [x, y] of [
      [8, 6],
      [12, 9],
      [16, 7],
      [20, 10],
    ] as const)
      g.fillStyle(0x8a6a3a).fillCircle(x, y, 0.8);
    for (const [x, y] of [
      [6, 12],
      [23, 6],
      [15, 13],
    ] as const)
      g.fillStyle(0xd03030).fillCircle(x, y, 1.8);
  });
  // The portal: a swirl the scene spins, and a soft glow it pulses.
  make("portal", 30, 30, () => {
    g.fillStyle(0x3b1e6e, 0.85).fillCircle(15, 15, 14);
    g.lineStyle(3, 0xb48cff).strokeCircle(15, 15, 12);
    for (let arm = 0; arm < 3; arm++) {
      const a0 = (arm * 2 * Math.PI) / 3;
      for (let k = 0; k < 9; k++) {
        const a = a0 + k * 0.32;
        const r = 2.5 + k * 1.05;
        g.fillStyle(k % 2 ? 0xe3d4ff : 0x9f7aea, 1).fillCircle(
          15 + Math.cos(a) * r,
          15 + Math.sin(a) * r,
          1.6,
        );
      }
    }
    g.fillStyle(0xffffff).fillCircle(15, 15, 2.5);
  });
  make("portal-glow", 44, 44, () => {
    for (let r = 22; r > 12; r -= 2) g.fillStyle(0xb48cff, 0.06).fillCircle(22, 22, r);
  });
  // A lit lamp's light: warm, brightest at the lantern, fading over about a tile and a half.
  make("lamp-glow", 112, 112, () => {
    for (let r = 56; r > 4; r -= 4) g.fillStyle(0xffd27a, 0.05).fillCircle(56, 56, r);
  });
  // A closed door fills its frame; an open one shows the floor through the frame, the leaf swung
  // back against the jamb (its edge and hinges), and a lit threshold.
  make("door-closed", 32, 32, () => {
    g.fillStyle(0x3d2712).fillRect(2, 0, 28, 32);
    g.fillStyle(0x7a4e24).fillRect(4, 2, 24, 30);
    g.lineStyle(1, 0x3d2712).lineBetween(16, 2, 16, 32);
    g.fillStyle(0x5c3a1a)
      .fillRect(6, 5, 8, 10)
      .fillRect(18, 5, 8, 10)
      .fillRect(6, 19, 8, 10)
      .fillRect(18, 19, 8, 10);
    g.fillStyle(0xffd34d).fillCircle(21, 17, 2);
  });
  make("door-open", 32, 32, () => {
    g.fillStyle(0x3d2712).fillRect(0, 0, 3, 32).fillRect(29, 0, 3, 32).fillRect(0, 0, 32, 3);
    g.fillStyle(0xfff3c4, 0.25).fillRect(3, 3, 26, 29);
    g.fillStyle(0x8a5a2b).fillRect(3, 3, 6, 29);
    g.fillStyle(0x5c3a1a).fillRect(8, 3, 1, 29);
    g.fillStyle(0xc9c9c9).fillRect(3, 7, 2, 3).fillRect(3, 24, 2, 3);
    g.fillStyle(0xffd34d).fillCircle(7, 17, 1.5);
  });
  // Seats: the sitter faces `facing`, so the backrest is on the other side.
  const seatColours: Record<string, { frame: number; top: number }> = {
    chair: { frame: 0x6b4423, top: 0xa06a3c },
    bench: { frame: 0x5a4632, top: 0x8c6d4a },
    stool: { frame: 0x4a4a4a, top: 0xb07a4a },
    sofa: { frame: 0x3f4f8a, top: 0x5f74c4 },
  };
  for (const [style, c] of Object.entries(seatColours)) {
    for (const facing of FACINGS) {
      make(seatKey(style, facing), 32, 32, () => {
        const wide = style === "bench" || style === "sofa";
        const w = wide ? 28 : 18;
        const x0 = 16 - w / 2;
        g.fillStyle(0x000000, 0.22).fillEllipse(16, 27, w + 2, 6);
        if (style === "stool") {
          g.fillStyle(c.frame).fillRect(12, 16, 2, 10).fillRect(18, 16, 2, 10);
          g.fillStyle(c.top).fillCircle(16, 15, 7);
          g.lineStyle(1, c.frame).strokeCircle(16, 15, 7);
          return;
        }
        g.fillStyle(c.frame)
          .fillRect(x0 + 1, 20, 3, 7)
          .fillRect(x0 + w - 4, 20, 3, 7);
        g.fillStyle(c.top).fillRoundedRect(x0, 11, w, 11, 3);
        g.fillStyle(c.frame);
        if (facing === "down") g.fillRoundedRect(x0, 4, w, 7, 2);
        else if (facing === "up") g.fillRoundedRect(x0, 20, w, 5, 2);
        else if (facing === "right") g.fillRoundedRect(x0 - 2, 6, 5, 18, 2);
        else g.fillRoundedRect(x0 + w - 3, 6, 5, 18, 2);
      });
    }
  }
  // A notice board: cork on two posts with a few pinned notes.
  make("notice_board", 32, 32, () => {
    g.fillStyle(0x000000, 0.25).fillEllipse(16, 29, 26, 5);
    g.fillStyle(0x5a3a1a).fillRect(5, 14, 3, 16).fillRect(24, 14, 3, 16);
    g.fillStyle(0x6b4f2a).fillRoundedRect(1, 2, 30, 19, 2);
    g.fillStyle(0xc8955a).fillRect(3, 4, 26, 15);
    const notes = [
      [5, 6, 0xfff7b0],
      [13, 5, 0xffffff],
      [21, 7, 0xb8e0ff],
      [9, 12, 0xffd0e0],
      [18, 12, 0xffffff],
    ] as const;
    for (const [x, y, colour] of notes) {
      g.fillStyle(colour).fillRect(x, y, 7, 6);
      g.fillStyle(0xd03030).fillCircle(x + 3.5, y + 0.5, 1);
    }
  });
  // The game table: a round wooden top with a small blue four-in-a-row frame and a few pieces in it.
  make("game_table", 32, 32, () => {
    g.fillStyle(0x000000, 0.25).fillEllipse(16, 29, 28, 6);
    g.fillStyle(0x5a3a1a).fillRect(14, 18, 4, 11);
    g.fillStyle(0x8a6236).fillEllipse(16, 18, 30, 14);
    g.fillStyle(0x2f5fb3).fillRoundedRect(7, 3, 18, 15, 2);
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 4; c++) {
        const colour =
          r === 2 && c < 3 ? (c === 1 ? 0xf2c230 : 0xd83a3a) : r === 1 && c === 1 ? 0xd83a3a : 0x1c2f55;
        g.fillStyle(colour).fillCircle(10 + c * 4, 6.5 + r * 4.5, 1.6);
      }
  });
  // Garden plots: dark soil in furrows, and what grows in it by stage; a wilted plant droops, brown.
  for (const stage of ["empty", "seedling", "growing", "flowering"] as const)
    for (const wilted of stage === "empty" ? [false] : [false, true])
      make(plotTexture(stage, wilted), 32, 32, () => drawPlot(g, stage, wilted));
  // The plaque by a private room's door: a closed padlock while private, an open one while open.
  for (const closed of [true, false]) {
    make(closed ? "privacy-closed" : "privacy-open", 26, 26, () => {
      g.fillStyle(0x2b2f3a).fillRoundedRect(1, 1, 24, 24, 5);
      g.lineStyle(2, closed ? 0xff7a7a : 0x7adf9a).strokeRoundedRect(2, 2, 22, 22, 5);
      g.lineStyle(2.5, 0xe8e8e8);
      if (closed) g.strokeCircle(13, 10, 4);
      else g.beginPath().arc(17, 10, 4, Math.PI, 0).strokePath();
      g.fillStyle(closed ? 0xff7a7a : 0x7adf9a).fillRoundedRect(7, 11, 12, 10, 2);
      g.fillStyle(0x2b2f3a).fillCircle(13, 15.5, 1.6);
    });
  }
  for (const napping of [false, true])
    make(creatureTexture("cat", napping ? "nap" : "wander"), 28, 26, () => drawCat(g, napping));
  for (const flying of [false, true])
    make(creatureTexture("bird", flying ? "fly" : "hop"), 18, 16, () => drawBird(g, flying));
  make(creatureTexture("fish", "swim"), 22, 16, () => drawFish(g));
  make("object", 20, 20, () => {
    g.fillStyle(0xcccccc).fillRoundedRect(2, 2, 16, 16, 4);
  });
  g.destroy();
}
