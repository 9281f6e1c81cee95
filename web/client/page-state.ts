// What the live page knows of the world and of this player, shared by its panels; and the two small
// DOM helpers they all use.

import { isolate } from "./bidi.ts";
import type { ConnState } from "./net.ts";
import type { Notice } from "./notices.ts";
import type { MapPlace, WireRoom } from "./scene.ts";

export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Touch first (a phone or tablet): no keys, no hover. */
export const touchFirst = () => window.matchMedia("(pointer: coarse)").matches || window.innerWidth < 600;

export interface RosterEntry {
  id: string;
  name: string;
  kind: "human" | "agent";
  away?: boolean;
}

export interface WireEvent {
  type: string;
  seq: number;
  tsMs?: number;
  payload: Record<string, unknown>;
}

export const state = {
  status: "connecting" as ConnState,
  entityId: undefined as string | undefined,
  room: undefined as WireRoom | undefined,
  roster: new Map<string, RosterEntry>(),
  chat: [] as { from: string; fromName: string; channel: string; message: string }[],
  /** Chat lines already shown, by message id (history on join and live lines never double). */
  chatSeen: new Set<string>(),
  /** The name asked for on the form or in the address, and the one the world gave. */
  requestedName: "",
  name: "",
  place: undefined as MapPlace | undefined,
  errors: [] as { code: string; message: string }[],
  notices: [] as Notice[],
  lastResult: undefined as unknown,
  joined: false,
};

/** Someone's name as it is shown in a sentence. */
export function nameOf(id: string): string {
  return isolate(state.roster.get(id)?.name ?? id);
}
