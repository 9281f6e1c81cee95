// The project's own art for actors and objects, drawn once at start in code (no external assets).
// Humans come in LOOKS.length looks, each with 4 facings x 3 frames (stand, left step, right step);
// agents are robots with the same facings and frames, so every actor shows where it walks.
import type * as Phaser from "phaser";

export const FACINGS = ["down", "up", "left", "right"] as const;
export type FacingName = (typeof FACINGS)[number];

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
  make("portal", 30, 30, () => {
    g.fillStyle(0x3b1e6e, 0.8).fillCircle(15, 15, 14);
    g.lineStyle(3, 0xb48cff).strokeCircle(15, 15, 12);
    g.lineStyle(2, 0xe3d4ff).strokeCircle(15, 15, 7);
    g.fillStyle(0xffffff).fillCircle(15, 15, 2.5);
  });
  make("door-closed", 32, 32, () => {
    g.fillStyle(0x3d2712).fillRect(2, 0, 28, 32);
    g.fillStyle(0x7a4e24).fillRect(4, 2, 24, 30);
    g.lineStyle(1, 0x3d2712).lineBetween(16, 2, 16, 32);
    g.fillStyle(0xffd34d).fillCircle(21, 17, 2);
  });
  make("door-open", 32, 32, () => {
    g.lineStyle(2, 0x7a4e24).strokeRect(3, 1, 26, 30);
    g.fillStyle(0x7a4e24).fillRect(3, 1, 5, 30);
  });
  make("object", 20, 20, () => {
    g.fillStyle(0xcccccc).fillRoundedRect(2, 2, 16, 16, 4);
  });
  g.destroy();
}
