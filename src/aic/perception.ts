// Delta perception and grounded suggestions for the heartbeat (seed 003 sections 1-2),
// computed from what the world already records: the room's event log as this agent may perceive it,
// and the scene around it. Pure reads of WorldApi; nothing here changes the world.
import { hearingZoneAt } from "../world/places.ts";
import { type EntityView, SIGNAL_KINDS, type WorldApi, type WorldEvent } from "../world/types.ts";
import { VIEW_RADIUS_TILES } from "../world/view.ts";
import {
  type ClosedPlaceT,
  type HeartbeatDeltaT,
  MAX_DELTA_ITEMS,
  MAX_HEARTBEAT_REGIONS,
  MAX_SUGGESTIONS,
  type PlaceT,
  type RegionActivityT,
  type SuggestionT,
  type TileCoordT,
} from "./schemas.ts";

/** At most this many perceivable events are read per heartbeat; more sets `truncated`. */
export const MAX_DELTA_SCAN = 1000;
/** Objects farther than this (tiles) are not suggested: what the agent's view covers. */
const SUGGEST_RADIUS_TILES = VIEW_RADIUS_TILES;

export interface DeltaResult {
  delta: HeartbeatDeltaT;
  /** Where the next delta starts. */
  nextSeq: number;
}

/** Whether an event is this entity's own doing (never part of its delta). */
export function isOwnEvent(event: WorldEvent, selfId: string): boolean {
  // The world names the actor of an object change (a door this agent opened) at event level.
  if (event.actorId === selfId) return true;
  const p = event.payload;
  switch (event.type) {
    case "presence.join":
    case "presence.leave":
      return p.entityId === selfId;
    case "chat.message":
      return p.fromEntityId === selfId;
    default:
      return false;
  }
}

/** What changed for `selfId` in `roomId` after `afterSeq`, its own actions excluded. */
export function computeDelta(
  world: WorldApi,
  selfId: string,
  roomId: string,
  afterSeq: number,
  moveDest: TileCoordT | undefined,
): DeltaResult {
  const page = world.eventsFor(selfId, roomId, afterSeq, MAX_DELTA_SCAN);
  const latest = world.latestSeq(roomId);
  const near = new Map<string, "arrived" | "departed">();
  const heard: HeartbeatDeltaT["heard"] = [];
  const objects = new Set<string>();
  let truncated = page.expired !== undefined || page.nextSeq < latest;
  for (const event of page.events) {
    if (isOwnEvent(event, selfId)) continue;
    const p = event.payload;
    switch (event.type) {
      case "proximity.enter":
      case "proximity.exit":
        if (p.subjectId !== selfId || typeof p.otherId !== "string") break;
        // The net change: someone who came and went again is "departed", not both.
        near.delete(p.otherId);
        near.set(p.otherId, event.type === "proximity.enter" ? "arrived" : "departed");
        break;
      case "chat.message":
        heard.push({
          from: p.fromEntityId as string,
          name: world.getEntity(p.fromEntityId as string)?.name ?? (p.fromEntityId as string),
          channel: p.channel as "proximity" | "global",
          message: p.message as string,
        });
        break;
      case "object.state_changed":
        objects.delete(p.objectId as string);
        objects.add(p.objectId as string);
        break;
    }
  }
  const named = (id: string) => ({ id, name: world.getEntity(id)?.name ?? id });
  const arrived = [...near].filter(([, s]) => s === "arrived").map(([id]) => named(id));
  const departed = [...near].filter(([, s]) => s === "departed").map(([id]) => named(id));
  // Keep the most recent entries when a list is over its bound.
  const lastN = <T>(list: T[]): T[] => {
    if (list.length > MAX_DELTA_ITEMS) truncated = true;
    return list.slice(-MAX_DELTA_ITEMS);
  };
  const delta: HeartbeatDeltaT = {};
  // Empty lists are left out: an agent pays for every token of a quiet heartbeat.
  if (arrived.length) delta.arrived = lastN(arrived);
  if (departed.length) delta.departed = lastN(departed);
  if (heard.length) delta.heard = lastN(heard);
  if (objects.size) {
    delta.objects = lastN(
      [...objects].map((id) => ({ id, state: { ...(world.objectView(id)?.state ?? {}) } })),
    );
  }
  const self = world.getEntity(selfId);
  if (moveDest && self) {
    const arrivedAtDest = self.tile.tx === moveDest.tx && self.tile.ty === moveDest.ty;
    const status = arrivedAtDest ? "arrived" : (self.speed ?? 0) > 0 ? "moving" : "stopped";
    delta.move = { dest: { tx: moveDest.tx, ty: moveDest.ty }, status };
  }
  if (truncated) delta.truncated = true;
  return { delta, nextSeq: latest };
}

/** Where the agent stands and the recent activity around it (world signals): its most specific
 * region first when anything happened there, then the busiest other regions of its room (by total,
 * ties by id), at most MAX_HEARTBEAT_REGIONS, zero counts left out. Everyone's actions count, its own
 * too: these are the room's aggregates, not the delta. */
export function regionActivity(
  world: WorldApi,
  selfId: string,
): { region?: string; signals?: Record<string, RegionActivityT> } {
  const self = world.getEntity(selfId);
  if (!self) return {};
  const region = world.regionsAt(self.roomId, self.tile)[0]?.id;
  const view = world.signals(self.roomId);
  const active = (view?.regions ?? [])
    .map((r) => ({ id: r.id, counts: r.counts, total: SIGNAL_KINDS.reduce((n, k) => n + r.counts[k], 0) }))
    .filter((r) => r.total > 0)
    .sort((a, b) =>
      a.id === region ? -1 : b.id === region ? 1 : b.total - a.total || (a.id < b.id ? -1 : 1),
    );
  const signals: Record<string, RegionActivityT> = {};
  for (const r of active.slice(0, MAX_HEARTBEAT_REGIONS)) {
    const entry: RegionActivityT = {};
    for (const kind of SIGNAL_KINDS) if (r.counts[kind] > 0) entry[kind] = r.counts[kind];
    signals[r.id] = entry;
  }
  return { ...(region ? { region } : {}), ...(active.length ? { signals } : {}) };
}

/** Where an actor stands, named: its most specific region, and whether it is in a private room now
 * (heartbeat `self.place`, observe `self.meta.place`). */
export function placeOf(world: WorldApi, self: EntityView): PlaceT | undefined {
  const region = world.regionsAt(self.roomId, self.tile)[0];
  if (!region) return undefined;
  const inPrivate =
    hearingZoneAt(world.privateRegions(self.roomId), self.tile.tx, self.tile.ty) !== undefined;
  return {
    id: region.id,
    name: region.name,
    ...(inPrivate ? { private: true as const } : {}),
    ...(region.hours ? { hours: { opens: region.hours.opens, closes: region.hours.closes } } : {}),
  };
}

/** The places of a room closed now and when each opens (heartbeat `closedPlaces`, observe
 * `self.meta.closedPlaces`); undefined when none is. */
export function closedPlacesOf(world: WorldApi, roomId: string): ClosedPlaceT[] | undefined {
  const closed = world.closedPlaces(roomId);
  if (closed.length === 0) return undefined;
  return closed.map((p) => ({ id: p.id, name: p.name, opensAt: p.hours!.opens }));
}

/** A few next actions grounded in the scene: answer someone who spoke, use an object in reach, or
 * walk up to one that is not. Nearest first, at most MAX_SUGGESTIONS. */
export function suggestActions(world: WorldApi, selfId: string, delta: HeartbeatDeltaT): SuggestionT[] {
  const self = world.getEntity(selfId);
  if (!self) return [];
  const suggestions: SuggestionT[] = [];
  const spoke = delta.heard?.at(-1);
  if (spoke) {
    suggestions.push({
      why: clip(`answer ${spoke.name}`),
      action: { kind: "chatSend", channel: spoke.channel },
    });
  }
  const room = world.definition.rooms[self.roomId];
  if (!room) return suggestions;
  const ts = room.tileSize;
  const reach = world.definition.interactRangeTiles * ts;
  for (const hit of world.queryRadius(self.roomId, self.pos, SUGGEST_RADIUS_TILES * ts)) {
    if (suggestions.length >= MAX_SUGGESTIONS) break;
    if (hit.entity.kind !== "object") continue;
    const object = world.objectView(hit.entity.id);
    const afford = object?.affords[0];
    if (!afford) continue;
    const target = hit.entity.tile;
    const centre = Math.hypot((target.tx + 0.5) * ts - self.pos.x, (target.ty + 0.5) * ts - self.pos.y);
    if (centre <= reach) {
      suggestions.push({
        why: clip(`${hit.entity.name} in reach: ${afford.label}`),
        action: { kind: "interact", targetId: hit.entity.id, action: afford.action },
      });
      continue;
    }
    const dest = freeNeighbour(world, self.roomId, target, room.widthTiles, room.heightTiles);
    if (!dest) continue;
    suggestions.push({
      why: clip(`walk to ${hit.entity.name} (${afford.label})`),
      action: { kind: "moveTo", dest },
    });
  }
  return suggestions;
}

function freeNeighbour(
  world: WorldApi,
  roomId: string,
  tile: TileCoordT,
  width: number,
  height: number,
): TileCoordT | undefined {
  for (const [dx, dy] of [
    [0, 1],
    [0, -1],
    [-1, 0],
    [1, 0],
  ] as const) {
    const candidate = { tx: tile.tx + dx, ty: tile.ty + dy };
    if (candidate.tx < 0 || candidate.ty < 0 || candidate.tx >= width || candidate.ty >= height) continue;
    if (!world.isBlocked(roomId, candidate)) return candidate;
  }
  return undefined;
}

function clip(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
}
