// Closed places on the map: drawn darker, with a sign saying when they open, from the map's own
// hours and the world's clock (the rule the world closes them by: src/world/opening-hours.ts).
import type * as Phaser from "phaser";
import { isOpenAt } from "../../src/world/opening-hours.ts";
import type { MapPlace } from "./room-map.ts";

const SHADE = 0x101018;
const SHADE_ALPHA = 0.45;

export class ClosedPlaceShades {
  private readonly drawn = new Map<string, Phaser.GameObjects.GameObject[]>();
  private readonly scene: Phaser.Scene;
  /** Drawn by the main camera only (not the minimap). */
  private readonly worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T;

  constructor(scene: Phaser.Scene, worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T) {
    this.scene = scene;
    this.worldOnly = worldOnly;
  }

  /** Shades the places closed at `worldMs` and unshades those open again; the places closed. */
  update(places: readonly MapPlace[], tileSize: number, worldMs: number): MapPlace[] {
    const closed = places.filter((p) => p.hours && !isOpenAt(p.hours, worldMs));
    for (const [id, objects] of this.drawn) {
      if (closed.some((p) => p.id === id)) continue;
      for (const o of objects) o.destroy();
      this.drawn.delete(id);
    }
    for (const place of closed) {
      if (this.drawn.has(place.id)) continue;
      const x = place.tile.tx * tileSize;
      const y = place.tile.ty * tileSize;
      const w = place.widthTiles * tileSize;
      const h = place.heightTiles * tileSize;
      // Over the floor and furniture, under bodies (10) and the night tint (25).
      const shade = this.scene.add.rectangle(x + w / 2, y + h / 2, w, h, SHADE, SHADE_ALPHA).setDepth(7);
      // Above the night tint, so the sign stays readable in the dark.
      const sign = this.worldOnly(
        this.scene.add
          .text(x + w / 2, y + h / 2, `Closed · opens ${place.hours!.opens}`, {
            fontFamily: "sans-serif",
            fontSize: "14px",
            color: "#ffe9b0",
            backgroundColor: "#2a1d10cc",
            padding: { x: 6, y: 3 },
          })
          .setOrigin(0.5)
          .setDepth(26),
      );
      this.drawn.set(place.id, [shade, sign]);
    }
    return closed;
  }

  /** The places shaded now, by id (the test window reads them). */
  ids(): string[] {
    return [...this.drawn.keys()].sort();
  }

  clear(): void {
    for (const objects of this.drawn.values()) for (const o of objects) o.destroy();
    this.drawn.clear();
  }
}
