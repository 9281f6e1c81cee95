// The minimap: a second camera on the same scene, drawing the map, objects, place names and its own
// dots and frame; never tags, bubbles or avatars (the scene keeps those off it with `ignore`).
import * as Phaser from "phaser";
import type { WireRoom } from "../../src/http/humans/protocol.ts";
import type { ActorView } from "./actor-sprites.ts";
import type { MapPlace } from "./room-map.ts";

/** A far-away actor as the room-wide radar reports it: a dot on the minimap, nothing more. */
export interface RadarDot {
  id: string;
  kind: "human" | "agent";
  tx: number;
  ty: number;
}

/** The minimap's screen box (it keeps clear of the room: ~2% of a desktop screen) and the smallest
 * size its place names are drawn at, in CSS pixels. */
const MINIMAP_BOX = { width: 176, height: 116 };
const MINIMAP_LABEL_PX = 11;

export class Minimap {
  /** Set by create(): undefined until the scene exists. */
  camera!: Phaser.Cameras.Scene2D.Camera;
  private layer!: Phaser.GameObjects.Graphics;
  private labels: Phaser.GameObjects.Text[] = [];
  private drawnAt = 0;
  /** The minimap shown (the M key and the Map button fold it; a phone starts without it). Set
   * before the scene is created too: the page says so at once. */
  shown = true;

  private readonly scene: Phaser.Scene;

  constructor(scene: Phaser.Scene) {
    this.scene = scene;
  }

  /** From the scene's create(). Hidden until a room is drawn in it (an empty one was a small black
   * square on the join page). */
  create(): void {
    this.camera = this.scene.cameras
      .add(0, 0, 10, 10, false, "minimap")
      .setBackgroundColor("#000000")
      .setVisible(false);
    this.layer = this.scene.add.graphics().setDepth(100);
    this.scene.cameras.main.ignore(this.layer);
  }

  /** Top right, below the top bar on a phone; its size follows the screen. */
  place(room: WireRoom | undefined): void {
    if (!room) return;
    const { scale } = this.scene;
    const phone = scale.width < 600;
    const box = phone ? { width: 132, height: 92 } : MINIMAP_BOX;
    const margin = 8;
    const widthPx = room.widthTiles * room.tileSize;
    const heightPx = room.heightTiles * room.tileSize;
    const zoom = Math.min(box.width / widthPx, box.height / heightPx);
    const w = Math.ceil(widthPx * zoom);
    const h = Math.ceil(heightPx * zoom);
    const x = scale.width - w - margin;
    const y = phone ? 52 : margin;
    this.camera.setViewport(x, y, w, h).setZoom(zoom).setBounds(0, 0, widthPx, heightPx);
    this.camera.centerOn(widthPx / 2, heightPx / 2);
    // Larger places first; a label that would run into one already placed is left out, and each
    // stays inside the map.
    const kept: Phaser.Geom.Rectangle[] = [];
    for (const label of this.labels) {
      label.setFontSize(Math.ceil(MINIMAP_LABEL_PX / zoom));
      const half = label.width / 2;
      label.setX(Math.min(Math.max(label.getData("cx") as number, half), widthPx - half));
      const box = label.getBounds();
      const clear = !kept.some((k) => Phaser.Geom.Rectangle.Overlaps(k, box));
      label.setVisible(clear);
      if (clear) kept.push(box);
    }
    const shown = this.shown;
    window.dispatchEvent(
      new CustomEvent("ocw:minimap", {
        detail: { x, y, width: shown ? w : 0, height: shown ? h : 0, shown },
      }),
    );
  }

  /** The room's places named on the minimap: the larger ones, not paths, not those inside another. */
  label(room: WireRoom | undefined, places: MapPlace[]): void {
    if (!room) return;
    const size = room.tileSize;
    const inside = (p: MapPlace, q: MapPlace) =>
      p !== q &&
      p.tile.tx >= q.tile.tx &&
      p.tile.ty >= q.tile.ty &&
      p.tile.tx + p.widthTiles <= q.tile.tx + q.widthTiles &&
      p.tile.ty + p.heightTiles <= q.tile.ty + q.heightTiles;
    const byArea = [...places].sort((p, q) => q.widthTiles * q.heightTiles - p.widthTiles * p.heightTiles);
    for (const p of byArea) {
      if (Math.min(p.widthTiles, p.heightTiles) <= 3 || places.some((q) => inside(p, q))) continue;
      const cx = (p.tile.tx + p.widthTiles / 2) * size;
      const label = this.scene.add
        .text(cx, (p.tile.ty + p.heightTiles / 2) * size, p.name, {
          fontFamily: "system-ui, sans-serif",
          color: "#ffffff",
          stroke: "#000000",
          strokeThickness: 12,
        })
        .setOrigin(0.5)
        .setDepth(101)
        .setData("cx", cx);
      this.scene.cameras.main.ignore(label);
      this.labels.push(label);
    }
  }

  clearLabels(): void {
    for (const label of this.labels) label.destroy();
    this.labels = [];
  }

  /** Every actor as a dot (bigger for the viewer, coloured by kind) and the view frame, at 10 Hz:
   * the minimap is small, and redrawing it every frame buys nothing. */
  draw(
    time: number,
    room: WireRoom | undefined,
    actors: Map<string, ActorView>,
    radar: Map<string, RadarDot>,
    meId: string | undefined,
  ): void {
    if (time - this.drawnAt < 100) return;
    this.drawnAt = time;
    const g = this.layer.clear();
    if (!room) return;
    const z = this.camera.zoom || 1;
    const size = room.tileSize;
    const dot = (x: number, y: number, color: number, r: number) => {
      g.fillStyle(0x000000, 0.9).fillCircle(x, y, (r + 1.5) / z);
      g.fillStyle(color, 1).fillCircle(x, y, r / z);
    };
    for (const d of radar.values())
      if (!actors.has(d.id))
        dot((d.tx + 0.5) * size, (d.ty + 0.5) * size, d.kind === "agent" ? 0xffb347 : 0x6fc3ff, 3.5);
    for (const [id, a] of actors)
      if (id !== meId)
        dot(a.shown.x, a.shown.y, a.data.kind === "agent" ? 0xffb347 : 0x6fc3ff, a.away ? 2.5 : 3.5);
    const me = meId ? actors.get(meId) : undefined;
    if (me) dot(me.shown.x, me.shown.y, 0xffe27a, 4.5);
    const v = this.scene.cameras.main.worldView;
    g.lineStyle(2 / z, 0xffffff, 0.95).strokeRect(v.x, v.y, v.width, v.height);
  }

  isOver(pointer: Phaser.Input.Pointer): boolean {
    const mini = this.camera;
    return (
      mini.visible &&
      pointer.x >= mini.x &&
      pointer.x < mini.x + mini.width &&
      pointer.y >= mini.y &&
      pointer.y < mini.y + mini.height
    );
  }

  /** The place names shown on it, for tests. */
  shownLabels(): string[] {
    return this.labels.filter((l) => l.visible).map((l) => l.text);
  }

  /** Its screen rectangle and what it shows (`ids`: the actors it dots), for tests. */
  state(ids: string[]): {
    x: number;
    y: number;
    width: number;
    height: number;
    dots: string[];
    visible: boolean;
    /** The smallest place name shown, in CSS pixels (undefined: none shown). */
    labelPx?: number;
  } {
    const m = this.camera as Phaser.Cameras.Scene2D.Camera | undefined;
    // Asked before the scene is created (the join page, on a slow start): nothing is shown yet.
    if (!m) return { x: 0, y: 0, width: 0, height: 0, dots: ids, visible: false };
    const sizes = this.labels
      .filter((l) => l.visible)
      .map((l) => Number.parseFloat(String(l.style.fontSize)) * m.zoom);
    // Folded, it covers nothing.
    return {
      x: m.x,
      y: m.y,
      width: m.visible ? m.width : 0,
      height: m.visible ? m.height : 0,
      dots: ids,
      visible: m.visible,
      ...(sizes.length ? { labelPx: Math.min(...sizes) } : {}),
    };
  }
}
