// The project's own art for actors and objects, drawn once at start (no external assets).
import type * as Phaser from "phaser";

export function drawTextures(scene: Phaser.Scene): void {
  const g = scene.add.graphics();
  const make = (key: string, w: number, h: number, draw: () => void) => {
    g.clear();
    draw();
    g.generateTexture(key, w, h);
  };
  // Humans: round, blue, with a face.
  make("human", 24, 24, () => {
    g.fillStyle(0x1c4f82).fillCircle(12, 12, 11);
    g.fillStyle(0x6fc3ff).fillCircle(12, 12, 9);
    g.fillStyle(0x10141c).fillCircle(9, 10, 1.6).fillCircle(15, 10, 1.6);
    g.lineStyle(1.5, 0x10141c)
      .beginPath()
      .arc(12, 13, 4, 0.2, Math.PI - 0.2)
      .strokePath();
  });
  // Agents: square-ish, amber, with an antenna and a visor.
  make("agent", 24, 26, () => {
    g.lineStyle(2, 0xffe08a).lineBetween(12, 2, 12, 7);
    g.fillStyle(0xffe08a).fillCircle(12, 2.5, 2);
    g.fillStyle(0x8a4b00).fillRoundedRect(2, 6, 20, 19, 5);
    g.fillStyle(0xffb347).fillRoundedRect(4, 8, 16, 15, 4);
    g.fillStyle(0x10141c).fillRoundedRect(6, 12, 12, 5, 2);
    g.fillStyle(0x7dfcff).fillRect(8, 13.5, 3, 2).fillRect(13, 13.5, 3, 2);
  });
  make("ring", 32, 16, () => {
    g.lineStyle(2, 0xffe27a, 0.9).strokeEllipse(16, 8, 28, 12);
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
