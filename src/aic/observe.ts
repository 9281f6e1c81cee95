// The answers of the reads that look at the scene: observe (self, the nearest entities and what
// objects afford) and chatObserve, plus the caller's own working memory (observe and heartbeat).
import { selectWorkingMemory } from "../world/memory.ts";
import type { EntityView, WorldApi } from "../world/types.ts";
import type { Actor } from "./actions.ts";
import { notInRoom } from "./admission.ts";
import { type AicResult, ok } from "./errors.ts";
import { closedPlacesOf, placeOf } from "./perception.ts";
import {
  type ChatObserveRequestT,
  type ChatObserveResponse,
  type EntityBaseT,
  MAX_AFFORDS,
  MAX_CHAT_MESSAGES,
  MAX_NEARBY,
  type MemoryEntryT,
  type ObservedEntityT,
  type ObserveRequestT,
  type ObserveResponse,
} from "./schemas.ts";

/** `POST /observe`, admitted. */
export function observeAnswer(
  world: WorldApi,
  request: ObserveRequestT,
  actor: Actor,
): AicResult<ObserveResponse> {
  const self = world.getEntity(actor.entityId);
  if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
  const room = world.definition.rooms[request.roomId]!;
  const full = request.detail === "full";
  const nearby: ObservedEntityT[] = [];
  // One more than the answer holds: the caller itself may be among the nearest.
  for (const hit of world.queryRadius(request.roomId, self.pos, request.radius, MAX_NEARBY + 1)) {
    if (!request.includeSelf && hit.entity.id === self.id) continue;
    if (nearby.length >= MAX_NEARBY) break;
    nearby.push(observed(world, hit.entity, hit.distance, full));
  }
  const place = placeOf(world, self);
  // In self.meta: the PRD's observe answer is closed but for meta, so the digest rides there.
  const view = world.viewOf(actor.entityId);
  const closedPlaces = closedPlacesOf(world, request.roomId);
  const meta = {
    ...(full ? self.meta : {}),
    ...(place ? { place } : {}),
    ...(closedPlaces ? { closedPlaces } : {}),
    ...(view ? { view } : {}),
  };
  const data: ObserveResponse = {
    self: { ...entityBase(self, full), ...(Object.keys(meta).length ? { meta } : {}) },
    nearby,
    serverTsMs: world.serverTsMs,
    room: { roomId: room.roomId, mapId: room.mapId, tickRate: world.definition.tickRate },
  };
  if (request.memory !== undefined) data.memory = workingMemory(world, actor.entityId, request.memory);
  return ok(data);
}

/** `POST /chatObserve`, admitted. */
export function chatObserveAnswer(
  world: WorldApi,
  request: ChatObserveRequestT,
  actor: Actor,
): AicResult<ChatObserveResponse> {
  const self = world.getEntity(actor.entityId);
  if (!self || self.roomId !== request.roomId) return notInRoom(request.agentId, request.roomId);
  const now = world.serverTsMs;
  const records = world.chatFor(
    actor.entityId,
    request.roomId,
    Math.max(0, now - request.windowSec * 1000),
    request.channel,
  );
  const messages = records.slice(-MAX_CHAT_MESSAGES).map((m) => ({
    id: m.id,
    roomId: m.roomId,
    channel: m.channel,
    fromEntityId: m.fromEntityId,
    fromName: m.fromName,
    message: m.message,
    tsMs: m.tsMs,
  }));
  return ok({ messages, serverTsMs: now });
}

/** The caller's own working memory (never another agent's: the entity is the admitted actor's). */
export function workingMemory(world: WorldApi, entityId: string, limit: number): MemoryEntryT[] {
  const memory = world.memoryOf(entityId);
  if (!memory) return [];
  return selectWorkingMemory(memory, world.serverTsMs, limit).map((entry) =>
    entry.kind === "reflection"
      ? {
          kind: "reflection",
          id: entry.id,
          tsMs: entry.tsMs,
          content: entry.content,
          topics: entry.topics,
          importance: entry.importance,
        }
      : { kind: "episode", id: entry.id, tsMs: entry.tsMs, what: entry.what, text: entry.text },
  );
}

function observed(world: WorldApi, view: EntityView, distance: number, full: boolean): ObservedEntityT {
  const entry: ObservedEntityT = {
    entity: entityBase(view, full),
    distance: Math.min(1_000_000, Math.max(0, distance)),
    affords: [],
  };
  if (view.kind === "object") {
    const object = world.objectView(view.id);
    if (object) {
      entry.affords = object.affords.slice(0, MAX_AFFORDS).map((a) => ({ ...a }));
      if (full) entry.object = { objectType: object.objectType, state: object.state };
    }
  }
  return entry;
}

function entityBase(view: EntityView, full: boolean): EntityBaseT {
  const base: EntityBaseT = {
    id: view.id,
    kind: view.kind,
    name: view.name,
    roomId: view.roomId,
    pos: { x: view.pos.x, y: view.pos.y },
    tile: { tx: view.tile.tx, ty: view.tile.ty },
    facing: view.facing,
  };
  if (view.speed !== undefined) base.speed = view.speed;
  if (full && view.meta !== undefined) base.meta = view.meta;
  return base;
}

/** Values that hold for one tick of one world: cleared when either moves on. Bounded. */
export class TickCache<V> {
  private world: unknown;
  private tick = -1;
  private readonly entries = new Map<string, V>();
  private readonly maxEntries: number;
  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  get(world: unknown, tick: number, key: string): V | undefined {
    if (world !== this.world || tick !== this.tick) return undefined;
    return this.entries.get(key);
  }

  set(world: unknown, tick: number, key: string, value: V): void {
    if (world !== this.world || tick !== this.tick) {
      this.world = world;
      this.tick = tick;
      this.entries.clear();
    }
    if (this.entries.size < this.maxEntries) this.entries.set(key, value);
  }
}
