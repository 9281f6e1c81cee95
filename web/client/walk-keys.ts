// WASD and the arrow keys as a walking direction; the touch pad's direction comes first, and a text
// field that has the keys walks nobody.
import * as Phaser from "phaser";

export type WalkKeys = Record<string, Phaser.Input.Keyboard.Key>;

/** The walking keys and C (the collision view), without taking them from text fields. */
export function addWalkKeys(kb: Phaser.Input.Keyboard.KeyboardPlugin): WalkKeys {
  const keys: WalkKeys = {};
  for (const name of ["W", "A", "S", "D", "UP", "DOWN", "LEFT", "RIGHT", "C"] as const) {
    keys[name] = kb.addKey(Phaser.Input.Keyboard.KeyCodes[name], false);
  }
  return keys;
}

/** Where the viewer means to walk now. */
export function walkDirection(
  keys: WalkKeys,
  touch: { dx: number; dy: number },
  typing: boolean,
): { dx: number; dy: number } {
  let dx = touch.dx;
  let dy = touch.dy;
  if (!typing) {
    const down = (...names: string[]) => names.some((n) => keys[n]?.isDown);
    dx = dx || (down("D", "RIGHT") ? 1 : 0) - (down("A", "LEFT") ? 1 : 0);
    dy = dy || (down("S", "DOWN") ? 1 : 0) - (down("W", "UP") ? 1 : 0);
  }
  return { dx, dy };
}
