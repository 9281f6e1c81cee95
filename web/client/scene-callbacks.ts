// What a page hands the world scene: the live page, the replay and the follow page each answer
// clicks, keys and the pointer in their own way (a replay only watches).
import type { WireObject } from "../../src/http/humans/protocol.ts";
import type { MapPlace } from "./room-map.ts";

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
