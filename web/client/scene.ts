// The Phaser scene: renders the room's Tiled map (the same file the server loads), actors, objects,
// chat bubbles and a minimap; turns clicks, WASD and the touch pad into intents. It never decides
// anything the server decides: positions come from the server and are only smoothed here.
import * as Phaser from "phaser";
// The wire shapes are the server's own (type-only import: nothing of the server is bundled).
import type { WireEntity, WireObject, WireRoom } from "../../src/http/humans/protocol.ts";
// The place rules are the world's own (pure, no server code bundled beyond them).
import { placeAt } from "../../src/world/places.ts";
import { type PartOfDay, timeOfDay } from "../../src/world/time.ts";
import {
  type ActorView,
  changesTag,
  makeActorView,
  notAnsweringAt,
  otherAt,
  refreshTag,
  stepActor,
} from "./actor-sprites.ts";
import type { Rect } from "./bubble-layout.ts";
import { followGap, followLerp, toScreen } from "./camera.ts";
import { ClosedPlaceShades } from "./closed-places.ts";
import { drawCollision } from "./collision-debug.ts";
import { drawHearing, type Hearing } from "./hearing-rings.ts";
import { LampGlows, lampsLit, lampTilesOf } from "./lamps.ts";
import { MapPointer, markTile } from "./map-pointer.ts";
import { Minimap, type RadarDot } from "./minimap.ts";
import { blockedOf, drawTilemap, fetchMap, type MapPlace, placesOf } from "./room-map.ts";
import {
  destroyObjectView,
  drawPrivacy,
  naturalAction,
  type ObjectView,
  patchedState,
  privatePlacesOf,
  upsertObjectView,
} from "./room-objects.ts";
import type { HoverInfo, SceneCallbacks } from "./scene-callbacks.ts";
import {
  bubbleLayoutOnScreen,
  placeBubbles,
  placeTags,
  showBubble,
  tagRectsOnScreen,
} from "./tags-and-bubbles.ts";
import { drawTextures } from "./textures.ts";
import { addWalkKeys, type WalkKeys, walkDirection } from "./walk-keys.ts";

/** The tint of each part of the day: its colour and how much of it. */
const DAYLIGHT = {
  morning: [0xffc080, 0.06],
  day: [0x000000, 0],
  evening: [0x402060, 0.18],
  night: [0x081030, 0.55],
} as const;

export type { Hearing, HoverInfo, MapPlace, RadarDot, SceneCallbacks, WireEntity, WireObject, WireRoom };
export { naturalAction };

/** A touch pad press shorter than this is a tap: one tile that way. */
const TAP_MS = 250;

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
  /** Someone the camera stays on who is not the page's own (the replay's followed agent). */
  private watchedId = "";
  private minimap = new Minimap(this);
  private pointer = new MapPointer({
    scene: this,
    minimap: this.minimap,
    room: () => this.room,
    callbacks: () => this.callbacks,
    blockedAt: (tx, ty) => this.blocked[ty * this.room!.widthTiles + tx],
    objectAt: (tx, ty) => this.objectAt(tx, ty),
    otherAt: (tx, ty) => otherAt(this.actors, this.meId, tx, ty),
    notAnsweringAt: (tx, ty) => notAnsweringAt(this.actors, tx, ty),
    markTile: (tx, ty, tint) => this.markTile(tx, ty, tint),
  });
  private leaders!: Phaser.GameObjects.Graphics;
  private debug: Phaser.GameObjects.Graphics | undefined;
  private debugOn = false;
  private keys: WalkKeys = {};
  private touchDir = { dx: 0, dy: 0 };
  /** When and where a touch pad press began (a short one is a tap: one tile). */
  private touchStart: { atMs: number; tx: number; ty: number } | undefined;
  /** The tile a tap walks to, sent on the next frame. */
  private pendingStep: { tx: number; ty: number } | undefined;
  private lastIntent = { dx: 0, dy: 0 };
  private bubbleRects: { id: string; rect: Rect }[] = [];
  /** Bodies and name tags of everyone drawn, in world units: bubbles keep off them. */
  private peopleRects: Rect[] = [];
  private places: MapPlace[] = [];
  private placeId: string | undefined;
  private privacyGfx!: Phaser.GameObjects.Graphics;
  private closedShades!: ClosedPlaceShades;
  private lamps!: LampGlows;
  /** The world's time the page last knew (its clock): which places are closed now. */
  private worldMs: number | undefined;
  private hearingGfx!: Phaser.GameObjects.Graphics;
  private hearingShown: Hearing | undefined;
  /** The night's tint over the world (not the minimap, tags or bubbles). */
  private daylight: Phaser.GameObjects.Rectangle | undefined;
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
    this.minimap.create();
    this.leaders = this.worldOnly(this.add.graphics().setDepth(29));
    this.pointer.mark.create(this.worldOnly(this.add.graphics().setDepth(6)));
    this.privacyGfx = this.add.graphics().setDepth(2);
    this.closedShades = new ClosedPlaceShades(this, this.worldOnly);
    this.lamps = new LampGlows(this, this.worldOnly);
    this.hearingGfx = this.worldOnly(this.add.graphics().setDepth(3));
    const kb = this.input.keyboard;
    if (kb) {
      this.keys = addWalkKeys(kb);
      this.keys.C!.on("down", () => {
        if (!this.callbacks.typing()) this.toggleDebug();
      });
      kb.addKey(Phaser.Input.Keyboard.KeyCodes.M, false).on("down", () => {
        if (!this.callbacks.typing()) this.chooseMinimap(!this.minimap.shown);
      });
    }
    this.input.on("pointerdown", (pointer: Phaser.Input.Pointer) => this.pointer.click(pointer));
    this.input.on("pointermove", (pointer: Phaser.Input.Pointer) => this.pointer.hover(pointer));
    this.input.on("gameout", () => this.pointer.set(undefined));
    this.scale.on("resize", () => this.minimap.place(this.room));
    this.ready();
  }

  /** The light at a moment of the world (the replay's frame, the follow page's view: pages without
   * the top bar's clock). */
  lightAt(worldMs: number | undefined): void {
    if (worldMs === undefined || !Number.isFinite(worldMs)) return;
    const { part } = timeOfDay(worldMs);
    void this.whenReady.then(() => this.setDaylight(part));
    this.showHours(worldMs);
  }

  /** Shades the room's places closed at this moment of the world (closed-places.ts). */
  showHours(worldMs: number): void {
    this.worldMs = worldMs;
    void this.whenReady.then(() => {
      if (this.room) this.lamps.closeIn(this.closedShades.update(this.places, this.room.tileSize, worldMs));
    });
  }

  /** The places drawn closed now, by id (tests read them through the page's window). */
  closedPlacesShown(): string[] {
    return this.closedShades?.ids() ?? [];
  }

  /** The light of this part of the day: a tint fixed to the screen, over the map, objects and
   * bodies and under the name tags and bubbles (depth 25), so names stay readable at night; and the
   * map's lamps, lit by the same part of the day (lamps.ts). */
  setDaylight(part: PartOfDay): void {
    this.lamps.light(lampsLit(part));
    if (!this.daylight) {
      const { width, height } = this.scale;
      // Twice the screen, centred: the camera's zoom scales it about the centre and it still covers.
      this.daylight = this.worldOnly(
        this.add.rectangle(width / 2, height / 2, width * 2, height * 2, 0x0a1040, 0).setScrollFactor(0),
      ).setDepth(25);
      this.scale.on("resize", () => {
        const size = this.scale;
        this.daylight?.setPosition(size.width / 2, size.height / 2).setSize(size.width * 2, size.height * 2);
      });
    }
    const [colour, alpha] = DAYLIGHT[part];
    this.daylight.setFillStyle(colour, alpha);
  }

  /** The tint drawn now (tests read it through the page's window). */
  daylightState(): { alpha: number } {
    return { alpha: this.daylight?.fillAlpha ?? 0 };
  }

  /** The room's lamps and whether they are lit (tests read it through the page's window). */
  lampsState(): ReturnType<LampGlows["state"]> {
    return this.lamps?.state() ?? { count: 0, lit: false, shining: 0, closed: [] };
  }

  /** Drawn by the main camera only. */
  private worldOnly = <T extends Phaser.GameObjects.GameObject>(object: T): T => {
    this.minimap.camera.ignore(object);
    return object;
  };

  // ---- rooms ----------------------------------------------------------------------------------

  async loadRoom(room: WireRoom, meId: string, entities: WireEntity[], objects: WireObject[]): Promise<void> {
    const load = ++this.roomLoad;
    const mapData = await fetchMap(room.mapUrl);
    if (load !== this.roomLoad) return; // a newer room arrived meanwhile
    this.clearRoom();
    this.room = room;
    this.meId = meId;
    const { map, layers } = drawTilemap(this, `map:${room.roomId}:${load}`, mapData);
    this.layers = layers;
    this.blocked = blockedOf(mapData);
    this.places = placesOf(mapData, map.tileWidth);
    this.lamps.place(lampTilesOf(mapData), map.tileWidth);
    this.placeId = undefined;
    this.map = map;
    this.minimap.camera.setVisible(this.minimap.shown);
    const widthPx = room.widthTiles * room.tileSize;
    const heightPx = room.heightTiles * room.tileSize;
    this.cameras.main.setBounds(0, 0, widthPx, heightPx).setZoom(this.scale.width < 600 ? 1.25 : 1.5);
    this.minimap.label(this.room, this.places);
    this.minimap.place(this.room);
    for (const o of objects) this.upsertObject(o);
    this.drawPrivacy();
    this.lamps.closeIn(
      this.worldMs === undefined ? [] : this.closedShades.update(this.places, room.tileSize, this.worldMs),
    );
    for (const e of entities) this.upsertActor(e, true);
    this.follow();
    if (this.debugOn) this.drawDebug();
  }

  /** Whether the drawn map blocks a tile (the test window reads it). */
  blockedShown(tx: number, ty: number): boolean {
    return this.room !== undefined && this.blocked[ty * this.room.widthTiles + tx] === true;
  }

  private clearRoom(): void {
    for (const a of this.actors.values()) {
      a.container.destroy();
      a.bubble?.destroy();
    }
    for (const o of this.objects.values()) destroyObjectView(this, o);
    this.minimap.clearLabels();
    this.pointer.set(undefined);
    this.hearingGfx.clear();
    this.privacyGfx.clear();
    this.closedShades.clear();
    this.lamps.clear();
    for (const l of this.layers) l.destroy();
    this.actors.clear();
    this.objects.clear();
    this.radar.clear();
    this.layers = [];
    this.map?.destroy();
    this.map = undefined;
    this.debug?.clear();
  }

  /** The person shows or folds the minimap (M, the Map button): a choice the page remembers (the
   * `ocw:minimap-choice` event). */
  chooseMinimap(shown: boolean): void {
    this.showMinimap(shown);
    window.dispatchEvent(new CustomEvent("ocw:minimap-choice", { detail: shown }));
  }

  /** Shows or folds the minimap (where it is and its size: the `ocw:minimap` event). */
  showMinimap(shown: boolean): void {
    this.minimap.shown = shown;
    if (this.room) this.minimap.camera.setVisible(shown);
    this.minimap.place(this.room);
  }

  /** Keeps the camera on `entityId`, drawn as anyone else is ("" lets it go where it stands). */
  watch(entityId: string): void {
    this.watchedId = entityId;
    if (!entityId) this.cameras.main.stopFollow();
    this.follow();
  }

  /** Whom the camera follows: the viewer, or the one watched (a page without a player). */
  private followed(): ActorView | undefined {
    const id = this.meId || this.watchedId;
    return id ? this.actors.get(id) : undefined;
  }

  private follow(): void {
    const followed = this.followed();
    if (followed)
      this.cameras.main.startFollow(followed.container, true, followLerp(1000 / 60), followLerp(1000 / 60));
  }

  // ---- entities -------------------------------------------------------------------------------

  upsertActor(e: WireEntity, snap = false): void {
    const existing = this.actors.get(e.id);
    if (existing) {
      existing.data = { ...existing.data, ...e };
      refreshTag(existing);
      if (snap) existing.shown = { x: e.x, y: e.y };
      return;
    }
    const isMe = e.id === this.meId;
    this.actors.set(e.id, makeActorView(this, e, isMe, this.worldOnly));
    this.radar.delete(e.id);
    if (isMe || e.id === this.watchedId) this.follow();
  }

  updateActor(change: Partial<WireEntity> & { id: string }): void {
    const a = this.actors.get(change.id);
    if (!a) return;
    a.data = { ...a.data, ...change };
    if (changesTag(change)) refreshTag(a);
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

  /** A chat bubble over the speaker. */
  say(entityId: string, message: string): void {
    const a = this.actors.get(entityId);
    if (a) showBubble(this, a, message, this.worldOnly);
  }

  // ---- objects --------------------------------------------------------------------------------

  upsertObject(o: WireObject): void {
    upsertObjectView(this, this.objects, o, this.room?.tileSize ?? 32);
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
    const state = patchedState(o.data.state, patch);
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
    return privatePlacesOf(this.objects, this.places);
  }

  private drawPrivacy(): void {
    const g = this.privacyGfx.clear();
    if (!this.room) return;
    drawPrivacy(g, this.privatePlaces(), this.room.tileSize);
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

  /** The room's objects as drawn now (their latest state). */
  objectsShown(): WireObject[] {
    return [...this.objects.values()].map((o) => o.data);
  }

  // ---- input ----------------------------------------------------------------------------------

  /** Who hears the viewer on `channel` now; drawn (the range, and a ring under each hearer) until
   * called with undefined. */
  showHearing(channel: "proximity" | "global" | undefined): Hearing | undefined {
    if (!this.hearingGfx) return undefined; // before create(): the page may be welcomed first
    const g = this.hearingGfx.clear();
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (!channel || !me || !this.room) {
      this.hearingShown = undefined;
      return undefined;
    }
    this.hearingShown = drawHearing(g, channel, me, this.actors, this.room, this.privatePlaces());
    return this.hearingShown;
  }

  /** A short-lived ring where the player clicked (red on a wall). */
  markTile(tx: number, ty: number, tint: number): void {
    if (!this.room) return;
    markTile(this, this.worldOnly, tx, ty, this.room.tileSize, tint);
  }

  setTouchDir(dx: number, dy: number): void {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    if (dx || dy) this.touchStart = me && { atMs: performance.now(), tx: me.data.tx, ty: me.data.ty };
    else if (this.touchStart && performance.now() - this.touchStart.atMs < TAP_MS) {
      // A tap walks one tile that way (held this briefly, the held direction moved a few pixels or,
      // within a frame, nothing at all); sent after the stop, which would end it.
      const { tx, ty } = this.touchStart;
      this.pendingStep = { tx: tx + this.touchDir.dx, ty: ty + this.touchDir.dy };
    }
    if (!(dx || dy)) this.touchStart = undefined;
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

  private drawDebug(): void {
    if (!this.room) return;
    this.debug ??= this.worldOnly(this.add.graphics().setDepth(50));
    drawCollision(this.debug.clear(), this.room, this.blocked, this.objects);
  }

  override update(time: number): void {
    // The time since the last frame as it passed: Phaser's own delta is smoothed and, in a window
    // without focus (one of two windows side by side, a page among others), held to a 60 Hz frame, so
    // at a few frames a second the camera and the figures crawled (the camera still 17 px from rest
    // 3 s after a walk, at 5 frames a second).
    const delta = Math.min(this.game.loop.rawDelta, 1000);
    const lerp = followLerp(delta);
    this.cameras.main.setLerp(lerp, lerp);
    for (const a of this.actors.values())
      stepActor(a, time, delta, () => this.seatOf(a.data.id) !== undefined);
    this.notePlace();
    this.pointer.refresh();
    const view = this.cameras.main.worldView;
    this.peopleRects = placeTags(this.actors, this.meId, view, this.leaders);
    this.bubbleRects = placeBubbles(this.actors, this.peopleRects, view, this.leaders);
    this.minimap.draw(time, this.room, this.actors, this.radar, this.meId);
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

  private readKeys(): void {
    if (!this.callbacks) return;
    const { dx, dy } = walkDirection(this.keys, this.touchDir, this.callbacks.typing());
    if (dx !== this.lastIntent.dx || dy !== this.lastIntent.dy) {
      this.lastIntent = { dx, dy };
      this.callbacks.moveIntent(dx, dy);
    }
    const step = this.pendingStep;
    this.pendingStep = undefined;
    if (step && this.room && !(dx || dy)) {
      const { widthTiles, heightTiles } = this.room;
      const inside = step.tx >= 0 && step.ty >= 0 && step.tx < widthTiles && step.ty < heightTiles;
      if (inside && !this.blocked[step.ty * widthTiles + step.tx]) this.callbacks.moveTo(step.tx, step.ty);
    }
  }

  /** Where a tile's centre is on screen (CSS pixels), for tests and tooltips. */
  screenPoint(tx: number, ty: number): { x: number; y: number } | undefined {
    if (!this.room) return undefined;
    const size = this.room.tileSize;
    return this.toScreen((tx + 0.5) * size, (ty + 0.5) * size);
  }

  /** How far the camera still has to scroll to rest on whom it follows (undefined when it follows
   * nobody): a point read off a camera on its way is not where the tile will be. */
  cameraGap(): number | undefined {
    const followed = this.followed();
    return followed ? followGap(this.cameras.main, followed.container) : undefined;
  }

  private toScreen(x: number, y: number): { x: number; y: number } {
    return toScreen(this.cameras.main, x, y);
  }

  // ---- for tests (the page's window.__ocw) ------------------------------------------------------

  /** Screen rectangles (CSS pixels) of the shown bubbles, of the viewer's avatar and of everyone's
   * body and name tag. */
  bubbleLayout(): ReturnType<typeof bubbleLayoutOnScreen> {
    const me = this.meId ? this.actors.get(this.meId) : undefined;
    return bubbleLayoutOnScreen(this.cameras.main, this.bubbleRects, this.peopleRects, me);
  }

  /** The object under the pointer and the cursor. */
  hoverState(): { id?: string; label?: string; cursor: string } {
    return { ...this.pointer.mark.current, cursor: this.game.canvas.style.cursor || "default" };
  }

  /** The hearing last drawn (names, not only ids). */
  hearingState(): (Omit<Hearing, "zone"> & { zone?: string }) | undefined {
    const h = this.hearingShown;
    return h ? { channel: h.channel, ids: h.ids, ...(h.zone ? { zone: h.zone.id } : {}) } : undefined;
  }

  /** The named places of the room, and those labelled on the minimap. */
  placesState(): { places: string[]; labels: string[]; closed: string[]; current?: string } {
    return {
      places: this.places.map((p) => p.name),
      labels: this.minimap.shownLabels(),
      closed: this.closedPlacesShown(),
      ...(this.placeId ? { current: this.placeId } : {}),
    };
  }

  /** The minimap's screen rectangle and what it shows. */
  minimapState(): ReturnType<Minimap["state"]> {
    return this.minimap.state([...new Set([...this.actors.keys(), ...this.radar.keys()])]);
  }

  /** The name tags as drawn. */
  tags(): string[] {
    return [...this.actors.values()].map((a) => a.label.text);
  }

  /** The name tags' screen rectangles (CSS pixels). */
  tagRects(): { text: string; x: number; y: number; w: number; h: number }[] {
    return tagRectsOnScreen(this.cameras.main, this.actors);
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
