// The Phaser scene: renders the room's Tiled map (the same file the server loads), actors, objects,
// chat bubbles and a minimap; turns clicks, WASD and the touch pad into intents. It never decides
// anything the server decides: positions come from the server and are only smoothed here.
import * as Phaser from "phaser";
// The wire shapes are the server's own (type-only import: nothing of the server is bundled).
import type { WireEntity, WireObject, WireRoom } from "../../src/http/humans/protocol.ts";
import { type BubbleBox, layoutBubbles, type Rect, stackTags } from "./bubble-layout.ts";
import { agentKey, avatarKey, defaultLook, drawTextures } from "./textures.ts";

export type { WireEntity, WireObject, WireRoom };

interface ActorView {
  data: WireEntity;
  container: Phaser.GameObjects.Container;
  body: Phaser.GameObjects.Image;
  label: Phaser.GameObjects.Text;
  bubble: Phaser.GameObjects.Text | undefined;
  bubbleUntil: number;
  bubbleSince: number;
  shown: { x: number; y: number };
  away: boolean;
}

interface ObjectView {
  data: WireObject;
  image: Phaser.GameObjects.Image;
}

/** A far-away actor as the room-wide radar reports it: a dot on the minimap, nothing more. */
export interface RadarDot {
  id: string;
  kind: "human" | "agent";
  tx: number;
  ty: number;
}

export interface SceneCallbacks {
  /** A click on the map or minimap: walk there. */
  moveTo(tx: number, ty: number): void;
  /** A click on an object: use its natural action. */
  interact(objectId: string, action: string): void;
  /** WASD / touch pad state changed. */
  moveIntent(dx: number, dy: number): void;
  /** Whether keyboard input belongs to a text field right now. */
  typing(): boolean;
  /** Any click or tap on the world (the chat box gives the keys back). */
  worldPointer(): void;
}

const MAX_TAG_CHARS = 16;
/** Where a name tag's bottom sits above an actor's position. */
const TAG_Y = 18;
const BUBBLE_MS = 5000;
const BUBBLE_MAX_MS = 12_000;
const LABEL_STYLE = {
  fontFamily: "system-ui, sans-serif",
  fontSize: "11px",
  stroke: "#000000",
  strokeThickness: 3,
  resolution: 3,
};

/** The name tag: short enough not to run into neighbours; agents say so in the tag itself. */
export function tagText(e: Pick<WireEntity, "name" | "kind">, away: boolean): string {
  const name = e.name.length > MAX_TAG_CHARS ? `${e.name.slice(0, MAX_TAG_CHARS - 1)}…` : e.name;
  return `${name}${e.kind === "agent" ? " · AI" : ""}${away ? " (away)" : ""}`;
}

export class WorldScene extends Phaser.Scene {
  private callbacks!: SceneCallbacks;
  private room: WireRoom | undefined;
  private map: Phaser.Tilemaps.Tilemap | undefined;
  private layers: (Phaser.Tilemaps.TilemapLayer | Phaser.Tilemaps.TilemapGPULayer)[] = [];
  private blocked: boolean[] = [];
  private actors = new Map<string, ActorView>();
  private objects = new Map<string, ObjectView>();
  private radar = new Map<string, RadarDot>();
  private meId: string | undefined;
  private minimap!: Phaser.Cameras.Scene2D.Camera;
  private miniLayer!: Phaser.GameObjects.Graphics;
  private leaders!: Phaser.GameObjects.Graphics;
  private miniDrawnAt = 0;
  private debug: Phaser.GameObjects.Graphics | undefined;
  private debugOn = false;
  private keys: Record<string, Phaser.Input.Keyboard.Key> = {};
  private touchDir = { dx: 0, dy: 0 };
  private lastIntent = { dx: 0, dy: 0 };
  private bubbleRects: { id: string; rect: Rect }[] = [];
  private ready!: () => void;
  readonly whenReady: Promise<void>;
  private roomLoad = 0;

  constructor() {
    super("world");
    this.whenReady = new Promise((resolve) => {
      this.ready = resolve;
    });
  }

  setCallbacks(callbacks: SceneCallbacks): void {
    this.callbacks = callbacks;
  }

  preload(): void {
    this.load.image("tiles", "/world/tiles.png");
  }

  create(): void {
    drawTextures(this);
    this.cameras.main.setBackgroundColor("#0b0f16");
    // The minimap draws the map, objects and its own dots and frame; never tags, bubbles or avatars.
    this.minimap = this.cameras.add(0, 0, 10, 10, false, "minimap").setBackgroundColor("#000000");
    this.miniLayer = this.add.graphics().setDepth(100);
    this.cameras.main.ignore(this.miniLayer);
    this.leaders = this.worldOnly(this.add.graphics().setDepth(29));
    const kb = this.input.keyboard;
    if (kb) {
      for (const name of ["W", "A", "S", "D", "UP", "DOWN", "LEFT", "RIGHT", "C"] as const) {
        this.keys[name] = kb.addKey(Phaser.Input.Keyboard.KeyCodes[name], false);
      }
      this.keys.C!.on("down", () => {
        if (!this.callbacks.typing()) this.toggleDebug();
      });
    }
    this.input.on("pointerdown", (pointer: Phaser.Input.Pointer) => this.onPointer(pointer));
    this.scale.on("resize", () => this.placeMinimap());
    this.ready();
  }

  /** Drawn by the main camera only. */
  private worldOnly<T extends Phaser.GameObjects.GameObject>(object: T): T {
    this.minimap.ignore(object);
    return object;
  }

  // ---- rooms ----------------------------------------------------------------------------------

  async loadRoom(room: WireRoom, meId: string, entities: WireEntity[], objects: WireObject[]): Promise<void> {
    const load = ++this.roomLoad;
    const res = await fetch(room.mapUrl);
    if (!res.ok) throw new Error(`map ${room.mapUrl}: HTTP ${res.status}`);
    const mapData = (await res.json()) as { layers: { name: string; type: string; data?: number[] }[] };
    if (load !== this.roomLoad) return; // a newer room arrived meanwhile
    this.clearRoom();
    this.room = room;
    this.meId = meId;
    const key = `map:${room.roomId}:${load}`;
    this.cache.tilemap.add(key, { format: Phaser.Tilemaps.Formats.TILED_JSON, data: mapData });
    const map = this.make.tilemap({ key });
    const tileset = map.addTilesetImage("tiles", "tiles");
    if (!tileset) throw new Error("the map has no tileset named tiles");
    for (const name of ["ground", "decor"]) {
      const layer = map.createLayer(name, tileset, 0, 0);
      if (layer) this.layers.push(layer.setDepth(name === "ground" ? 0 : 1));
    }
    const collision = mapData.layers.find((l) => l.name === "collision")?.data ?? [];
    this.blocked = collision.map((gid) => gid !== 0);
    this.map = map;
    const widthPx = room.widthTiles * room.tileSize;
    const heightPx = room.heightTiles * room.tileSize;
    this.cameras.main.setBounds(0, 0, widthPx, heightPx).setZoom(this.scale.width < 600 ? 1.25 : 1.5);
    this.placeMinimap();
    for (const o of objects) this.upsertObject(o);
    for (const e of entities) this.upsertActor(e, true);
    this.follow();
    if (this.debugOn) this.drawDebug();
  }

  private clearRoom(): void {
    for (const a of this.actors.values()) {
      a.container.destroy();
      a.bubble?.destroy();
    }
    for (const o of this.objects.values()) o.image.destroy();
    for (const l of this.layers) l.destroy();
    this.actors.clear();
    this.objects.clear();
    this.radar.clear();
    this.layers = [];
    this.map?.destroy();
    this.map = undefined;
    this.debug?.clear();
  }

  /** Top right, below the top bar on a phone; its size follows the screen. */
  private placeMinimap(): void {
    if (!this.room) return;
    const phone = this.scale.width < 600;
    const box = phone ? { width: 132, height: 92 } : { width: 220, height: 150 };
    const margin = 8;
    const widthPx = this.room.widthTiles * this.room.tileSize;
    const heightPx = this.room.heightTiles * this.room.tileSize;
    const zoom = Math.min(box.width / widthPx, box.height / heightPx);
    const w = Math.ceil(widthPx * zoom);
    const h = Math.ceil(heightPx * zoom);
    const x = this.scale.width - w - margin;
    const y = phone ? 52 : margin;
    this.minimap.setViewport(x, y, w, h).setZoom(zoom).setBounds(0, 0, widthPx, heightPx);
    this.minimap.centerOn(widthPx / 2, heightPx / 2);
    window.dispatchEvent(new CustomEvent("ocw:minimap", { detail: { x, y, width: w, height: h } }));
  }

  private follow(): void {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (me) this.cameras.main.startFollow(me.container, true, 0.15, 0.15);
  }

  // ---- entities -------------------------------------------------------------------------------

  private textureFor(a: { data: WireEntity }, frame: number): string {
    return a.data.kind === "agent"
      ? agentKey(a.data.facing, frame)
      : avatarKey(a.data.look ?? defaultLook(a.data.id), a.data.facing, frame);
  }

  upsertActor(e: WireEntity, snap = false): void {
    const existing = this.actors.get(e.id);
    if (existing) {
      existing.data = { ...existing.data, ...e };
      this.refreshTag(existing);
      if (snap) existing.shown = { x: e.x, y: e.y };
      return;
    }
    const isMe = e.id === this.meId;
    const parts: Phaser.GameObjects.GameObject[] = [];
    if (isMe) parts.push(this.add.image(0, 8, "ring"));
    const view = { data: e } as ActorView;
    const body = this.add.image(0, -2, this.textureFor(view, 0));
    parts.push(body);
    const label = this.add
      .text(0, -TAG_Y, "", {
        ...LABEL_STYLE,
        color: isMe ? "#ffe27a" : e.kind === "agent" ? "#ffc46b" : "#ffffff",
      })
      .setOrigin(0.5, 1);
    parts.push(label);
    const container = this.worldOnly(this.add.container(e.x, e.y, parts).setDepth(10 + (isMe ? 1 : 0)));
    Object.assign(view, {
      container,
      body,
      label,
      bubble: undefined,
      bubbleUntil: 0,
      bubbleSince: 0,
      shown: { x: e.x, y: e.y },
      away: e.away === true,
    });
    this.refreshTag(view);
    this.actors.set(e.id, view);
    this.radar.delete(e.id);
    if (isMe) this.follow();
  }

  private refreshTag(a: ActorView): void {
    a.away = a.data.away === true;
    a.label.setText(tagText(a.data, a.away));
    a.container.setAlpha(a.away ? 0.45 : 1);
  }

  updateActor(change: Partial<WireEntity> & { id: string }): void {
    const a = this.actors.get(change.id);
    if (!a) return;
    a.data = { ...a.data, ...change };
    if (change.name !== undefined || change.away !== undefined) this.refreshTag(a);
  }

  /** A human's connection dropped (true) or came back (false): shown faded with "(away)". */
  setAway(id: string, away: boolean): void {
    this.updateActor({ id, away });
  }

  removeActor(id: string): void {
    const a = this.actors.get(id);
    a?.container.destroy();
    a?.bubble?.destroy();
    this.actors.delete(id);
  }

  /** The room-wide, low-rate position feed: everyone, including those beyond interest range. */
  setRadar(dots: RadarDot[]): void {
    this.radar = new Map(dots.map((d) => [d.id, d]));
  }

  /** A chat bubble over the speaker (Phaser text: message markup is drawn, never interpreted). */
  say(entityId: string, message: string): void {
    const a = this.actors.get(entityId);
    if (!a) return;
    a.bubble?.destroy();
    const text = message.length > 90 ? `${message.slice(0, 89)}…` : message;
    a.bubble = this.worldOnly(
      this.add
        .text(a.shown.x, a.shown.y - 40, text, {
          fontFamily: "system-ui, sans-serif",
          fontSize: "11px",
          color: "#111111",
          backgroundColor: "#ffffff",
          padding: { x: 6, y: 3 },
          wordWrap: { width: 150 },
          resolution: 3,
        })
        .setOrigin(0, 0)
        .setDepth(30),
    );
    // Long enough to read: a base time plus a little per character.
    a.bubbleUntil = this.time.now + Math.min(BUBBLE_MAX_MS, BUBBLE_MS + text.length * 60);
    a.bubbleSince = this.time.now;
  }

  // ---- objects --------------------------------------------------------------------------------

  upsertObject(o: WireObject): void {
    const size = this.room?.tileSize ?? 32;
    const texture = o.objectType === "door" ? (o.state.open ? "door-open" : "door-closed") : o.objectType;
    const known = this.objects.get(o.id);
    if (known) {
      known.data = o;
      known.image.setTexture(this.textures.exists(texture) ? texture : "object");
      return;
    }
    const image = this.add
      .image(
        o.tx * size + size / 2,
        o.ty * size + size / 2,
        this.textures.exists(texture) ? texture : "object",
      )
      .setDepth(5);
    this.objects.set(o.id, { data: o, image });
  }

  /** An object changed: its new state, and the affordances it offers now (a door open -> "close"). */
  patchObject(
    objectId: string,
    patch: { op: string; path: string; value?: unknown }[],
    version: number,
    affords?: WireObject["affords"],
  ): void {
    const o = this.objects.get(objectId);
    if (!o || version < o.data.version) return;
    const state = { ...o.data.state };
    for (const op of patch) {
      const key = op.path.replace(/^\//, "");
      if (op.op === "remove") delete state[key];
      else state[key] = op.value;
    }
    this.upsertObject({ ...o.data, state, version, affords: affords ?? o.data.affords });
    if (this.debugOn) this.drawDebug();
  }

  objectAt(tx: number, ty: number): WireObject | undefined {
    for (const o of this.objects.values()) if (o.data.tx === tx && o.data.ty === ty) return o.data;
    return undefined;
  }

  object(id: string): WireObject | undefined {
    return this.objects.get(id)?.data;
  }

  // ---- input ----------------------------------------------------------------------------------

  private onPointer(pointer: Phaser.Input.Pointer): void {
    this.callbacks.worldPointer();
    if (!this.room) return;
    const mini = this.minimap;
    const inMini =
      pointer.x >= mini.x &&
      pointer.x < mini.x + mini.width &&
      pointer.y >= mini.y &&
      pointer.y < mini.y + mini.height;
    const point = (inMini ? mini : this.cameras.main).getWorldPoint(pointer.x, pointer.y);
    const tx = Math.floor(point.x / this.room.tileSize);
    const ty = Math.floor(point.y / this.room.tileSize);
    if (tx < 0 || ty < 0 || tx >= this.room.widthTiles || ty >= this.room.heightTiles) return;
    const target = inMini ? undefined : this.objectAt(tx, ty);
    if (target) {
      const action = naturalAction(target);
      if (action) {
        this.markTile(tx, ty, 0xffe27a);
        this.callbacks.interact(target.id, action);
        return;
      }
    }
    this.markTile(tx, ty, this.blocked[ty * this.room.widthTiles + tx] ? 0xff5a5a : 0xffffff);
    this.callbacks.moveTo(tx, ty);
  }

  /** A short-lived ring where the player clicked (red on a wall). */
  markTile(tx: number, ty: number, tint: number): void {
    if (!this.room) return;
    const size = this.room.tileSize;
    const ring = this.worldOnly(
      this.add
        .image((tx + 0.5) * size, (ty + 0.5) * size, "marker")
        .setDepth(4)
        .setTint(tint),
    );
    this.tweens.add({
      targets: ring,
      alpha: 0,
      scale: 0.6,
      delay: 600,
      duration: 900,
      ease: "Quad.easeIn",
      onComplete: () => ring.destroy(),
    });
  }

  setTouchDir(dx: number, dy: number): void {
    this.touchDir = { dx, dy };
  }

  toggleDebug(): boolean {
    this.debugOn = !this.debugOn;
    if (this.debugOn) this.drawDebug();
    else this.debug?.clear();
    window.dispatchEvent(new CustomEvent("ocw:debug", { detail: this.debugOn }));
    return this.debugOn;
  }

  get debugShown(): boolean {
    return this.debugOn;
  }

  /** Blocked tiles hatched in bright colours with an outline, visible on brick and on grass. */
  private drawDebug(): void {
    if (!this.room) return;
    this.debug ??= this.worldOnly(this.add.graphics().setDepth(50));
    const { widthTiles, tileSize } = this.room;
    const g = this.debug.clear();
    const cell = (tx: number, ty: number, fill: number, line: number) => {
      const x = tx * tileSize;
      const y = ty * tileSize;
      g.fillStyle(fill, 0.45).fillRect(x, y, tileSize, tileSize);
      g.lineStyle(2, line, 0.95).strokeRect(x + 1, y + 1, tileSize - 2, tileSize - 2);
      g.lineStyle(2, line, 0.9).lineBetween(x + 4, y + 4, x + tileSize - 4, y + tileSize - 4);
    };
    this.blocked.forEach((b, i) => {
      if (b) cell(i % widthTiles, Math.floor(i / widthTiles), 0xff00d4, 0x00ffff);
    });
    for (const o of this.objects.values()) {
      if (o.data.objectType === "door" && !o.data.state.open) cell(o.data.tx, o.data.ty, 0xffa500, 0xffff00);
    }
  }

  override update(time: number, delta: number): void {
    // Smooth toward the server's positions; jumps (portals, resume) snap.
    const k = Math.min(1, (delta / 1000) * 12);
    for (const a of this.actors.values()) {
      const dx = a.data.x - a.shown.x;
      const dy = a.data.y - a.shown.y;
      if (Math.abs(dx) + Math.abs(dy) > 96) a.shown = { x: a.data.x, y: a.data.y };
      else a.shown = { x: a.shown.x + dx * k, y: a.shown.y + dy * k };
      a.container.setPosition(a.shown.x, a.shown.y);
      // Walk cycle while moving, standing frame when still.
      const moving = Math.abs(dx) + Math.abs(dy) > 0.75;
      const key = this.textureFor(a, moving ? 1 + (Math.floor(time / 160) % 2) : 0);
      if (a.body.texture.key !== key) a.body.setTexture(key);
      if (a.bubble && time > a.bubbleUntil) {
        a.bubble.destroy();
        a.bubble = undefined;
      }
    }
    this.placeTags();
    this.placeBubbles();
    // Dots and frame at 10 Hz: the minimap is small, and redrawing it every frame buys nothing.
    if (time - this.miniDrawnAt >= 100) {
      this.miniDrawnAt = time;
      this.drawMinimapLayer();
    }
    this.readKeys();
  }

  /** Name tags of neighbours never print over each other: a tag that would overlap is lifted. */
  private placeTags(): void {
    const view = this.cameras.main.worldView;
    const tags: (Rect & { id: string })[] = [];
    for (const [id, a] of this.actors) {
      const { x, y } = a.shown;
      if (x < view.x - 100 || x > view.right + 100 || y < view.y - 60 || y > view.bottom + 60) continue;
      tags.push({
        id,
        x: x - a.label.width / 2,
        y: y - TAG_Y - a.label.height,
        w: a.label.width,
        h: a.label.height,
      });
    }
    // The viewer's own tag first (it never moves), then by row (lower on screen first) and column.
    tags.sort((p, q) => (p.id === this.meId ? -1 : q.id === this.meId ? 1 : q.y - p.y || p.x - q.x));
    this.leaders.clear();
    for (const [id, lift] of stackTags(tags)) {
      const a = this.actors.get(id)!;
      a.label.setY(-TAG_Y - lift);
      // A lifted tag gets a faint line down to its owner's head, so it is clear whose it is.
      if (lift > 0)
        this.leaders
          .lineStyle(1, 0xffffff, 0.55)
          .lineBetween(a.shown.x, a.shown.y - TAG_Y - lift, a.shown.x, a.shown.y - 14);
    }
  }

  /** Bubbles never overlap each other or the viewer's own avatar and stay on screen. */
  private placeBubbles(): void {
    const cam = this.cameras.main;
    const view = cam.worldView;
    const boxes: BubbleBox[] = [];
    for (const [id, a] of this.actors) {
      if (!a.bubble) continue;
      boxes.push({
        id,
        anchorX: a.shown.x,
        anchorY: a.shown.y - 34,
        width: a.bubble.width,
        height: a.bubble.height,
        since: a.bubbleSince,
      });
    }
    if (!boxes.length) {
      this.bubbleRects = [];
      return;
    }
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    const avoid: Rect[] = me ? [{ x: me.shown.x - 14, y: me.shown.y - 32, w: 28, h: 44 }] : [];
    const placed = layoutBubbles(boxes, avoid, {
      x: view.x + 4,
      y: view.y + 4,
      w: view.width - 8,
      h: view.height - 8,
    });
    this.bubbleRects = placed;
    this.leaders.lineStyle(1.5, 0xffffff, 0.8);
    for (const p of placed) {
      const a = this.actors.get(p.id)!;
      a.bubble!.setPosition(p.rect.x, p.rect.y);
      // A leader line from the bubble back to its speaker.
      const bx = Math.min(Math.max(a.shown.x, p.rect.x + 6), p.rect.x + p.rect.w - 6);
      const by = p.rect.y + p.rect.h <= a.shown.y - 14 ? p.rect.y + p.rect.h : p.rect.y;
      this.leaders.lineBetween(bx, by, a.shown.x, a.shown.y - 16);
    }
  }

  /** Minimap: every actor as a dot (bigger for the viewer, coloured by kind) and the view frame. */
  private drawMinimapLayer(): void {
    const g = this.miniLayer.clear();
    if (!this.room) return;
    const z = this.minimap.zoom || 1;
    const size = this.room.tileSize;
    const dot = (x: number, y: number, color: number, r: number) => {
      g.fillStyle(0x000000, 0.9).fillCircle(x, y, (r + 1.5) / z);
      g.fillStyle(color, 1).fillCircle(x, y, r / z);
    };
    for (const d of this.radar.values())
      if (!this.actors.has(d.id))
        dot((d.tx + 0.5) * size, (d.ty + 0.5) * size, d.kind === "agent" ? 0xffb347 : 0x6fc3ff, 3.5);
    for (const [id, a] of this.actors)
      if (id !== this.meId)
        dot(a.shown.x, a.shown.y, a.data.kind === "agent" ? 0xffb347 : 0x6fc3ff, a.away ? 2.5 : 3.5);
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (me) dot(me.shown.x, me.shown.y, 0xffe27a, 4.5);
    const v = this.cameras.main.worldView;
    g.lineStyle(2 / z, 0xffffff, 0.95).strokeRect(v.x, v.y, v.width, v.height);
  }

  private readKeys(): void {
    if (!this.callbacks) return;
    let dx = this.touchDir.dx;
    let dy = this.touchDir.dy;
    if (!this.callbacks.typing()) {
      const down = (...names: string[]) => names.some((n) => this.keys[n]?.isDown);
      dx = dx || (down("D", "RIGHT") ? 1 : 0) - (down("A", "LEFT") ? 1 : 0);
      dy = dy || (down("S", "DOWN") ? 1 : 0) - (down("W", "UP") ? 1 : 0);
    }
    this.sendIntent(dx, dy);
  }

  private sendIntent(dx: number, dy: number): void {
    if (dx === this.lastIntent.dx && dy === this.lastIntent.dy) return;
    this.lastIntent = { dx, dy };
    this.callbacks?.moveIntent(dx, dy);
  }

  /** Where a tile's centre is on screen (CSS pixels), for tests and tooltips. */
  screenPoint(tx: number, ty: number): { x: number; y: number } | undefined {
    if (!this.room) return undefined;
    const size = this.room.tileSize;
    return this.toScreen((tx + 0.5) * size, (ty + 0.5) * size);
  }

  private toScreen(x: number, y: number): { x: number; y: number } {
    const cam = this.cameras.main;
    return { x: (x - cam.worldView.x) * cam.zoom + cam.x, y: (y - cam.worldView.y) * cam.zoom + cam.y };
  }

  /** Screen rectangles (CSS pixels) of the shown bubbles and of the viewer's avatar, for tests. */
  bubbleLayout(): { bubbles: { id: string; x: number; y: number; w: number; h: number }[]; me?: Rect } {
    const zoom = this.cameras.main.zoom;
    const screen = (r: Rect) => {
      const p = this.toScreen(r.x, r.y);
      return { x: p.x, y: p.y, w: r.w * zoom, h: r.h * zoom };
    };
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    return {
      bubbles: this.bubbleRects.map((b) => ({ id: b.id, ...screen(b.rect) })),
      ...(me ? { me: screen({ x: me.shown.x - 12, y: me.shown.y - 16, w: 24, h: 28 }) } : {}),
    };
  }

  /** The minimap's screen rectangle and what it shows, for tests. */
  minimapState(): { x: number; y: number; width: number; height: number; dots: string[] } {
    const m = this.minimap;
    const ids = new Set([...this.actors.keys(), ...this.radar.keys()]);
    return { x: m.x, y: m.y, width: m.width, height: m.height, dots: [...ids] };
  }

  /** The name tags as drawn, for tests. */
  tags(): string[] {
    return [...this.actors.values()].map((a) => a.label.text);
  }

  /** The name tags' screen rectangles (CSS pixels), for tests. */
  tagRects(): { text: string; x: number; y: number; w: number; h: number }[] {
    const zoom = this.cameras.main.zoom;
    return [...this.actors.values()].map((a) => {
      const p = this.toScreen(a.shown.x - a.label.width / 2, a.shown.y + a.label.y - a.label.height);
      return { text: a.label.text, x: p.x, y: p.y, w: a.label.width * zoom, h: a.label.height * zoom };
    });
  }

  /** The smoothed, on-screen state (for the test hook and the presence list). */
  snapshot(): (WireEntity & { away: boolean })[] {
    return [...this.actors.values()].map((a) => ({ ...a.data, away: a.away }));
  }
}

/** The action a click means for an object: read a sign, use a portal, open or close a door. */
export function naturalAction(o: WireObject): string | undefined {
  const actions = o.affords.map((a) => a.action);
  for (const preferred of ["read", "use", o.state.open ? "close" : "open"])
    if (actions.includes(preferred)) return preferred;
  return actions[0];
}
