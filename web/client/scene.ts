// The Phaser scene: renders the room's Tiled map (the same file the server loads), actors, objects,
// chat bubbles and a minimap; turns clicks and WASD into intents. It never decides anything the
// server decides: positions come from the server and are only smoothed here.
import * as Phaser from "phaser";
// The wire shapes are the server's own (type-only import: nothing of the server is bundled).
import type { WireEntity, WireObject, WireRoom } from "../../src/http/humans/protocol.ts";
import { drawTextures } from "./textures.ts";

export type { WireEntity, WireObject, WireRoom };

interface ActorView {
  data: WireEntity;
  container: Phaser.GameObjects.Container;
  label: Phaser.GameObjects.Text;
  bubble: Phaser.GameObjects.Text | undefined;
  bubbleUntil: number;
  shown: { x: number; y: number };
}

interface ObjectView {
  data: WireObject;
  image: Phaser.GameObjects.Image;
}

export interface SceneCallbacks {
  /** A click on the map or minimap: walk there. */
  moveTo(tx: number, ty: number): void;
  /** A click on an object: use its natural action. */
  interact(objectId: string, action: string): void;
  /** WASD state changed. */
  moveIntent(dx: number, dy: number): void;
  /** Whether keyboard input belongs to a text field right now. */
  typing(): boolean;
}

const MINIMAP = { width: 200, height: 140, margin: 8 };

export class WorldScene extends Phaser.Scene {
  private callbacks!: SceneCallbacks;
  private room: WireRoom | undefined;
  private map: Phaser.Tilemaps.Tilemap | undefined;
  private layers: (Phaser.Tilemaps.TilemapLayer | Phaser.Tilemaps.TilemapGPULayer)[] = [];
  private blocked: boolean[] = [];
  private actors = new Map<string, ActorView>();
  private objects = new Map<string, ObjectView>();
  private meId: string | undefined;
  private minimap: Phaser.Cameras.Scene2D.Camera | undefined;
  private debug: Phaser.GameObjects.Graphics | undefined;
  private debugOn = false;
  private keys: Record<string, Phaser.Input.Keyboard.Key> = {};
  private lastIntent = { dx: 0, dy: 0 };
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
    this.cameras.main.setBounds(0, 0, widthPx, heightPx).setZoom(1.5);
    this.placeMinimap();
    for (const o of objects) this.upsertObject(o);
    for (const e of entities) this.upsertActor(e, true);
    this.follow();
    if (this.debugOn) this.drawDebug();
  }

  private clearRoom(): void {
    for (const a of this.actors.values()) a.container.destroy();
    for (const o of this.objects.values()) o.image.destroy();
    for (const l of this.layers) l.destroy();
    this.actors.clear();
    this.objects.clear();
    this.layers = [];
    this.map?.destroy();
    this.map = undefined;
    this.debug?.clear();
  }

  private placeMinimap(): void {
    if (!this.room) return;
    const widthPx = this.room.widthTiles * this.room.tileSize;
    const heightPx = this.room.heightTiles * this.room.tileSize;
    const zoom = Math.min(MINIMAP.width / widthPx, MINIMAP.height / heightPx);
    const w = Math.ceil(widthPx * zoom);
    const h = Math.ceil(heightPx * zoom);
    const x = this.scale.width - w - MINIMAP.margin;
    const y = MINIMAP.margin;
    if (!this.minimap) this.minimap = this.cameras.add(x, y, w, h, false, "minimap");
    this.minimap
      .setViewport(x, y, w, h)
      .setZoom(zoom)
      .setBounds(0, 0, widthPx, heightPx)
      .setBackgroundColor("#000000");
    this.minimap.centerOn(widthPx / 2, heightPx / 2);
  }

  private follow(): void {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (me) this.cameras.main.startFollow(me.container, true, 0.15, 0.15);
  }

  // ---- entities -------------------------------------------------------------------------------

  upsertActor(e: WireEntity, snap = false): void {
    const existing = this.actors.get(e.id);
    if (existing) {
      existing.data = { ...existing.data, ...e };
      existing.label.setText(existing.data.name);
      if (snap) existing.shown = { x: e.x, y: e.y };
      return;
    }
    const isMe = e.id === this.meId;
    const parts: Phaser.GameObjects.GameObject[] = [];
    if (isMe) parts.push(this.add.image(0, 4, "ring"));
    parts.push(this.add.image(0, 0, e.kind === "agent" ? "agent" : "human"));
    const label = this.add
      .text(0, -24, e.name, {
        fontFamily: "system-ui, sans-serif",
        fontSize: "11px",
        color: isMe ? "#ffe27a" : "#ffffff",
        stroke: "#000000",
        strokeThickness: 3,
      })
      .setOrigin(0.5, 1);
    parts.push(label);
    const container = this.add.container(e.x, e.y, parts).setDepth(10 + (isMe ? 1 : 0));
    this.actors.set(e.id, {
      data: e,
      container,
      label,
      bubble: undefined,
      bubbleUntil: 0,
      shown: { x: e.x, y: e.y },
    });
    if (isMe) this.follow();
  }

  updateActor(change: Partial<WireEntity> & { id: string }): void {
    const a = this.actors.get(change.id);
    if (!a) return;
    a.data = { ...a.data, ...change };
    if (change.name) a.label.setText(change.name);
  }

  removeActor(id: string): void {
    this.actors.get(id)?.container.destroy();
    this.actors.delete(id);
  }

  /** A chat bubble over the speaker (Phaser text: message markup is drawn, never interpreted). */
  say(entityId: string, message: string): void {
    const a = this.actors.get(entityId);
    if (!a) return;
    a.bubble?.destroy();
    const text = message.length > 120 ? `${message.slice(0, 117)}…` : message;
    a.bubble = this.add
      .text(0, -40, text, {
        fontFamily: "system-ui, sans-serif",
        fontSize: "12px",
        color: "#111111",
        backgroundColor: "#ffffffee",
        padding: { x: 6, y: 3 },
        wordWrap: { width: 180 },
      })
      .setOrigin(0.5, 1);
    a.container.add(a.bubble);
    a.bubbleUntil = this.time.now + 5000;
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

  patchObject(
    objectId: string,
    patch: { op: string; path: string; value?: unknown }[],
    version: number,
  ): void {
    const o = this.objects.get(objectId);
    if (!o) return;
    const state = { ...o.data.state };
    for (const op of patch) {
      const key = op.path.replace(/^\//, "");
      if (op.op === "remove") delete state[key];
      else state[key] = op.value;
    }
    this.upsertObject({ ...o.data, state, version });
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
    if (!this.room) return;
    const mini = this.minimap;
    const inMini =
      mini &&
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
        this.callbacks.interact(target.id, action);
        return;
      }
    }
    this.callbacks.moveTo(tx, ty);
  }

  toggleDebug(): boolean {
    this.debugOn = !this.debugOn;
    if (this.debugOn) this.drawDebug();
    else this.debug?.clear();
    return this.debugOn;
  }

  private drawDebug(): void {
    if (!this.room) return;
    this.debug ??= this.add.graphics().setDepth(50);
    this.debug.clear().fillStyle(0xff2d2d, 0.35);
    const { widthTiles, tileSize } = this.room;
    this.blocked.forEach((b, i) => {
      if (b)
        this.debug!.fillRect(
          (i % widthTiles) * tileSize,
          Math.floor(i / widthTiles) * tileSize,
          tileSize,
          tileSize,
        );
    });
    this.debug.fillStyle(0xffa500, 0.45);
    for (const o of this.objects.values()) {
      if (o.data.objectType === "door" && !o.data.state.open)
        this.debug.fillRect(o.data.tx * tileSize, o.data.ty * tileSize, tileSize, tileSize);
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
      if (a.bubble && time > a.bubbleUntil) {
        a.bubble.destroy();
        a.bubble = undefined;
      }
    }
    this.readKeys();
  }

  private readKeys(): void {
    if (!this.callbacks || this.callbacks.typing()) {
      this.sendIntent(0, 0);
      return;
    }
    const down = (...names: string[]) => names.some((n) => this.keys[n]?.isDown);
    const dx = (down("D", "RIGHT") ? 1 : 0) - (down("A", "LEFT") ? 1 : 0);
    const dy = (down("S", "DOWN") ? 1 : 0) - (down("W", "UP") ? 1 : 0);
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
    const cam = this.cameras.main;
    const size = this.room.tileSize;
    return {
      x: ((tx + 0.5) * size - cam.worldView.x) * cam.zoom + cam.x,
      y: ((ty + 0.5) * size - cam.worldView.y) * cam.zoom + cam.y,
    };
  }

  /** The smoothed, on-screen state (for the test hook and the presence list). */
  snapshot(): { id: string; name: string; kind: string; x: number; y: number; tx: number; ty: number }[] {
    return [...this.actors.values()].map((a) => ({ ...a.data, x: a.data.x, y: a.data.y }));
  }
}

/** The action a click means for an object: read a sign, use a portal, open or close a door. */
export function naturalAction(o: WireObject): string | undefined {
  const actions = o.affords.map((a) => a.action);
  for (const preferred of ["read", "use", o.state.open ? "close" : "open"])
    if (actions.includes(preferred)) return preferred;
  return actions[0];
}
