// The map's lamps: tiles whose tileset entry says they give light (a Tiled tile property `light`).
// Lit while the page is tinted for night, by the part of the day the tint is drawn from
// (`timeOfDay`, src/world/time.ts), so a lamp and the dark around it never disagree: the live page's
// clock, the replay's frame and the follow page's view all reach both through `WorldScene.setDaylight`.
// A lamp is the map's, not the world's: nothing an agent may do changes it, and its light follows
// the clock alone, so the world keeps no state for it.
import type * as Phaser from "phaser";
import type { PartOfDay } from "../../src/world/time.ts";

/** The tile property that marks a tile as a light. */
export const LIGHT_PROPERTY = "light";

/** Whether the lamps are lit in this part of the day: at night, when the page is tinted darkest. */
export function lampsLit(part: PartOfDay): boolean {
  return part === "night";
}

interface TiledTileset {
  firstgid?: number;
  tiles?: { id: number; properties?: { name: string; value: unknown }[] }[];
}

/** The parts of a Tiled map a lamp is found by: its tilesets and its tile layers. */
export interface LampMapData {
  width?: number;
  tilesets?: TiledTileset[];
  layers: { name: string; type: string; data?: number[] }[];
}

/** The tiles of the drawn layers (ground, decor) whose tile gives light, row by row. */
export function lampTilesOf(map: LampMapData): { tx: number; ty: number }[] {
  const lights = new Set<number>();
  for (const set of map.tilesets ?? [])
    for (const tile of set.tiles ?? [])
      if (tile.properties?.some((p) => p.name === LIGHT_PROPERTY && p.value === true))
        lights.add((set.firstgid ?? 1) + tile.id);
  const width = map.width ?? 0;
  if (lights.size === 0 || width <= 0) return [];
  const found = new Set<number>();
  for (const layer of map.layers)
    if (layer.type === "tilelayer" && (layer.name === "ground" || layer.name === "decor"))
      for (const [i, gid] of (layer.data ?? []).entries()) if (lights.has(gid)) found.add(i);
  return [...found].sort((a, b) => a - b).map((i) => ({ tx: i % width, ty: Math.floor(i / width) }));
}

/** The glow drawn round each lamp of the room, shown while the lamps are lit. */
export class LampGlows {
  private glows: Phaser.GameObjects.Image[] = [];
  private lit = false;
  private readonly scene: Phaser.Scene;
  /** Drawn by the main camera only (not the minimap). */
  private readonly worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T;

  constructor(scene: Phaser.Scene, worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T) {
    this.scene = scene;
    this.worldOnly = worldOnly;
  }

  /** The room's lamps, replacing the last room's. */
  place(tiles: readonly { tx: number; ty: number }[], tileSize: number): void {
    this.clear();
    this.glows = tiles.map((t) =>
      this.worldOnly(
        // Round the lantern at the top of the post; over the night tint (25), under name tags and
        // bubbles, added to what is under it so the light brightens the dark instead of covering it.
        this.scene.add
          .image((t.tx + 0.5) * tileSize, t.ty * tileSize + 7, "lamp-glow")
          .setDepth(25.5)
          .setBlendMode("ADD")
          .setVisible(this.lit),
      ),
    );
  }

  /** Lights or puts out every lamp of the room. */
  light(on: boolean): void {
    this.lit = on;
    for (const glow of this.glows) glow.setVisible(on);
  }

  /** How many lamps the room has and whether they are lit (the test windows read it). */
  state(): { count: number; lit: boolean } {
    return { count: this.glows.length, lit: this.lit };
  }

  clear(): void {
    for (const glow of this.glows) glow.destroy();
    this.glows = [];
  }
}
