// The collision view (the C key, the Collision button): which tiles the world refuses, so a map's
// author sees why a walk stops.
import type * as Phaser from "phaser";
import type { ObjectView } from "./room-objects.ts";

/** Blocked tiles hatched in bright colours with an outline, visible on brick and on grass; a closed
 * door in its own colours. */
export function drawCollision(
  g: Phaser.GameObjects.Graphics,
  room: { widthTiles: number; tileSize: number },
  blocked: boolean[],
  objects: Map<string, ObjectView>,
): void {
  const { widthTiles, tileSize } = room;
  const cell = (tx: number, ty: number, fill: number, line: number) => {
    const x = tx * tileSize;
    const y = ty * tileSize;
    g.fillStyle(fill, 0.45).fillRect(x, y, tileSize, tileSize);
    g.lineStyle(2, line, 0.95).strokeRect(x + 1, y + 1, tileSize - 2, tileSize - 2);
    g.lineStyle(2, line, 0.9).lineBetween(x + 4, y + 4, x + tileSize - 4, y + tileSize - 4);
  };
  blocked.forEach((b, i) => {
    if (b) cell(i % widthTiles, Math.floor(i / widthTiles), 0xff00d4, 0x00ffff);
  });
  for (const o of objects.values()) {
    if (o.data.objectType === "door" && !o.data.state.open) cell(o.data.tx, o.data.ty, 0xffa500, 0xffff00);
  }
}
