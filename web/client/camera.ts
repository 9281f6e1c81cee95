import type * as Phaser from "phaser";

/** How far the camera closes on the player each frame at 60 frames a second. */
const FOLLOW_AT_60HZ = 0.15;

/**
 * The camera's follow lerp for a frame `deltaMs` long. Phaser applies the lerp once per drawn frame,
 * so a fixed one followed twice as fast on a 120 Hz screen as at 60 Hz, and slowly on a page drawing
 * few frames (a busy machine, a test page); scaled by the frame's length it closes the same share of
 * the gap each second.
 */
export function followLerp(deltaMs: number): number {
  if (!(deltaMs > 0)) return FOLLOW_AT_60HZ;
  return Math.min(1, 1 - (1 - FOLLOW_AT_60HZ) ** (deltaMs / (1000 / 60)));
}

/** Where a world point is on screen (CSS pixels) through a camera. */
export function toScreen(cam: Phaser.Cameras.Scene2D.Camera, x: number, y: number): { x: number; y: number } {
  return { x: (x - cam.worldView.x) * cam.zoom + cam.x, y: (y - cam.worldView.y) * cam.zoom + cam.y };
}

/** How far (world pixels) a following camera still has to scroll to rest on `target`: where Phaser's own
 * follow aims the scroll (the target less the view's origin, within the camera's bounds). */
export function followGap(cam: Phaser.Cameras.Scene2D.Camera, target: { x: number; y: number }): number {
  const restX = cam.clampX(target.x - cam.followOffset.x - cam.width * cam.originX);
  const restY = cam.clampY(target.y - cam.followOffset.y - cam.height * cam.originY);
  return Math.hypot(cam.scrollX - restX, cam.scrollY - restY);
}
