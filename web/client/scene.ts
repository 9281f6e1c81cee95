// The Phaser scene: renders the room's Tiled map (the same file the server loads), actors, objects,
// chat bubbles and a minimap; turns clicks, WASD and the touch pad into intents. It never decides
// anything the server decides: positions come from the server and are only smoothed here.
import * as Phaser from "phaser";
// The wire shapes are the server's own (type-only import: nothing of the server is bundled).
import type { WireEntity, WireObject, WireRoom } from "../../src/http/humans/protocol.ts";
// The place rules are the world's own (pure, no server code bundled beyond them).
import { hearingZoneAt, type PlaceRect, placeAt, withinHearing } from "../../src/world/places.ts";
import { isolate } from "./bidi.ts";
import { type BubbleBox, layoutBubbles, type Rect, stackTags } from "./bubble-layout.ts";
import { followLerp } from "./camera.ts";
import { asleepCard, tagText, unwellCard } from "./name-tag.ts";
import { agentKey, avatarKey, defaultLook, drawTextures, seatKey } from "./textures.ts";

export type { WireEntity, WireObject, WireRoom };

/** A named region of the room's map (its "regions" layer), as the server loaded it. */
export interface MapPlace extends PlaceRect {
  name: string;
}

/** What an object under the pointer offers (shown as a tooltip and a pointer cursor), or, over a
 * resident that cannot answer now, why (asleep: how to wake it; its turns fail: that it recovers). */
export interface HoverInfo {
  object?: WireObject;
  /** The person or resident under the pointer: one that cannot answer now (asleep, or its turns
   * fail) shows its card; another is offered "talk to" (`talk`). */
  actorId?: string;
  talk?: true;
  label: string;
  /** The pointer, in CSS pixels. */
  x: number;
  y: number;
}

const hoverId = (info: HoverInfo | undefined) => info?.object?.id ?? info?.actorId;

/** Who would hear the viewer now on a channel (the world's rule: radius and private rooms). */
export interface Hearing {
  channel: "proximity" | "global";
  /** Ids of the others who hear (of those this page shows). */
  ids: string[];
  /** The private room the viewer is in, if any: only those inside hear. */
  zone: MapPlace | undefined;
}

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
  /** Drawn sitting (a seat holds it). */
  seated: boolean;
}

interface ObjectView {
  data: WireObject;
  image: Phaser.GameObjects.Image;
  /** A portal's glow, pulsing under it. */
  glow?: Phaser.GameObjects.Image;
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
  /** A click on another person or resident: walk up to them and address them by name (a page
   * without chat, the replay, has none: it offers no "talk to"). */
  talkTo?(actorId: string): void;
  /** WASD / touch pad state changed. */
  moveIntent(dx: number, dy: number): void;
  /** Whether keyboard input belongs to a text field right now. */
  typing(): boolean;
  /** Any click or tap on the world (the chat box gives the keys back). */
  worldPointer(): void;
  /** The viewer walked into another named place (undefined: none). */
  place(place: MapPlace | undefined): void;
  /** The pointer is over a usable object (or no longer is). */
  hover(info: HoverInfo | undefined): void;
}

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

/** The minimap's screen box (it keeps clear of the room: ~2% of a desktop screen) and the smallest
 * size its place names are drawn at, in CSS pixels. */
const MINIMAP_BOX = { width: 176, height: 116 };
const MINIMAP_LABEL_PX = 11;

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
  /** The minimap shown (the M key and the Map button fold it; a phone starts without it). */
  private miniShown = true;
  private debug: Phaser.GameObjects.Graphics | undefined;
  private debugOn = false;
  private keys: Record<string, Phaser.Input.Keyboard.Key> = {};
  private touchDir = { dx: 0, dy: 0 };
  private lastIntent = { dx: 0, dy: 0 };
  private bubbleRects: { id: string; rect: Rect }[] = [];
  /** Bodies and name tags of everyone drawn, in world units: bubbles keep off them. */
  private peopleRects: Rect[] = [];
  private places: MapPlace[] = [];
  private placeId: string | undefined;
  private miniLabels: Phaser.GameObjects.Text[] = [];
  private hoverGfx!: Phaser.GameObjects.Graphics;
  private hovered: { id: string; label: string } | undefined;
  private privacyGfx!: Phaser.GameObjects.Graphics;
  private hearingGfx!: Phaser.GameObjects.Graphics;
  private hearingShown: Hearing | undefined;
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
    // Hidden until a room is drawn in it (an empty one was a small black square on the join page).
    this.minimap = this.cameras
      .add(0, 0, 10, 10, false, "minimap")
      .setBackgroundColor("#000000")
      .setVisible(false);
    this.miniLayer = this.add.graphics().setDepth(100);
    this.cameras.main.ignore(this.miniLayer);
    this.leaders = this.worldOnly(this.add.graphics().setDepth(29));
    this.hoverGfx = this.worldOnly(this.add.graphics().setDepth(6));
    this.privacyGfx = this.add.graphics().setDepth(2);
    this.hearingGfx = this.worldOnly(this.add.graphics().setDepth(3));
    const kb = this.input.keyboard;
    if (kb) {
      for (const name of ["W", "A", "S", "D", "UP", "DOWN", "LEFT", "RIGHT", "C"] as const) {
        this.keys[name] = kb.addKey(Phaser.Input.Keyboard.KeyCodes[name], false);
      }
      this.keys.C!.on("down", () => {
        if (!this.callbacks.typing()) this.toggleDebug();
      });
      kb.addKey(Phaser.Input.Keyboard.KeyCodes.M, false).on("down", () => {
        if (!this.callbacks.typing()) this.showMinimap(!this.miniShown);
      });
    }
    this.input.on("pointerdown", (pointer: Phaser.Input.Pointer) => this.onPointer(pointer));
    this.input.on("pointermove", (pointer: Phaser.Input.Pointer) => this.onHover(pointer));
    this.input.on("gameout", () => this.setHover(undefined));
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
    const mapData = (await res.json()) as {
      layers: { name: string; type: string; data?: number[]; objects?: TiledRegion[] }[];
    };
    if (load !== this.roomLoad) return; // a newer room arrived meanwhile
    this.clearRoom();
    this.room = room;
    this.meId = meId;
    const key = `map:${room.roomId}:${load}`;
    this.cache.tilemap.add(key, { format: Phaser.Tilemaps.Formats.TILED_JSON, data: mapData });
    const map = this.make.tilemap({ key });
    // A world folder without its tile image (a new world, a typo) answers 404 and Phaser has no texture.
    if (!this.textures.exists("tiles"))
      throw new Error("this world's tile image (/world/tiles.png) did not load, so its map cannot be drawn");
    const tileset = map.addTilesetImage("tiles", "tiles");
    if (!tileset) throw new Error("the map has no tileset named tiles");
    for (const name of ["ground", "decor"]) {
      const layer = map.createLayer(name, tileset, 0, 0);
      if (layer) this.layers.push(layer.setDepth(name === "ground" ? 0 : 1));
    }
    const collision = mapData.layers.find((l) => l.name === "collision")?.data ?? [];
    this.blocked = collision.map((gid) => gid !== 0);
    this.places = placesOf(mapData.layers.find((l) => l.name === "regions")?.objects ?? [], map.tileWidth);
    this.placeId = undefined;
    this.map = map;
    this.minimap.setVisible(this.miniShown);
    const widthPx = room.widthTiles * room.tileSize;
    const heightPx = room.heightTiles * room.tileSize;
    this.cameras.main.setBounds(0, 0, widthPx, heightPx).setZoom(this.scale.width < 600 ? 1.25 : 1.5);
    this.labelMinimap();
    this.placeMinimap();
    for (const o of objects) this.upsertObject(o);
    this.drawPrivacy();
    for (const e of entities) this.upsertActor(e, true);
    this.follow();
    if (this.debugOn) this.drawDebug();
  }

  private clearRoom(): void {
    for (const a of this.actors.values()) {
      a.container.destroy();
      a.bubble?.destroy();
    }
    for (const o of this.objects.values()) {
      this.tweens.killTweensOf([o.image, ...(o.glow ? [o.glow] : [])]);
      o.image.destroy();
      o.glow?.destroy();
    }
    for (const label of this.miniLabels) label.destroy();
    this.miniLabels = [];
    this.setHover(undefined);
    this.hearingGfx.clear();
    this.privacyGfx.clear();
    for (const l of this.layers) l.destroy();
    this.actors.clear();
    this.objects.clear();
    this.radar.clear();
    this.layers = [];
    this.map?.destroy();
    this.map = undefined;
    this.debug?.clear();
  }

  /** Shows or folds the minimap (remembered by the page through the `ocw:minimap` event). */
  showMinimap(shown: boolean): void {
    this.miniShown = shown;
    if (this.room) this.minimap.setVisible(shown);
    this.placeMinimap();
  }

  /** Top right, below the top bar on a phone; its size follows the screen. */
  private placeMinimap(): void {
    if (!this.room) return;
    const phone = this.scale.width < 600;
    const box = phone ? { width: 132, height: 92 } : MINIMAP_BOX;
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
    // Larger places first; a label that would run into one already placed is left out, and each
    // stays inside the map.
    const kept: Phaser.Geom.Rectangle[] = [];
    for (const label of this.miniLabels) {
      label.setFontSize(Math.ceil(MINIMAP_LABEL_PX / zoom));
      const half = label.width / 2;
      label.setX(Math.min(Math.max(label.getData("cx") as number, half), widthPx - half));
      const box = label.getBounds();
      const clear = !kept.some((k) => Phaser.Geom.Rectangle.Overlaps(k, box));
      label.setVisible(clear);
      if (clear) kept.push(box);
    }
    const shown = this.miniShown;
    window.dispatchEvent(
      new CustomEvent("ocw:minimap", {
        detail: { x, y, width: shown ? w : 0, height: shown ? h : 0, shown },
      }),
    );
  }

  /** The room's places named on the minimap: the larger ones, not paths, not those inside another. */
  private labelMinimap(): void {
    if (!this.room) return;
    const size = this.room.tileSize;
    const inside = (p: MapPlace, q: MapPlace) =>
      p !== q &&
      p.tile.tx >= q.tile.tx &&
      p.tile.ty >= q.tile.ty &&
      p.tile.tx + p.widthTiles <= q.tile.tx + q.widthTiles &&
      p.tile.ty + p.heightTiles <= q.tile.ty + q.heightTiles;
    const byArea = [...this.places].sort(
      (p, q) => q.widthTiles * q.heightTiles - p.widthTiles * p.heightTiles,
    );
    for (const p of byArea) {
      if (Math.min(p.widthTiles, p.heightTiles) <= 3 || this.places.some((q) => inside(p, q))) continue;
      const cx = (p.tile.tx + p.widthTiles / 2) * size;
      const label = this.add
        .text(cx, (p.tile.ty + p.heightTiles / 2) * size, p.name, {
          fontFamily: "system-ui, sans-serif",
          color: "#ffffff",
          stroke: "#000000",
          strokeThickness: 12,
        })
        .setOrigin(0.5)
        .setDepth(101)
        .setData("cx", cx);
      this.cameras.main.ignore(label);
      this.miniLabels.push(label);
    }
  }

  private follow(): void {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (me) this.cameras.main.startFollow(me.container, true, followLerp(1000 / 60), followLerp(1000 / 60));
  }

  // ---- entities -------------------------------------------------------------------------------

  private textureFor(a: { data: WireEntity }, frame: number): string {
    // A configured look (a resident) draws an agent as a person; its tag still says AI.
    return a.data.kind === "agent" && a.data.look === undefined
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
      seated: false,
    });
    this.refreshTag(view);
    this.actors.set(e.id, view);
    this.radar.delete(e.id);
    if (isMe) this.follow();
  }

  private refreshTag(a: ActorView): void {
    a.away = a.data.away === true;
    a.label.setText(tagText(a.data, a.away));
    // Away, asleep and unwell are drawn faded: present, not answering now.
    a.container.setAlpha(a.away ? 0.45 : a.data.asleep || a.data.unwell ? 0.55 : 1);
  }

  updateActor(change: Partial<WireEntity> & { id: string }): void {
    const a = this.actors.get(change.id);
    if (!a) return;
    a.data = { ...a.data, ...change };
    if (
      change.name !== undefined ||
      change.away !== undefined ||
      change.thinking !== undefined ||
      change.asleep !== undefined ||
      change.unwell !== undefined
    )
      this.refreshTag(a);
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
    const wanted = objectTexture(o);
    const texture = this.textures.exists(wanted) ? wanted : "object";
    const known = this.objects.get(o.id);
    if (known) {
      known.data = o;
      known.image.setTexture(texture);
      return;
    }
    const x = o.tx * size + size / 2;
    const y = o.ty * size + size / 2;
    const image = this.add.image(x, y, texture).setDepth(5);
    const view: ObjectView = { data: o, image };
    if (o.objectType === "portal") {
      // Alive: the swirl turns and its glow breathes.
      view.glow = this.add.image(x, y, "portal-glow").setDepth(4);
      this.tweens.add({ targets: image, angle: 360, duration: 4000, repeat: -1 });
      this.tweens.add({
        targets: view.glow,
        scale: 1.25,
        alpha: 0.55,
        duration: 900,
        yoyo: true,
        repeat: -1,
        ease: "Sine.easeInOut",
      });
    }
    this.objects.set(o.id, view);
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
    if (o.data.objectType === "private_room") this.drawPrivacy();
    if (this.debugOn) this.drawDebug();
  }

  /** A named place of the room by id. */
  placeNamed(id: string): MapPlace | undefined {
    return this.places.find((p) => p.id === id);
  }

  /** The rooms made private now (their private_room objects say so), as map places. */
  privatePlaces(): MapPlace[] {
    const ids = new Set<string>();
    for (const o of this.objects.values())
      if (o.data.objectType === "private_room" && o.data.state.private === true)
        ids.add(String(o.data.state.region));
    return this.places.filter((p) => ids.has(p.id));
  }

  /** A private room shows as one: a soft violet wash and a dashed border along its walls. */
  private drawPrivacy(): void {
    const g = this.privacyGfx.clear();
    if (!this.room) return;
    const size = this.room.tileSize;
    for (const p of this.privatePlaces()) {
      const x = p.tile.tx * size;
      const y = p.tile.ty * size;
      const w = p.widthTiles * size;
      const h = p.heightTiles * size;
      g.fillStyle(0x9b6bff, 0.1).fillRect(x, y, w, h);
      g.lineStyle(3, 0xc9a8ff, 0.85);
      const dash = (x0: number, y0: number, x1: number, y1: number) => {
        const len = Math.hypot(x1 - x0, y1 - y0);
        for (let d = 0; d < len; d += 14) {
          const t0 = d / len;
          const t1 = Math.min(1, (d + 8) / len);
          g.lineBetween(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0, x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1);
        }
      };
      dash(x, y, x + w, y);
      dash(x + w, y, x + w, y + h);
      dash(x + w, y + h, x, y + h);
      dash(x, y + h, x, y);
    }
  }

  /** The seat an actor sits on, if any (the seats' own state says who holds them). */
  seatOf(actorId: string): WireObject | undefined {
    for (const o of this.objects.values())
      if (o.data.objectType === "seat" && o.data.state.occupant === actorId) return o.data;
    return undefined;
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
    const inMini = this.overMinimap(pointer);
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
    // Another person or resident there: "talk to" them (walk up, address them).
    const other = inMini || !this.callbacks.talkTo ? undefined : this.otherAt(tx, ty);
    if (other && !other.asleep) {
      this.markTile(tx, ty, 0xffe27a);
      this.callbacks.talkTo?.(other.id);
      return;
    }
    this.markTile(tx, ty, this.blocked[ty * this.room.widthTiles + tx] ? 0xff5a5a : 0xffffff);
    this.callbacks.moveTo(tx, ty);
  }

  /** The pointer over the world: a usable object under it is outlined, the cursor becomes a hand and
   * a tooltip says what a click does. */
  private onHover(pointer: Phaser.Input.Pointer): void {
    if (!this.room) return;
    this.setHover(this.hoverAt(pointer));
  }

  private overMinimap(pointer: Phaser.Input.Pointer): boolean {
    const mini = this.minimap;
    return (
      mini.visible &&
      pointer.x >= mini.x &&
      pointer.x < mini.x + mini.width &&
      pointer.y >= mini.y &&
      pointer.y < mini.y + mini.height
    );
  }

  /** The usable object under the pointer and what a click on it does now. */
  private hoverAt(pointer: Phaser.Input.Pointer): HoverInfo | undefined {
    if (!this.room || this.overMinimap(pointer)) return undefined;
    const point = this.cameras.main.getWorldPoint(pointer.x, pointer.y);
    const tx = Math.floor(point.x / this.room.tileSize);
    const ty = Math.floor(point.y / this.room.tileSize);
    const target = this.objectAt(tx, ty);
    const action = target ? naturalAction(target) : undefined;
    const label = target && action ? target.affords.find((a) => a.action === action)?.label : undefined;
    if (target && label) return { object: target, label, x: pointer.x, y: pointer.y };
    const resident = this.notAnsweringAt(tx, ty);
    if (resident) {
      const card = resident.asleep ? asleepCard(resident.name) : unwellCard(resident.name);
      return { actorId: resident.id, label: card, x: pointer.x, y: pointer.y };
    }
    const other = this.callbacks?.talkTo ? this.otherAt(tx, ty) : undefined;
    if (!other) return undefined;
    return {
      actorId: other.id,
      talk: true,
      label: `Talk to ${isolate(other.name)}`,
      x: pointer.x,
      y: pointer.y,
    };
  }

  /** Another person or resident standing on the tile (not the viewer). */
  private otherAt(tx: number, ty: number): WireEntity | undefined {
    for (const a of this.actors.values())
      if (a.data.id !== this.meId && a.data.tx === tx && a.data.ty === ty) return a.data;
    return undefined;
  }

  /** A resident that cannot answer now (asleep, or its turns fail) standing on the tile (its body
   * covers about one tile). */
  private notAnsweringAt(tx: number, ty: number): WireEntity | undefined {
    for (const a of this.actors.values())
      if ((a.data.asleep || a.data.unwell) && a.data.tx === tx && a.data.ty === ty) return a.data;
    return undefined;
  }

  /** A tooltip shown says what a click does now: the object changed (a door opened) or the camera
   * moved it from under a still pointer, and it follows or goes. */
  private refreshHover(): void {
    if (!this.hovered) return;
    const now = this.hoverAt(this.input.activePointer);
    if (hoverId(now) !== this.hovered.id || now?.label !== this.hovered.label) this.setHover(now);
  }

  private setHover(info: HoverInfo | undefined): void {
    const g = this.hoverGfx?.clear();
    const object = info?.object;
    // A hand only where a click does something (an object, someone to talk to); a sleeper's card
    // is to read.
    this.input?.setDefaultCursor(object || info?.talk ? "pointer" : "default");
    this.hovered = info ? { id: hoverId(info)!, label: info.label } : undefined;
    if (object && g && this.room) {
      const size = this.room.tileSize;
      g.lineStyle(2, 0xffe27a, 0.95).strokeRoundedRect(
        object.tx * size + 1,
        object.ty * size + 1,
        size - 2,
        size - 2,
        5,
      );
      g.fillStyle(0xffe27a, 0.12).fillRoundedRect(
        object.tx * size + 1,
        object.ty * size + 1,
        size - 2,
        size - 2,
        5,
      );
    }
    this.callbacks?.hover(info);
  }

  /** Who hears the viewer on `channel` now; drawn (the range, and a ring under each hearer) until
   * called with undefined. Radius and private rooms as the world decides them (places.ts). */
  showHearing(channel: "proximity" | "global" | undefined): Hearing | undefined {
    if (!this.hearingGfx) return undefined; // before create(): the page may be welcomed first
    const g = this.hearingGfx.clear();
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (!channel || !me || !this.room) {
      this.hearingShown = undefined;
      return undefined;
    }
    const size = this.room.tileSize;
    const privatePlaces = this.privatePlaces();
    const zoneId = hearingZoneAt(privatePlaces, me.data.tx, me.data.ty);
    const zone = privatePlaces.find((p) => p.id === zoneId);
    const radius = (this.room.chatRadiusTiles ?? 6) * size;
    const ids: string[] = [];
    for (const [id, a] of this.actors) {
      if (id === this.meId || !withinHearing(privatePlaces, me.data, a.data)) continue;
      if (channel === "proximity" && Math.hypot(a.data.x - me.data.x, a.data.y - me.data.y) > radius)
        continue;
      ids.push(id);
      g.lineStyle(2, 0x7dfcff, 0.95).strokeEllipse(a.shown.x, a.shown.y + 8, 30, 12);
    }
    if (zone) {
      g.lineStyle(2, 0x7dfcff, 0.8).strokeRect(
        zone.tile.tx * size,
        zone.tile.ty * size,
        zone.widthTiles * size,
        zone.heightTiles * size,
      );
    } else if (channel === "proximity") {
      g.fillStyle(0x7dfcff, 0.07).fillCircle(me.shown.x, me.shown.y, radius);
      g.lineStyle(2, 0x7dfcff, 0.7).strokeCircle(me.shown.x, me.shown.y, radius);
    }
    this.hearingShown = { channel, ids, zone };
    return this.hearingShown;
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
    const lerp = followLerp(delta);
    this.cameras.main.setLerp(lerp, lerp);
    // Smooth toward the server's positions; jumps (portals, resume) snap.
    const k = Math.min(1, (delta / 1000) * 12);
    for (const a of this.actors.values()) {
      const dx = a.data.x - a.shown.x;
      const dy = a.data.y - a.shown.y;
      if (Math.abs(dx) + Math.abs(dy) > 96) a.shown = { x: a.data.x, y: a.data.y };
      else a.shown = { x: a.shown.x + dx * k, y: a.shown.y + dy * k };
      a.container.setPosition(a.shown.x, a.shown.y);
      // Walk cycle while moving, standing frame when still; seated, lower and without legs showing.
      const moving = Math.abs(dx) + Math.abs(dy) > 0.75;
      const seated = !moving && this.seatOf(a.data.id) !== undefined;
      const key = this.textureFor(a, moving ? 1 + (Math.floor(time / 160) % 2) : 0);
      if (a.body.texture.key !== key) a.body.setTexture(key);
      if (seated !== a.seated) {
        a.seated = seated;
        a.body.setY(seated ? 2 : -2);
        if (seated) a.body.setCrop(0, 0, 24, 22);
        else a.body.setCrop();
      }
      if (a.bubble && time > a.bubbleUntil) {
        a.bubble.destroy();
        a.bubble = undefined;
      }
    }
    this.notePlace();
    this.refreshHover();
    this.placeTags();
    this.placeBubbles();
    // Dots and frame at 10 Hz: the minimap is small, and redrawing it every frame buys nothing.
    if (time - this.miniDrawnAt >= 100) {
      this.miniDrawnAt = time;
      this.drawMinimapLayer();
    }
    this.readKeys();
  }

  /** Tells the page when the viewer walks into another named place (the most specific one). */
  private notePlace(): void {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (!me) return;
    const place = placeAt(this.places, me.data.tx, me.data.ty);
    if (place?.id === this.placeId) return;
    this.placeId = place?.id;
    this.callbacks?.place(place);
  }

  /** Name tags of neighbours never print over each other: a tag that would overlap is lifted. */
  private placeTags(): void {
    const view = this.cameras.main.worldView;
    const tags: (Rect & { id: string })[] = [];
    const people: Rect[] = [];
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
      people.push({ x: x - 13, y: y - 20, w: 26, h: 34 });
    }
    // The viewer's own tag first (it never moves), then by row (lower on screen first) and column.
    tags.sort((p, q) => (p.id === this.meId ? -1 : q.id === this.meId ? 1 : q.y - p.y || p.x - q.x));
    this.peopleRects = people;
    this.leaders.clear();
    for (const [id, lift] of stackTags(tags)) {
      const a = this.actors.get(id)!;
      a.label.setY(-TAG_Y - lift);
      const tag = tags.find((t) => t.id === id)!;
      people.push({ x: tag.x - 2, y: tag.y - lift - 1, w: tag.w + 4, h: tag.h + 2 });
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
    // Nobody's avatar or name tag is covered: a line over someone reads as theirs.
    const placed = layoutBubbles(boxes, this.peopleRects, {
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
  bubbleLayout(): {
    bubbles: { id: string; x: number; y: number; w: number; h: number }[];
    me?: Rect;
    /** Everyone's body and name tag. */
    people: Rect[];
  } {
    const zoom = this.cameras.main.zoom;
    const screen = (r: Rect) => {
      const p = this.toScreen(r.x, r.y);
      return { x: p.x, y: p.y, w: r.w * zoom, h: r.h * zoom };
    };
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    return {
      bubbles: this.bubbleRects.map((b) => ({ id: b.id, ...screen(b.rect) })),
      ...(me ? { me: screen({ x: me.shown.x - 12, y: me.shown.y - 16, w: 24, h: 28 }) } : {}),
      people: this.peopleRects.map(screen),
    };
  }

  /** The object under the pointer and the cursor, for tests. */
  hoverState(): { id?: string; label?: string; cursor: string } {
    return { ...this.hovered, cursor: this.game.canvas.style.cursor || "default" };
  }

  /** The hearing last drawn (names, not only ids), for tests. */
  hearingState(): (Omit<Hearing, "zone"> & { zone?: string }) | undefined {
    const h = this.hearingShown;
    return h ? { channel: h.channel, ids: h.ids, ...(h.zone ? { zone: h.zone.id } : {}) } : undefined;
  }

  /** The named places of the room, and those labelled on the minimap, for tests. */
  placesState(): { places: string[]; labels: string[]; current?: string } {
    return {
      places: this.places.map((p) => p.name),
      labels: this.miniLabels.filter((l) => l.visible).map((l) => l.text),
      ...(this.placeId ? { current: this.placeId } : {}),
    };
  }

  /** The minimap's screen rectangle and what it shows, for tests. */
  minimapState(): {
    x: number;
    y: number;
    width: number;
    height: number;
    dots: string[];
    visible: boolean;
    /** The smallest place name shown, in CSS pixels (undefined: none shown). */
    labelPx?: number;
  } {
    const m = this.minimap;
    const ids = new Set([...this.actors.keys(), ...this.radar.keys()]);
    const sizes = this.miniLabels
      .filter((l) => l.visible)
      .map((l) => Number.parseFloat(String(l.style.fontSize)) * m.zoom);
    // Folded, it covers nothing.
    return {
      x: m.x,
      y: m.y,
      width: m.visible ? m.width : 0,
      height: m.visible ? m.height : 0,
      dots: [...ids],
      visible: m.visible,
      ...(sizes.length ? { labelPx: Math.min(...sizes) } : {}),
    };
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
  snapshot(): (WireEntity & { away: boolean; seated: boolean; alpha: number })[] {
    return [...this.actors.values()].map((a) => ({
      ...a.data,
      away: a.away,
      seated: a.seated,
      alpha: a.container.alpha,
    }));
  }
}

/** The texture of an object in its state. */
function objectTexture(o: WireObject): string {
  switch (o.objectType) {
    case "door":
      return o.state.open ? "door-open" : "door-closed";
    case "seat":
      return seatKey(String(o.state.style ?? "chair"), String(o.state.facing ?? "down"));
    case "private_room":
      return o.state.private ? "privacy-closed" : "privacy-open";
    default:
      return o.objectType;
  }
}

interface TiledRegion {
  name?: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  properties?: { name: string; value: unknown }[];
}

/** The map's named regions (the server validated them when it loaded the same file). */
function placesOf(objects: TiledRegion[], tileSize: number): MapPlace[] {
  return objects.flatMap((o) => {
    const label = o.properties?.find((p) => p.name === "label")?.value;
    if (typeof o.name !== "string" || typeof label !== "string") return [];
    return [
      {
        id: o.name,
        name: label,
        tile: { tx: Math.floor((o.x ?? 0) / tileSize), ty: Math.floor((o.y ?? 0) / tileSize) },
        widthTiles: Math.round((o.width ?? 0) / tileSize),
        heightTiles: Math.round((o.height ?? 0) / tileSize),
      },
    ];
  });
}

/** The action a click means for an object: read a sign, use a portal, open or close a door. */
export function naturalAction(o: WireObject): string | undefined {
  const actions = o.affords.map((a) => a.action);
  for (const preferred of ["read", "use", o.state.open ? "close" : "open"])
    if (actions.includes(preferred)) return preferred;
  return actions[0];
}
