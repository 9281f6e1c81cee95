// The Phaser game around the world scene: the live page and the replay page draw alike.
import * as Phaser from "phaser";
import type { WorldScene } from "./scene.ts";

export function startGame(scene: WorldScene): Phaser.Game {
  return new Phaser.Game({
    type: Phaser.AUTO,
    parent: "game",
    backgroundColor: "#0b0f16",
    pixelArt: true,
    scale: { mode: Phaser.Scale.RESIZE, width: window.innerWidth, height: window.innerHeight },
    scene: [scene],
    banner: false,
  });
}
