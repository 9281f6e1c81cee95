// The pointer on the map: what a click on a tile means (use an object, talk to someone, walk there)
// and the ring that marks it; what hovering offers (a usable object outlined with what a click does,
// someone to talk to, or why a resident cannot answer now). The scene finds what is on the tile; the
// page shows the label as a tooltip.
import type * as Phaser from "phaser";
import type { WireEntity, WireObject, WireRoom } from "../../src/http/humans/protocol.ts";
import { isolate } from "./bidi.ts";
import type { Minimap } from "./minimap.ts";
import { asleepCard, unwellCard } from "./name-tag.ts";
import { naturalAction } from "./room-objects.ts";
import type { HoverInfo, SceneCallbacks } from "./scene-callbacks.ts";

export const hoverId = (info: HoverInfo | undefined) => info?.object?.id ?? info?.actorId;

/** What is on a tile, as far as the pointer cares. `otherAt` is absent on a page without chat (and
 * for a click on the minimap, which only walks). */
export interface TileFinder {
  objectAt(tx: number, ty: number): WireObject | undefined;
  notAnsweringAt(tx: number, ty: number): WireEntity | undefined;
  otherAt?(tx: number, ty: number): WireEntity | undefined;
}

/** What the pointer over a tile offers: someone who stands there (drawn over what they stand on: a
 * free chair, a doorway) comes before the object under them, as a click does. */
export function hoverOnTile(
  tx: number,
  ty: number,
  pointer: { x: number; y: number },
  find: TileFinder,
): HoverInfo | undefined {
  const resident = find.notAnsweringAt(tx, ty);
  if (resident) {
    const card = resident.asleep ? asleepCard(resident.name) : unwellCard(resident.name);
    return { actorId: resident.id, label: card, x: pointer.x, y: pointer.y };
  }
  const other = find.otherAt?.(tx, ty);
  if (other)
    return {
      actorId: other.id,
      talk: true,
      label: `Talk to ${isolate(other.name)}`,
      x: pointer.x,
      y: pointer.y,
    };
  const target = find.objectAt(tx, ty);
  const action = target ? naturalAction(target) : undefined;
  const label = target && action ? target.affords.find((a) => a.action === action)?.label : undefined;
  return target && label ? { object: target, label, x: pointer.x, y: pointer.y } : undefined;
}

/** The hovered object outlined on its tile. */
export function outlineObject(g: Phaser.GameObjects.Graphics, object: WireObject, size: number): void {
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

/** What a click on a tile means. */
type TileClick =
  | { interact: { objectId: string; action: string } }
  | { talkTo: string }
  | { moveTo: { tx: number; ty: number } };

/** A click on a tile: "talk to" someone awake there (walk up, address them), else an object's
 * natural action (a free chair someone stands on is theirs to leave first), else a walk there.
 * `objectAt` is absent on the minimap. */
export function clickOnTile(tx: number, ty: number, find: Partial<TileFinder>): TileClick {
  const other = find.otherAt?.(tx, ty);
  if (other && !other.asleep) return { talkTo: other.id };
  const target = find.objectAt?.(tx, ty);
  const action = target ? naturalAction(target) : undefined;
  if (target && action) return { interact: { objectId: target.id, action } };
  return { moveTo: { tx, ty } };
}

/** A short-lived ring where the player clicked, tinted by what the click meant. */
export function markTile(
  scene: Phaser.Scene,
  worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T,
  tx: number,
  ty: number,
  size: number,
  tint: number,
): void {
  const ring = worldOnly(
    scene.add
      .image((tx + 0.5) * size, (ty + 0.5) * size, "marker")
      .setDepth(4)
      .setTint(tint),
  );
  scene.tweens.add({
    targets: ring,
    alpha: 0,
    scale: 0.6,
    delay: 600,
    duration: 900,
    ease: "Quad.easeIn",
    onComplete: () => ring.destroy(),
  });
}

/** What the pointer hovers now, drawn: the object's outline and the hand cursor. */
class HoverMark {
  private gfx: Phaser.GameObjects.Graphics | undefined;
  /** What is hovered and its label (tests read it; a change of either is shown). */
  current: { id: string; label: string } | undefined;

  /** From the scene's create(): until then nothing is drawn. */
  create(gfx: Phaser.GameObjects.Graphics): void {
    this.gfx = gfx;
  }

  show(
    info: HoverInfo | undefined,
    input: Phaser.Input.InputPlugin | undefined,
    tileSize: number | undefined,
  ): void {
    const g = this.gfx?.clear();
    const object = info?.object;
    // A hand only where a click does something (an object, someone to talk to); a sleeper's card
    // is to read.
    input?.setDefaultCursor(object || info?.talk ? "pointer" : "default");
    this.current = info ? { id: hoverId(info)!, label: info.label } : undefined;
    if (object && g && tileSize !== undefined) outlineObject(g, object, tileSize);
  }

  /** Whether `now` says something else than what is shown. */
  differs(now: HoverInfo | undefined): boolean {
    return hoverId(now) !== this.current?.id || now?.label !== this.current?.label;
  }
}

/** What the pointer needs of its scene (the room and the callbacks are read each time: they change). */
export interface PointerHost extends Required<TileFinder> {
  scene: Phaser.Scene;
  minimap: Minimap;
  room(): WireRoom | undefined;
  callbacks(): SceneCallbacks | undefined;
  blockedAt(tx: number, ty: number): boolean | undefined;
  markTile(tx: number, ty: number, tint: number): void;
}

/** The pointer on one scene's map: a click becomes an intent, hovering a tooltip. */
export class MapPointer {
  readonly mark = new HoverMark();
  private readonly host: PointerHost;

  constructor(host: PointerHost) {
    this.host = host;
  }

  click(pointer: Phaser.Input.Pointer): void {
    const { host } = this;
    const callbacks = host.callbacks()!;
    callbacks.worldPointer();
    const room = host.room();
    if (!room) return;
    const mini = host.minimap.camera;
    const inMini = host.minimap.isOver(pointer);
    const point = (inMini ? mini : host.scene.cameras.main).getWorldPoint(pointer.x, pointer.y);
    const tx = Math.floor(point.x / room.tileSize);
    const ty = Math.floor(point.y / room.tileSize);
    if (tx < 0 || ty < 0 || tx >= room.widthTiles || ty >= room.heightTiles) return;
    const click = clickOnTile(tx, ty, {
      ...(inMini ? {} : { objectAt: host.objectAt }),
      ...(inMini || !callbacks.talkTo ? {} : { otherAt: host.otherAt }),
    });
    if ("interact" in click) {
      host.markTile(tx, ty, 0xffe27a);
      callbacks.interact(click.interact.objectId, click.interact.action);
    } else if ("talkTo" in click) {
      host.markTile(tx, ty, 0xffe27a);
      callbacks.talkTo?.(click.talkTo);
    } else {
      host.markTile(tx, ty, host.blockedAt(tx, ty) ? 0xff5a5a : 0xffffff);
      callbacks.moveTo(tx, ty);
    }
  }

  /** The pointer over the world: a usable object under it is outlined, the cursor becomes a hand and
   * a tooltip says what a click does. */
  hover(pointer: Phaser.Input.Pointer): void {
    if (!this.host.room()) return;
    this.set(this.at(pointer));
  }

  /** The usable object under the pointer and what a click on it does now. */
  private at(pointer: Phaser.Input.Pointer): HoverInfo | undefined {
    const { host } = this;
    const room = host.room();
    if (!room || host.minimap.isOver(pointer)) return undefined;
    const point = host.scene.cameras.main.getWorldPoint(pointer.x, pointer.y);
    const tx = Math.floor(point.x / room.tileSize);
    const ty = Math.floor(point.y / room.tileSize);
    return hoverOnTile(tx, ty, pointer, {
      objectAt: host.objectAt,
      notAnsweringAt: host.notAnsweringAt,
      ...(host.callbacks()?.talkTo ? { otherAt: host.otherAt } : {}),
    });
  }

  /** A tooltip shown says what a click does now: the object changed (a door opened) or the camera
   * moved it from under a still pointer, and it follows or goes. */
  refresh(): void {
    if (!this.mark.current) return;
    const now = this.at(this.host.scene.input.activePointer);
    if (this.mark.differs(now)) this.set(now);
  }

  set(info: HoverInfo | undefined): void {
    this.mark.show(info, this.host.scene.input, this.host.room()?.tileSize);
    this.host.callbacks()?.hover(info);
  }
}
