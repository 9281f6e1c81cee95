// The shapes shared by the pure simulation and everything that talks to it.

import type { LeadState } from "./lead-state.ts";
import type { Episode, Reflection } from "./memory.ts";
// src/world is deterministic: the same WorldDefinition + the same inputs per tick give the same
// events, results and snapshot hash, in any process.
import type { OpeningHours } from "./opening-hours.ts";

export type EntityKind = "human" | "agent" | "object";
export type ActorKind = "human" | "agent";
export type Facing = "up" | "down" | "left" | "right";
export type ChatChannel = "proximity" | "global";

export interface TileCoord {
  tx: number;
  ty: number;
}

export interface Vec2 {
  x: number;
  y: number;
}

/** What world signals count (signals.ts says when each is counted). */
export const SIGNAL_KINDS = ["move", "chat", "interact", "arrive", "depart"] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];
export type SignalCounts = Record<SignalKind, number>;

/** One room's counts over the window. `regions` follows the map's order, zero counts included. */
export interface RoomSignalsView {
  room: SignalCounts;
  regions: { id: string; name: string; counts: SignalCounts }[];
}

/** A room's world signals: the window's length and exact start, and its counts. */
export type WorldSignals = RoomSignalsView & { windowSec: number; sinceTsMs: number };

/** PRD 6.2 Affordance. */
export interface Affordance {
  action: string;
  label: string;
  paramsSchema?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// The world definition: what a world directory (world.toml + Tiled maps) describes. Pure data.
// ---------------------------------------------------------------------------------------------

export interface SpawnPoint {
  name: string;
  tile: TileCoord;
}

export interface ObjectDefinition {
  /** `obj_<name>`, unique across the world. */
  id: string;
  objectType: string;
  name: string;
  roomId: string;
  tile: TileCoord;
  /** Properties from the Tiled object (text, targetRoom, targetTx, targetTy, open, ...). */
  props: Record<string, string | number | boolean>;
}

/** A named area of a room (a Tiled rectangle in the map's "regions" layer): world signals count
 * activity per region. Regions may nest (the fountain inside the plaza); a tile belongs to every
 * region whose rectangle covers it. */
export interface RegionDefinition {
  /** Stable id (`plaza`), unique across the world: it names the region in answers. */
  id: string;
  /** Human name (`The Plaza`). */
  name: string;
  roomId: string;
  /** Top-left tile and size in tiles; inside the room. */
  tile: TileCoord;
  widthTiles: number;
  heightTiles: number;
  /** When it is open (opening-hours.ts); a place without hours is always open. */
  hours?: OpeningHours;
}

export interface RoomDefinition {
  roomId: string;
  name: string;
  /** Stable map identifier reported by observe (PRD `room.mapId`). */
  mapId: string;
  /** Path of the Tiled JSON map relative to the world directory (served to the web client as is). */
  mapFile: string;
  widthTiles: number;
  heightTiles: number;
  tileSize: number;
  /** Row-major, widthTiles * heightTiles; 1 = blocked by the static collision layer. */
  blocked: Uint8Array;
  /** Row-major like `blocked`; 1 = water (its ground tile is marked water in the tileset), where
   * fish swim. */
  water: Uint8Array;
  spawns: SpawnPoint[];
  objects: ObjectDefinition[];
  /** Named regions in map order (at most MAX_REGIONS_PER_ROOM); empty when the map names none. */
  regions: RegionDefinition[];
}

export interface WorldDefinition {
  name: string;
  version: string;
  seed: number;
  /** Ticks per second, 10..20. */
  tickRate: number;
  /** Simulation epoch: serverTsMs = epochMs + tick * 1000 / tickRate. */
  epochMs: number;
  defaultRoomId: string;
  /** Radii in tiles. */
  chatRadiusTiles: number;
  proximityRadiusTiles: number;
  interactRangeTiles: number;
  /** A proximity change is reported after it held for this many consecutive ticks. */
  proximityDebounceTicks: number;
  /** Most others an actor is in proximity with at once (proximity.ts has the rule: nearest first
   * among those with a free place; a pair stays while within the radius). */
  proximityMaxNeighbors: number;
  /** Room-audience events (chat on the global channel, presence, object state) kept per room. */
  eventRetention: number;
  /** Events addressed to one entity (proximity, local chat) kept for it while it is in the room.
   * A cursor expires only when an event its reader could see after it was dropped (events-log.ts). */
  eventRetentionPerRecipient: number;
  /** Entity speed in world units per second. */
  walkSpeed: number;
  chatMaxLength: number;
  /** How long idempotent results are kept, in simulation seconds. */
  txTtlSec: number;
  /** At most this many idempotent results kept per actor (its oldest go first); unbounded when
   * absent (hand-made definitions). */
  txMaxPerActor?: number;
  /** SHA-256 over the world directory's files; snapshots carry it. */
  sceneHash: string;
  rooms: Record<string, RoomDefinition>;
}

// ---------------------------------------------------------------------------------------------
// Inputs: queued by callers, applied at the next tick boundary in canonical order.
// ---------------------------------------------------------------------------------------------

/** Optional guards (002: preconditions as execution guards). A guard that fails rejects the input
 * with code `conflict` and details naming the guard; nothing is applied. */
export type Guard =
  | { kind: "tick_is"; tick: number }
  | { kind: "snapshot_hash_is"; hash: string }
  | { kind: "entity_near"; entityId: string; withinTiles: number }
  | { kind: "object_state_is"; objectId: string; field: string; equals: string | number | boolean | null }
  /** The actor's view is still the one it was shown (view.ts): nothing near it changed since. */
  | { kind: "view_is"; view: string };

/** Idempotency: when present, the world stores the result under `key` (sim-time TTL) and a later
 * input with the same key returns the stored result (same payloadHash) or `conflict` (different). */
export interface TxTag {
  key: string;
  payloadHash: string;
}

interface InputBase {
  /** The acting entity (`hum_...` / `agt_...`). */
  entityId: string;
  /** When set, the input is rejected with `agent_not_in_room` unless the actor is in this room. */
  roomId?: string;
  tx?: TxTag;
  guards?: Guard[];
}

/** A traveller on its way to another world through a portal (transfers.ts): everything the target
 * world needs to place it. */
export interface Transfer {
  /** `<from world>:<tick>:<entity>`: unique, and the same however often the record is sent. */
  id: string;
  fromWorld: string;
  toWorld: string;
  roomId: string;
  tile: TileCoord;
  entityId: string;
  actorKind: ActorKind;
  name: string;
  /** The tick the traveller stepped through (the handoff's start). */
  tick: number;
}

/** The fields of the action kinds with doors (a door action, actions/action.ts): the kind's file
 * adds itself here by declaration merging, so its shape is written in that file only. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from actions/<kind>.ts
export interface ActionFields {}
/** What such a kind's rule answers besides its kind (merged like ActionFields). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from actions/<kind>.ts
export interface ActionAnswers {}
/** The fields of every other action kind, merged in the same way from its own file. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from actions/<kind>.ts
export interface ActionInputs {}
/** What such a kind's rule answers besides its kind (merged like ActionInputs). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from actions/<kind>.ts
export interface ActionValues {}

type Inputs<F> = { [K in keyof F]: InputBase & { kind: K } & F[K] }[keyof F];
type Values<A> = { [K in keyof A]: { kind: K } & A[K] }[keyof A];

/** One input of any kind: the common fields and the kind's own (actions/<kind>.ts). */
export type Input = Inputs<ActionFields> | Inputs<ActionInputs>;

export type InputKind = Input["kind"];

/** Error codes the world itself can produce (a subset of AIC's). */
export type WorldErrorCode =
  | "bad_request"
  | "not_found"
  | "agent_not_in_room"
  | "invalid_destination"
  | "collision_blocked"
  | "conflict"
  /** Applying the input threw (a bug, not bad input); only that input fails. */
  | "internal";

export interface WorldError {
  code: WorldErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type InteractOutcomeType = "ok" | "no_effect" | "invalid_action" | "too_far";

/** What an input's rule answers, by kind (actions/<kind>.ts). */
export type InputValue = Values<ActionAnswers> | Values<ActionValues>;

export type InputResult =
  | { ok: true; value: InputValue; tick: number; serverTsMs: number; replayed?: boolean }
  | { ok: false; error: WorldError; tick: number; serverTsMs: number; replayed?: boolean };

// ---------------------------------------------------------------------------------------------
// Entities, events and views.
// ---------------------------------------------------------------------------------------------

/** PRD EntityBase: what observers see of an entity. */
export interface EntityView {
  id: string;
  kind: EntityKind;
  name: string;
  roomId: string;
  pos: Vec2;
  tile: TileCoord;
  facing: Facing;
  speed?: number;
  meta?: Record<string, unknown>;
  /** Present (true) while a resident's agent turn runs. */
  thinking?: true;
  /** Present (true) while a resident cannot take turns (no model configured): it sleeps. */
  asleep?: true;
  /** Present (true) while a resident's turns fail: it cannot answer now. */
  unwell?: true;
  /** Present (true) while an agent has been quiet a while (src/plugin/quiet-agents.ts). */
  away?: true;
  /** A walk with someone (the `lead` action): whom, and how it goes or how it ended (leading.ts). */
  lead?: { with: string; state: LeadState };
}

export interface ObjectView {
  objectType: string;
  state: Record<string, unknown>;
  version: number;
  affords: Affordance[];
  /** Whose move it waits for (ObjectTypeHandler.awaits), when someone's. */
  awaits?: string;
  /** What one who looks after it would do for it now (ObjectTypeHandler.care), when anything. */
  needs?: string;
}

/** Every kind of event the world emits (the contract's EventType and the snapshot check use it). */
export const EVENT_TYPES = [
  "presence.join",
  "presence.leave",
  "proximity.enter",
  "proximity.exit",
  "chat.message",
  "object.state_changed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Who may perceive an event: everyone in the room, or only the listed entities. */
export type Audience = { kind: "room" } | { kind: "entities"; ids: string[] };

/** Never changed once appended: step results, event pages and snapshots all share the log's own
 * objects (a snapshot's events are the live ones), so nothing may mutate one. */
export interface WorldEvent {
  /** Monotonic per room, starting at 1. */
  seq: number;
  type: EventType;
  roomId: string;
  tsMs: number;
  tick: number;
  payload: Record<string, unknown>;
  audience: Audience;
  /** The entity whose action caused the event, where the payload does not already name it (an
   * object.state_changed: who opened the door). World-internal: the AIC envelope keeps the PRD's
   * payload shape; the heartbeat uses it to leave an agent's own changes out of its delta. */
  actorId?: string;
  /** A presence.leave by portal: the room the actor went to. World-internal like actorId (the PRD's
   * leave reasons have no "moved"): browsers say "went to the Garden", not "left". */
  toRoomId?: string;
  /** A presence.join by portal: the room the actor came from. */
  fromRoomId?: string;
  /** A presence.leave by portal to another world (its cluster room id); toRoomId is the room there. */
  toWorldId?: string;
}

export interface ChatMessageRecord {
  id: string;
  roomId: string;
  channel: ChatChannel;
  fromEntityId: string;
  fromName: string;
  message: string;
  tsMs: number;
  /** Entities that could hear it when it was sent (proximity) — everyone in the room for global.
   * Frozen, and shared by consecutive global chats while nobody joined or left. */
  heardBy: readonly string[];
  /** The private room (region id) it was said in: only those inside heard it (places.ts). */
  zone?: string;
}

export interface StepResult {
  tick: number;
  serverTsMs: number;
  /** Events appended during this tick, across rooms, in append order. */
  events: WorldEvent[];
  /** One result per input, in the order the inputs were given to step(). */
  results: InputResult[];
  /** Inputs whose application threw (each answered `internal`), with the cause for the host's log. */
  failures?: InputFailure[];
}

export interface InputFailure {
  /** Index of the input in the array given to step(). */
  index: number;
  message: string;
}

/** Events a recipient may see after a cursor position. */
export interface EventsPage {
  events: WorldEvent[];
  /** The seq to continue after. */
  nextSeq: number;
  /** Set when `afterSeq` fell out of the retained window: events were dropped. */
  expired?: { oldestRetainedSeq: number; droppedCount: number };
}

export const SNAPSHOT_FORMAT = "openclawworld.snapshot.v1";

export interface WorldSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  world: string;
  sceneHash: string;
  tick: number;
  /** Simulation time in ms (epoch + elapsed). */
  time: number;
  /** Everything needed for an exact restore; plain JSON. Its events are the world's own (immutable)
   * objects: read a snapshot, never change it. */
  state: Record<string, unknown>;
}

/** The public surface of the simulation (implemented by `World` in ./world.ts). Reads never mutate;
 * only step() advances state. */
/** An object's record of one actor, as that actor may be shown it (ObjectTypeHandler.recordView). */
export interface ActorRecordView {
  objectId: string;
  objectType: string;
  text: string;
  active: boolean;
  done: boolean;
}

export interface WorldApi {
  readonly definition: WorldDefinition;
  readonly tick: number;
  /** Simulation time of the current tick: epochMs + tick * 1000 / tickRate (integer ms). */
  readonly serverTsMs: number;

  /** Apply the inputs (canonical order: stable by entityId, then given order), advance one tick
   * (movement, doors, proximity with debounce, tx expiry), and return events and per-input results. */
  step(inputs: readonly Input[]): StepResult;

  getEntity(id: string): EntityView | undefined;
  /** Humans and agents present in a room, sorted by id. */
  actorsInRoom(roomId: string): EntityView[];
  /** Entities (actors and objects) within `radius` world units of `center`, nearest first, ties by id,
   * the first `limit` of them (default: all). Uses the spatial grid, never all-pairs. */
  queryRadius(
    roomId: string,
    center: Vec2,
    radius: number,
    limit?: number,
  ): { entity: EntityView; distance: number }[];
  /** The digest of what an actor sees (view.ts), or undefined for an unknown actor. */
  viewOf(entityId: string): string | undefined;
  /** Object state, version and affordances (from the one affordance registry). */
  objectView(objectId: string): ObjectView | undefined;
  /** Whether a tile is blocked right now (static collision + closed doors). */
  isBlocked(roomId: string, tile: TileCoord): boolean;

  /** Chat messages in a room sent at or after `sinceTsMs` that `recipientId` could perceive. */
  chatFor(recipientId: string, roomId: string, sinceTsMs: number, channel?: ChatChannel): ChatMessageRecord[];
  /** What someone arriving in (or coming back to) a room may read of its recent chat: the lines they
   * heard, and the lines said to the whole room (not inside a private room); the newest `limit`,
   * oldest first. */
  chatHistoryFor(recipientId: string, roomId: string, sinceTsMs: number, limit: number): ChatMessageRecord[];
  /** Events in `roomId` with seq > afterSeq that `recipientId` could perceive, at most `limit`. */
  eventsFor(recipientId: string, roomId: string, afterSeq: number, limit: number): EventsPage;
  /** Latest seq appended in a room (0 when none). */
  latestSeq(roomId: string): number;
  /** Seq of the event that began `entityId`'s current stay in `roomId` (its presence.join), if there. */
  enteredAtSeq(entityId: string, roomId: string): number | undefined;
  /** How many events a room's log retains now (bounded by the world's event retention). */
  retainedEventCount(roomId: string): number;

  /** An agent's memory (copies), or undefined when it has none. Callers decide who may read it. */
  memoryOf(entityId: string): { reflections: Reflection[]; episodes: Episode[] } | undefined;
  /** Activity counts per kind in a room and each of its regions over the recent window of simulation
   * time (world signals, see signals.ts); undefined for an unknown room. */
  signals(roomId: string): WorldSignals | undefined;
  /** The regions covering a tile, smallest (most specific) first, ties by id. */
  regionsAt(roomId: string, tile: TileCoord): RegionDefinition[];
  /** What objects keep about an actor (a tour's progress), in words for that actor, by object. */
  recordsOf(entityId: string): ActorRecordView[];
  /** The regions of a room that are private right now (their private_room object says so): chat
   * inside is heard only inside (places.ts `withinHearing`). */
  privateRegions(roomId: string): RegionDefinition[];
  /** The places of a room closed now by their opening hours. */
  closedPlaces(roomId: string): readonly RegionDefinition[];

  /** The answer to an input carrying `tx` whose key is already used (not expired): the stored result
   * (marked `replayed`) for the same payload, a conflict for another; undefined for a new key. The
   * one replay rule: the world applies it to every input, and the contract asks it before queueing
   * so a replay is answered without waiting for a tick. */
  replayTx(tx: { key: string; payloadHash: string }): InputResult | undefined;
  /** A stored idempotent result, if the key is known and not expired. */
  lookupTx(key: string): { payloadHash: string; result: InputResult } | undefined;

  snapshot(): WorldSnapshot;
  /** SHA-256 (hex) of the canonical JSON (RFC 8785) of snapshot(). */
  snapshotHash(): string;

  /** Travellers recorded as leaving for another world and not yet marked sent, oldest first. */
  outgoingTransfers(): readonly Transfer[];
  /** The world (cluster room id) `entityId` left for by portal, while it has not come back. */
  departedTo(entityId: string): string | undefined;
}
