// The room's objects as the scene draws them (a sprite for each state, a portal that looks alive, a
// private room's wash) and what a click on one means.
import type * as Phaser from "phaser";
import type { WireObject } from "../../src/http/humans/protocol.ts";
import type { MapPlace } from "./room-map.ts";
import { creatureTexture, plotTexture, seatKey } from "./textures.ts";

export interface ObjectView {
  data: WireObject;
  image: Phaser.GameObjects.Image;
  /** A portal's glow, pulsing under it. */
  glow?: Phaser.GameObjects.Image;
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
    case "garden_plot":
      return plotTexture(String(o.state.stage), o.state.wilted === true);
    case "creature":
      return creatureTexture(String(o.state.species), String(o.state.mode));
    default:
      return o.objectType;
  }
}

/** Draws an object new to the scene, or redraws a known one in its new state. */
export function upsertObjectView(
  scene: Phaser.Scene,
  objects: Map<string, ObjectView>,
  o: WireObject,
  tileSize: number,
): void {
  const wanted = objectTexture(o);
  const texture = scene.textures.exists(wanted) ? wanted : "object";
  const known = objects.get(o.id);
  const x = o.tx * tileSize + tileSize / 2;
  const y = o.ty * tileSize + tileSize / 2;
  if (known) {
    const moved = known.data.tx !== o.tx || known.data.ty !== o.ty;
    known.data = o;
    known.image.setTexture(texture);
    if (moved) glide(scene, known.image, x, y);
    faceWay(known.image, o);
    return;
  }
  const image = scene.add.image(x, y, texture).setDepth(5);
  faceWay(image, o);
  const view: ObjectView = { data: o, image };
  if (o.objectType === "portal") {
    // Alive: the swirl turns and its glow breathes.
    view.glow = scene.add.image(x, y, "portal-glow").setDepth(4);
    scene.tweens.add({ targets: image, angle: 360, duration: 4000, repeat: -1 });
    scene.tweens.add({
      targets: view.glow,
      scale: 1.25,
      alpha: 0.55,
      duration: 900,
      yoyo: true,
      repeat: -1,
      ease: "Sine.easeInOut",
    });
  }
  objects.set(o.id, view);
}

/** A creature goes from tile to tile in a glide: a step's length for a step, longer for a flight
 * (about its second in the air). */
function glide(scene: Phaser.Scene, image: Phaser.GameObjects.Image, x: number, y: number): void {
  scene.tweens.killTweensOf(image);
  const tiles = Math.hypot(x - image.x, y - image.y) / 32;
  const duration = tiles <= 1.5 ? 240 : Math.min(1000, 120 * tiles);
  scene.tweens.add({ targets: image, x, y, duration, ease: tiles <= 1.5 ? "Linear" : "Sine.easeInOut" });
}

/** A creature drawn facing right looks left when it goes left. */
function faceWay(image: Phaser.GameObjects.Image, o: WireObject): void {
  if (o.objectType === "creature") image.setFlipX(o.state.facing === "left");
}

export function destroyObjectView(scene: Phaser.Scene, o: ObjectView): void {
  scene.tweens.killTweensOf([o.image, ...(o.glow ? [o.glow] : [])]);
  o.image.destroy();
  o.glow?.destroy();
}

/** An object's state with a change applied (the world sends changes as JSON-patch-like ops on
 * top-level keys). */
export function patchedState(
  state: WireObject["state"],
  patch: { op: string; path: string; value?: unknown }[],
): WireObject["state"] {
  const next = { ...state };
  for (const op of patch) {
    const key = op.path.replace(/^\//, "");
    if (op.op === "remove") delete next[key];
    else next[key] = op.value;
  }
  return next;
}

/** The rooms made private now (their private_room objects say so), as map places. */
export function privatePlacesOf(objects: Map<string, ObjectView>, places: MapPlace[]): MapPlace[] {
  const ids = new Set<string>();
  for (const o of objects.values())
    if (o.data.objectType === "private_room" && o.data.state.private === true)
      ids.add(String(o.data.state.region));
  return places.filter((p) => ids.has(p.id));
}

/** A private room shows as one: a soft violet wash and a dashed border along its walls. */
export function drawPrivacy(g: Phaser.GameObjects.Graphics, privatePlaces: MapPlace[], size: number): void {
  for (const p of privatePlaces) {
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

/** The action a click means for an object: read a sign, use a portal, open or close a door. */
export function naturalAction(o: WireObject): string | undefined {
  const actions = o.affords.map((a) => a.action);
  for (const preferred of ["read", "use", o.state.open ? "close" : "open"])
    if (actions.includes(preferred)) return preferred;
  return actions[0];
}
