// A person or resident as the scene draws it: body, name tag and chat bubble in one container that
// glides toward the server's position (positions are the server's; only the smoothing is ours).
import type * as Phaser from "phaser";
import type { WireEntity } from "../../src/http/humans/protocol.ts";
import { tagText } from "./name-tag.ts";
import { agentKey, avatarKey, defaultLook } from "./textures.ts";

export interface ActorView {
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

/** Where a name tag's bottom sits above an actor's position. */
export const TAG_Y = 18;
const LABEL_STYLE = {
  fontFamily: "system-ui, sans-serif",
  fontSize: "11px",
  stroke: "#000000",
  strokeThickness: 3,
  resolution: 3,
};

export function actorTexture(a: { data: WireEntity }, frame: number): string {
  // A configured look (a resident) draws an agent as a person; its tag still says AI.
  return a.data.kind === "agent" && a.data.look === undefined
    ? agentKey(a.data.facing, frame)
    : avatarKey(a.data.look ?? defaultLook(a.data.id), a.data.facing, frame);
}

/** A new actor's view; `worldOnly` keeps it off the minimap. */
export function makeActorView(
  scene: Phaser.Scene,
  e: WireEntity,
  isMe: boolean,
  worldOnly: <T extends Phaser.GameObjects.GameObject>(object: T) => T,
): ActorView {
  const parts: Phaser.GameObjects.GameObject[] = [];
  if (isMe) parts.push(scene.add.image(0, 8, "ring"));
  const view = { data: e } as ActorView;
  const body = scene.add.image(0, -2, actorTexture(view, 0));
  parts.push(body);
  const label = scene.add
    .text(0, -TAG_Y, "", {
      ...LABEL_STYLE,
      color: isMe ? "#ffe27a" : e.kind === "agent" ? "#ffc46b" : "#ffffff",
    })
    .setOrigin(0.5, 1);
  parts.push(label);
  const container = worldOnly(scene.add.container(e.x, e.y, parts).setDepth(10 + (isMe ? 1 : 0)));
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
  refreshTag(view);
  return view;
}

export function refreshTag(a: ActorView): void {
  a.away = a.data.away === true;
  a.label.setText(tagText(a.data, a.away));
  // Away, asleep and unwell are drawn faded: present, not answering now.
  a.container.setAlpha(a.away ? 0.45 : a.data.asleep || a.data.unwell ? 0.55 : 1);
}

/** Whether a change touches what the tag says or how faded the actor is. */
export function changesTag(change: Partial<WireEntity>): boolean {
  return (
    change.name !== undefined ||
    change.away !== undefined ||
    change.thinking !== undefined ||
    change.asleep !== undefined ||
    change.unwell !== undefined
  );
}

/** One frame of an actor: closer to the server's position, walking or standing or seated, and its
 * bubble gone once read. */
export function stepActor(a: ActorView, time: number, delta: number, onSeat: () => boolean): void {
  // Smooth toward the server's positions; jumps (portals, resume) snap, and so does the last hundredth
  // of a pixel: an approach that never quite arrives left people standing a hair apart from where the
  // replay draws them, and the order their name tags stack in followed that hair.
  const k = Math.min(1, (delta / 1000) * 12);
  const dx = a.data.x - a.shown.x;
  const dy = a.data.y - a.shown.y;
  const far = Math.abs(dx) + Math.abs(dy);
  if (far > 96 || far < 0.01) a.shown = { x: a.data.x, y: a.data.y };
  else a.shown = { x: a.shown.x + dx * k, y: a.shown.y + dy * k };
  a.container.setPosition(a.shown.x, a.shown.y);
  // Walk cycle while moving, standing frame when still; seated, lower and without legs showing.
  const moving = Math.abs(dx) + Math.abs(dy) > 0.75;
  const seated = !moving && onSeat();
  const key = actorTexture(a, moving ? 1 + (Math.floor(time / 160) % 2) : 0);
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

/** Another person or resident standing on the tile (not the viewer). */
export function otherAt(
  actors: Map<string, ActorView>,
  meId: string | undefined,
  tx: number,
  ty: number,
): WireEntity | undefined {
  for (const a of actors.values())
    if (a.data.id !== meId && a.data.tx === tx && a.data.ty === ty) return a.data;
  return undefined;
}

/** A resident that cannot answer now (asleep, or its turns fail) standing on the tile (its body
 * covers about one tile). */
export function notAnsweringAt(
  actors: Map<string, ActorView>,
  tx: number,
  ty: number,
): WireEntity | undefined {
  for (const a of actors.values())
    if ((a.data.asleep || a.data.unwell) && a.data.tx === tx && a.data.ty === ty) return a.data;
  return undefined;
}
