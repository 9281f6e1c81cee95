// The map's lamps: tiles whose tileset entry says they give light (a Tiled tile property `light`).
// Lit while the page is tinted for night, by the part of the day the tint is drawn from
// (`timeOfDay`, src/world/time.ts), so a lamp and the dark around it never disagree: the live page's
// clock, the replay's frame and the follow page's view all reach both through `WorldScene.setDaylight`.
// A lamp is the map's, not the world's: nothing an agent may do changes it, and its light follows
// the clock alone, so the world keeps no state for it.
import type * as Phaser from "phaser";
import { covers, type PlaceRect } from "../../src/world/places.ts";
import type { PartOfDay } from "../../src/world/time.ts";

/** The tile property that marks a tile as a light. */
export const LIGHT_PROPERTY = "light";

/** Whether the lamps are lit in this part of the day: at night, when the page is tinted darkest. */
export function lampsLit(part: PartOfDay): boolean {
  return part === "night";
}

/** Whether a lamp at this tile shines when lamps are lit: not inside a place closed now (the café's
 * lamps go out with its closing, the street's stay on). */
export function lampShines(tile: { tx: number; ty: number }, closed: readonly PlaceRect[]): boolean {
  return !closed.some((place) => covers(place, tile.tx, tile.ty));
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
  private glows: { tile: { tx: number; ty: number }; image: Phaser.GameObjects.Image }[] = [];
  private lit = false;
  private closed: readonly PlaceRect[] = [];
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
    this.glows = tiles.map((t) => ({
      tile: { tx: t.tx, ty: t.ty },
      image: this.worldOnly(
        // Round the lantern at the top of the post; over the night tint (25), under name tags and
        // bubbles, added to what is under it so the light brightens the dark instead of covering it.
        this.scene.add
          .image((t.tx + 0.5) * tileSize, t.ty * tileSize + 7, "lamp-glow")
          .setDepth(25.5)
          .setBlendMode("ADD"),
      ),
    }));
    this.show();
  }

  /** Lights or puts out the room's lamps (those in a closed place stay out). */
  light(on: boolean): void {
    this.lit = on;
    this.show();
  }

  /** The places closed now: their lamps are out. */
  closeIn(places: readonly PlaceRect[]): void {
    this.closed = places;
    this.show();
  }

  private show(): void {
    for (const glow of this.glows) glow.image.setVisible(this.lit && lampShines(glow.tile, this.closed));
  }

  /** How many lamps the room has, whether they are lit, how many shine now, and the tiles of those
   * in a place closed now ("tx,ty"; the test windows read it). */
  state(): { count: number; lit: boolean; shining: number; closed: string[] } {
    const shining = this.glows.filter((g) => g.image.visible).length;
    const closed = this.glows
      .filter((g) => !lampShines(g.tile, this.closed))
      .map((g) => `${g.tile.tx},${g.tile.ty}`);
    return { count: this.glows.length, lit: this.lit, shining, closed };
  }

  clear(): void {
    for (const glow of this.glows) glow.image.destroy();
    this.glows = [];
  }
}
