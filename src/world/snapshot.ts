// Snapshots: capture the world's state as plain JSON, validate a saved one as strictly as a request
// (002: no unknown keys, bounded arrays, unique ids; malformed input is rejected, never coerced), and
// hash canonically (SHA-256 of RFC 8785 JSON, so key order never matters). World keeps only thin
// wrappers (snapshot(), World.restore) around these functions.
import { createHash } from "node:crypto";
import * as z from "zod";
import { type Actor, compareIds, NO_PATH } from "./actor.ts";
import { canonicalJson } from "./canonical-json.ts";
import { sameIds } from "./chat-history.ts";
import { DEPARTED_FLOORS, type DropFloors } from "./events-log.ts";
import { REGION_ID_PATTERN } from "./ids.ts";
import { LEAD_STATES } from "./lead-state.ts";
import {
  AgentMemory,
  EPISODE_KINDS,
  MEMORY_ID_PATTERN,
  MEMORY_LIMITS,
  memorySeq,
  TOPIC_PATTERN,
} from "./memory.ts";
import { MAX_RECORDS_PER_OBJECT, type ObjectRecords } from "./object-records.ts";
import { objectType } from "./objects/object-registry.ts";
import type { ObjectStateValue } from "./objects/object-type.ts";
import type { ProximityRecord, ProximityTracker } from "./proximity.ts";
import type { Room, WorldObject } from "./room.ts";
import { SIGNAL_KINDS, SIGNAL_WINDOW_BUCKETS, signalBucketOf } from "./signals.ts";
import { tickToMs } from "./time.ts";
import {
  APPLIED_TRANSFERS_KEPT,
  DEPARTURES_KEPT,
  type TransferBook,
  type TransferState,
} from "./transfers.ts";
import type { TxStore } from "./tx-store.ts";
import {
  type ChatMessageRecord,
  EVENT_TYPES,
  type InputResult,
  SNAPSHOT_FORMAT,
  type WorldDefinition,
  type WorldEvent,
  type WorldSnapshot,
} from "./types.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

export { canonicalJson, jsonPieces } from "./canonical-json.ts";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

// ---- the state schema -----------------------------------------------------------------------

/** Upper bound for every array in a snapshot (002: bounded arrays); far above any demo scale. */
const MAX_ITEMS = 1_000_000;
const ACTOR_ID = /^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/;
const ENTITY_ID = /^(hum|agt|obj)_[a-zA-Z0-9._-]{1,64}$/;
const ROOM_ID = /^[a-zA-Z0-9._-]{1,64}$/;
const AGENT_ENTITY_ID = /^agt_[a-zA-Z0-9._-]{1,64}$/;

const Int = z.int();
const NonNegInt = z.int().min(0);
const Finite = z.number().refine(Number.isFinite, "must be a finite number");
const Items = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ITEMS);

/** A list whose items' `key` values are unique (002: unique ids). */
function uniqueBy<T extends z.ZodType>(item: T, key: (value: z.output<T>) => string, what: string) {
  return Items(item).superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((value, index) => {
      const id = key(value);
      if (seen.has(id)) ctx.addIssue({ code: "custom", path: [index], message: `duplicate ${what} ${id}` });
      seen.add(id);
    });
  });
}

const ActorRecord = z.strictObject({
  id: z.string().regex(ACTOR_ID),
  kind: z.enum(["human", "agent"]),
  name: z.string().min(1).max(64),
  roomId: z.string().regex(ROOM_ID),
  x: Finite,
  y: Finite,
  facing: z.enum(["up", "down", "left", "right"]),
  handle: z.int().min(1),
  path: Items(NonNegInt),
  pathIndex: NonNegInt,
  dest: z.int().min(-1),
  dirX: z.int().min(-1).max(1),
  dirY: z.int().min(-1).max(1),
  moving: z.boolean(),
  /** Absent when false, so a world without residents hashes as before. */
  thinking: z.literal(true).optional(),
  asleep: z.literal(true).optional(),
  unwell: z.literal(true).optional(),
  away: z.literal(true).optional(),
  /** A walk with a follower (leading.ts); absent when none, so a world without one hashes as before. */
  lead: z
    .strictObject({
      with: z.string().regex(ACTOR_ID),
      roomId: z.string().regex(ROOM_ID),
      goal: NonNegInt,
      state: z.enum(LEAD_STATES),
      waitedTicks: NonNegInt,
    })
    .optional(),
});
type ActorRecord = z.output<typeof ActorRecord>;

const Audience = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("room") }),
  z.strictObject({ kind: z.literal("entities"), ids: Items(z.string().regex(ENTITY_ID)) }),
]);

const EventRecord = z.strictObject({
  seq: z.int().min(1),
  type: z.enum(EVENT_TYPES),
  roomId: z.string().regex(ROOM_ID),
  tsMs: NonNegInt,
  tick: NonNegInt,
  payload: z.record(z.string(), z.unknown()),
  audience: Audience,
  actorId: z.string().regex(ACTOR_ID).optional(),
  toRoomId: z.string().regex(ROOM_ID).optional(),
  fromRoomId: z.string().regex(ROOM_ID).optional(),
  toWorldId: z.string().regex(ROOM_ID).optional(),
});

/** One signal bucket: counts per kind (SIGNAL_KINDS order) for the room and its active regions. */
const SignalCountsRecord = z.array(NonNegInt).length(SIGNAL_KINDS.length);
const SignalBucketRecord = z.strictObject({
  bucket: NonNegInt,
  room: SignalCountsRecord,
  regions: z.record(z.string().regex(REGION_ID_PATTERN), SignalCountsRecord),
});

const ChatRecord = z.strictObject({
  id: z.string().regex(/^msg_[A-Za-z0-9._-]{8,128}$/),
  roomId: z.string().regex(ROOM_ID),
  channel: z.enum(["proximity", "global"]),
  fromEntityId: z.string().regex(ENTITY_ID),
  fromName: z.string().min(1).max(64),
  message: z.string().min(1).max(500),
  tsMs: NonNegInt,
  // An index into the room's `hearers`; snapshots written before those hold the ids themselves.
  heardBy: z.union([NonNegInt, Items(z.string().regex(ENTITY_ID))]),
  zone: z.string().regex(REGION_ID_PATTERN).optional(),
});

const RoomState = z
  .strictObject({
    lastSeq: NonNegInt,
    events: Items(EventRecord).superRefine((events, ctx) => {
      events.forEach((event, index) => {
        const previous = events[index - 1];
        if (previous && event.seq <= previous.seq)
          ctx.addIssue({ code: "custom", path: [index, "seq"], message: "event seqs must increase" });
      });
    }),
    membership: uniqueBy(
      z.strictObject({
        entityId: z.string().regex(ENTITY_ID),
        // Flat [fromSeq, toSeq, ...] pairs; toSeq is -1 while the entity is present.
        intervals: Items(z.int().min(-1)).refine((list) => list.length % 2 === 0, "intervals come in pairs"),
      }),
      (m) => m.entityId,
      "membership of",
    ),
    chat: uniqueBy(ChatRecord, (m) => m.id, "chat message"),
    // Who heard the chat messages, each list once: consecutive global chats share one (everyone
    // present), which written out per message was most of a big room's snapshot (1,000 ids x 5,000).
    hearers: Items(Items(z.string().regex(ENTITY_ID))).optional(),
    // What the room remembers of dropped events (events-log.ts). Absent in snapshots written before
    // per-recipient retention: every cursor before their oldest event counts as expired, as then.
    floors: z
      .strictObject({
        roomDropped: NonNegInt,
        forgotten: NonNegInt,
        present: Items(z.tuple([z.string().regex(ENTITY_ID), z.int().min(1)])),
        departed: z.array(z.tuple([z.string().regex(ENTITY_ID), z.int().min(1)])).max(DEPARTED_FLOORS),
      })
      .optional(),
    // Absent in snapshots written before world signals existed: they restore with no recent activity.
    signals: z.array(SignalBucketRecord).max(SIGNAL_WINDOW_BUCKETS).optional(),
  })
  .superRefine((room, ctx) => {
    const lists = room.hearers?.length ?? 0;
    room.chat.forEach((m, index) => {
      if (typeof m.heardBy === "number" && m.heardBy >= lists)
        ctx.addIssue({
          code: "custom",
          path: ["chat", index, "heardBy"],
          message: "names no list of hearers",
        });
    });
  });

/** One agent's memory (memory.ts), with the same bounds a running world keeps. */
const MemoryRecord = z.strictObject({
  entityId: z.string().regex(AGENT_ENTITY_ID),
  nextId: z.int().min(1),
  reflections: z
    .array(
      z.strictObject({
        id: z.string().regex(MEMORY_ID_PATTERN),
        tsMs: NonNegInt,
        content: z.string().min(1).max(MEMORY_LIMITS.contentChars),
        topics: z.array(z.string().regex(TOPIC_PATTERN)).max(MEMORY_LIMITS.topics),
        sources: z
          .array(z.strictObject({ roomId: z.string().regex(ROOM_ID), seq: z.int().min(1) }))
          .max(MEMORY_LIMITS.sources),
        importance: z.number().min(0).max(1),
      }),
    )
    .max(MEMORY_LIMITS.reflections),
  episodes: z
    .array(
      z.strictObject({
        id: z.string().regex(MEMORY_ID_PATTERN),
        tsMs: NonNegInt,
        what: z.enum(EPISODE_KINDS),
        text: z.string().min(1).max(MEMORY_LIMITS.episodeChars),
      }),
    )
    .max(MEMORY_LIMITS.episodes),
});

const TransferRecord = z.strictObject({
  id: z.string().min(1).max(256),
  fromWorld: z.string().regex(ROOM_ID),
  toWorld: z.string().regex(ROOM_ID),
  roomId: z.string().regex(ROOM_ID),
  tile: z.strictObject({ tx: NonNegInt, ty: NonNegInt }),
  entityId: z.string().regex(ACTOR_ID),
  actorKind: z.enum(["human", "agent"]),
  name: z.string().min(1).max(64),
  tick: NonNegInt,
});

const TransferStateSchema = z.strictObject({
  outgoing: uniqueBy(TransferRecord, (t) => t.id, "transfer"),
  applied: Items(z.string().min(1).max(256))
    .max(APPLIED_TRANSFERS_KEPT)
    .refine((ids) => new Set(ids).size === ids.length, "applied transfer ids must be unique"),
  departed: Items(z.tuple([z.string().regex(ACTOR_ID), z.string().regex(ROOM_ID)]))
    .max(DEPARTURES_KEPT)
    .refine((list) => new Set(list.map((d) => d[0])).size === list.length, "one departure per traveller"),
});

const WorldStateSchema = z.strictObject({
  rng: z.array(Int).min(1).max(16),
  nextHandle: z.int().min(1),
  actors: uniqueBy(ActorRecord, (a) => a.id, "actor"),
  objects: uniqueBy(
    z.strictObject({
      id: z.string().regex(ENTITY_ID),
      // Scalars, or a bounded list of flat records (a board's notes); each type checks its own
      // state (ObjectTypeHandler.checkState), a type without that check holds scalars only.
      state: z.record(
        z.string(),
        z.union([
          z.string(),
          Finite,
          z.boolean(),
          z.array(z.record(z.string(), z.union([z.string(), Finite]))).max(100),
        ]),
      ),
      version: z.int().min(1),
    }),
    (o) => o.id,
    "object",
  ),
  proximity: uniqueBy(
    z.strictObject({
      a: z.string().regex(ACTOR_ID),
      b: z.string().regex(ACTOR_ID),
      inside: z.boolean(),
      counter: NonNegInt,
    }),
    (p) => `${p.a}/${p.b}`,
    "proximity pair",
  ),
  rooms: z.record(z.string().regex(ROOM_ID), RoomState),
  tx: uniqueBy(
    z.strictObject({
      key: z.string().min(1).max(512),
      payloadHash: z.string().max(128),
      expiresAtMs: NonNegInt,
      result: z.record(z.string(), z.unknown()),
      owner: z.string().min(1).max(256).optional(),
    }),
    (t) => t.key,
    "tx key",
  ),
  /** Absent when no agent has a memory yet (snapshots written before memory existed restore as is,
   * and hash as before). */
  memory: uniqueBy(MemoryRecord, (m) => m.entityId, "memory of").optional(),
  /** Portals to other worlds (transfers.ts); absent while there were none. */
  transfers: TransferStateSchema.optional(),
  /** What objects keep about actors (object-records.ts), in the order it is kept; absent while
   * there are none (older snapshots restore as they were). */
  records: uniqueBy(
    z.strictObject({
      objectId: z.string().regex(ENTITY_ID),
      entityId: z.string().regex(ACTOR_ID),
      record: z.record(z.string(), z.union([z.string().max(2000), Finite])),
    }),
    (r) => `${r.objectId}/${r.entityId}`,
    "record of",
  ).optional(),
});
export type WorldState = z.output<typeof WorldStateSchema>;

const SnapshotSchema = z.strictObject({
  format: z.literal(SNAPSHOT_FORMAT),
  world: z.string(),
  sceneHash: z.string(),
  tick: NonNegInt,
  time: NonNegInt,
  state: WorldStateSchema,
});

// ---- capture ----------------------------------------------------------------------------------

/** The parts of a World that a snapshot captures and a restore fills (the maps are mutated). */
export interface WorldParts {
  readonly definition: WorldDefinition;
  readonly rooms: Map<string, Room>;
  readonly actors: Map<string, Actor>;
  readonly objects: Map<string, WorldObject>;
  readonly proximity: ProximityTracker;
  readonly txStore: TxStore;
  readonly memory: Map<string, AgentMemory>;
  readonly transfers: TransferBook;
  readonly records: ObjectRecords;
}

/** The world's state now, as plain data. What the world records once and never changes afterwards
 * (events, chat messages, memory entries, idempotent results: readers get copies or, for events,
 * the shared objects) is shared with the snapshot, not copied; the lists holding them and all other
 * state are copies. Copying those records was most of the capture's cost (a crowd's room retains
 * 20,000 events, 1,000 agents keep 32 episodes each), and it lets a saver write the snapshot over
 * several turns of its event loop while the world goes on (persistence.ts). So: never mutate a
 * snapshot. */
export function captureSnapshot(
  parts: WorldParts,
  clock: { tick: number; time: number },
  scalars: { rng: number[]; nextHandle: number },
): WorldSnapshot {
  const actors: ActorRecord[] = [...parts.actors.values()]
    .sort((a, b) => compareIds(a.id, b.id))
    .map((a) => ({
      id: a.id,
      kind: a.kind,
      name: a.name,
      roomId: a.roomId,
      x: a.x,
      y: a.y,
      facing: a.facing,
      handle: a.handle,
      path: [...a.path],
      pathIndex: a.pathIndex,
      dest: a.dest,
      dirX: a.dirX,
      dirY: a.dirY,
      moving: a.moving,
      ...(a.thinking ? { thinking: true as const } : {}),
      ...(a.asleep ? { asleep: true as const } : {}),
      ...(a.unwell ? { unwell: true as const } : {}),
      ...(a.away ? { away: true as const } : {}),
      ...(a.lead ? { lead: { ...a.lead } } : {}),
    }));
  const objects = [...parts.objects.values()]
    .sort((a, b) => compareIds(a.def.id, b.def.id))
    .map((o) => ({ id: o.def.id, state: { ...o.state }, version: o.version }));
  const proximity = sortedPairs(parts.proximity.records(), actors);
  const rooms: Record<string, unknown> = {};
  for (const [roomId, room] of parts.rooms) {
    rooms[roomId] = {
      lastSeq: room.log.lastSeq,
      events: room.log.retained(),
      membership: [...room.log.membership.entries()]
        .sort((a, b) => compareIds(a[0], b[0]))
        .map(([entityId, intervals]) => ({ entityId, intervals: [...intervals] })),
      ...chatState(room.chat.all()),
      signals: room.signals.records(),
      floors: room.log.floors(),
    };
  }
  const tx = parts.txStore.entries().map((e) => ({
    key: e.key,
    payloadHash: e.payloadHash,
    expiresAtMs: e.expiresAtMs,
    result: e.result,
    ...(e.owner === undefined ? {} : { owner: e.owner }),
  }));
  const state: Record<string, unknown> = {
    rng: scalars.rng,
    nextHandle: scalars.nextHandle,
    actors,
    objects,
    proximity,
    rooms,
    tx,
  };
  if (parts.memory.size > 0) {
    state.memory = [...parts.memory.entries()]
      .sort((a, b) => compareIds(a[0], b[0]))
      .map(([entityId, m]) => ({
        entityId,
        nextId: m.nextId,
        reflections: [...m.reflections],
        episodes: [...m.episodes],
      }));
  }
  const transfers = parts.transfers.state();
  if (transfers) state.transfers = transfers;
  if (parts.records.size > 0) state.records = parts.records.entries();
  return {
    format: SNAPSHOT_FORMAT,
    world: parts.definition.name,
    sceneHash: parts.definition.sceneHash,
    tick: clock.tick,
    time: clock.time,
    state,
  };
}

/** Proximity records in (a, b) id order. A crowd has thousands of pairs, and comparing their id
 * strings was most of the capture's remaining cost: each pair gets a number from its actors'
 * places in the id-sorted actor list (unique, in the same order), and the numbers are sorted. */
function sortedPairs(records: ProximityRecord[], actorsById: readonly { id: string }[]): ProximityRecord[] {
  const place = new Map(actorsById.map((a, i) => [a.id, i]));
  const n = actorsById.length;
  const keys = new Float64Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const a = place.get(records[i]!.a);
    const b = place.get(records[i]!.b);
    // A pair always joins two present actors; anything else is sorted the slow way.
    if (a === undefined || b === undefined || (a * n + b) * records.length > Number.MAX_SAFE_INTEGER)
      return records.sort((p, q) => compareIds(p.a, q.a) || compareIds(p.b, q.b));
    // The record's index rides in the low digits, so a plain numeric sort (no comparator) does it.
    keys[i] = (a * n + b) * records.length + i;
  }
  keys.sort();
  return Array.from(keys, (key) => records[key % records.length]!);
}

// ---- validate -----------------------------------------------------------------------------------

function issueText(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(snapshot)"}: ${i.message}`)
    .join("; ");
}

/** Checks a saved snapshot against this world before anything is built from it: format, world and
 * scene first (the common mismatches, with their own reasons), then the strict shape, then every
 * cross-reference (rooms, objects, actors of proximity pairs, unique handles), and that the whole
 * snapshot canonicalizes (no text that would break the hash). Throws SnapshotMismatchError. */
export function validateSnapshot(def: WorldDefinition, snapshot: unknown): z.output<typeof SnapshotSchema> {
  checkHead(def, snapshot);
  const parsed = SnapshotSchema.safeParse(snapshot);
  if (!parsed.success) throw malformed(issueText(parsed.error));
  const valid = parsed.data;
  checkReferences(def, valid);
  try {
    canonicalJson(valid);
  } catch (error) {
    throw malformed(`it cannot be canonicalized (${(error as Error).message})`);
  }
  return valid;
}

/** validateSnapshot without the shape and the text, for a state a world's own snapshot was fitted
 * into (World.redefine): its shape and text are the world's own, and fitting only drops items and
 * resets fields, so what is left to check is what the new definition decides. The shape's check was
 * most of a live reload's tick (over 100 ms for the bundled world's retained events). */
export function validateFittedSnapshot(
  def: WorldDefinition,
  snapshot: WorldSnapshot & { state: WorldState },
): void {
  checkHead(def, snapshot);
  checkReferences(def, snapshot as z.output<typeof SnapshotSchema>);
}

const malformed = (problem: string) =>
  new SnapshotMismatchError("state", `snapshot state is malformed: ${problem}`);

function checkHead(def: WorldDefinition, snapshot: unknown): void {
  const head = (typeof snapshot === "object" && snapshot !== null ? snapshot : {}) as Record<string, unknown>;
  if (head.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotMismatchError(
      "format",
      `snapshot format ${JSON.stringify(head.format)} is not ${SNAPSHOT_FORMAT}`,
    );
  }
  if (head.world !== def.name) {
    throw new SnapshotMismatchError(
      "world",
      `snapshot of world "${String(head.world)}" cannot restore into "${def.name}"`,
    );
  }
  if (head.sceneHash !== def.sceneHash) {
    throw new SnapshotMismatchError(
      "sceneHash",
      `snapshot scene ${String(head.sceneHash)} does not match this world's scene ${def.sceneHash} (the world files changed)`,
    );
  }
}

/** What the definition decides: the clock, and every room, object, region and actor named. */
function checkReferences(def: WorldDefinition, valid: z.output<typeof SnapshotSchema>): void {
  const expectedTime = tickToMs(def.epochMs, def.tickRate, valid.tick);
  if (valid.time !== expectedTime) throw malformed(`time ${valid.time} does not match tick ${valid.tick}`);
  const state = valid.state;
  const objectDefs = new Map(
    Object.values(def.rooms).flatMap((r) => r.objects.map((o) => [o.id, o] as const)),
  );
  const actorsById = new Map(state.actors.map((a) => [a.id, a]));
  for (const o of state.objects) {
    const objDef = objectDefs.get(o.id);
    if (!objDef) throw malformed(`unknown object ${o.id}`);
    const handler = objectType(objDef.objectType);
    const wrong = handler?.checkState
      ? handler.checkState(o.state, objDef)
      : Object.values(o.state).some((v) => Array.isArray(v))
        ? "this object type holds no lists"
        : undefined;
    if (wrong) throw malformed(`object ${o.id}: ${wrong}`);
    const holder = handler?.holder?.(o.state);
    if (holder !== undefined && actorsById.get(holder)?.roomId !== objDef.roomId)
      throw malformed(`object ${o.id} holds ${holder}, who is not in its room`);
  }
  for (const roomId of Object.keys(state.rooms))
    if (!def.rooms[roomId]) throw malformed(`unknown room ${roomId}`);
  const actorRooms = new Map<string, string>();
  const handles = new Set<number>();
  for (const a of state.actors) {
    if (!def.rooms[a.roomId]) throw malformed(`actor ${a.id} is in unknown room ${a.roomId}`);
    if ((a.kind === "human") !== a.id.startsWith("hum_"))
      throw malformed(`actor ${a.id} is not of kind ${a.kind}`);
    if (handles.has(a.handle)) throw malformed(`duplicate actor handle ${a.handle}`);
    if (a.handle >= state.nextHandle) throw malformed(`actor ${a.id} has a handle not below nextHandle`);
    handles.add(a.handle);
    actorRooms.set(a.id, a.roomId);
  }
  const pairs = new Set<string>();
  for (const p of state.proximity) {
    const roomA = actorRooms.get(p.a);
    const roomB = actorRooms.get(p.b);
    if (!roomA || !roomB) throw malformed(`proximity pair ${p.a}/${p.b} names an absent actor`);
    if (roomA !== roomB) throw malformed(`proximity pair ${p.a}/${p.b} spans two rooms`);
    if (p.a === p.b) throw malformed(`proximity pair ${p.a}/${p.b} pairs an actor with itself`);
    const key = compareIds(p.a, p.b) < 0 ? `${p.a}/${p.b}` : `${p.b}/${p.a}`;
    if (pairs.has(key)) throw malformed(`duplicate proximity pair ${key}`);
    pairs.add(key);
  }
  for (const [roomId, room] of Object.entries(state.rooms)) {
    const last = room.events.at(-1);
    if (last && last.seq > room.lastSeq) throw malformed(`room ${roomId}: an event is after lastSeq`);
    if (room.events.some((e) => e.roomId !== roomId))
      throw malformed(`room ${roomId} holds another room's event`);
    const floorsWrong = room.floors && floorsProblem(roomId, room.lastSeq, room.floors, room.membership);
    if (floorsWrong) throw malformed(floorsWrong);
    const current = signalBucketOf(valid.tick, def.tickRate);
    const regionIds = new Set(def.rooms[roomId]!.regions.map((r) => r.id));
    let previous = -1;
    for (const b of room.signals ?? []) {
      if (b.bucket <= previous) throw malformed(`room ${roomId}: signal buckets must increase`);
      if (b.bucket > current || b.bucket <= current - SIGNAL_WINDOW_BUCKETS)
        throw malformed(
          `room ${roomId}: signal bucket ${b.bucket} is outside the window at tick ${valid.tick}`,
        );
      for (const id of Object.keys(b.regions))
        if (!regionIds.has(id)) throw malformed(`room ${roomId}: signals name unknown region ${id}`);
      previous = b.bucket;
    }
  }
  for (const m of state.memory ?? []) {
    const ids = new Set<string>();
    for (const entry of [...m.reflections, ...m.episodes]) {
      if (ids.has(entry.id)) throw malformed(`memory of ${m.entityId}: duplicate id ${entry.id}`);
      if (memorySeq(entry.id) >= m.nextId)
        throw malformed(`memory of ${m.entityId}: ${entry.id} is not below nextId`);
      if (entry.tsMs > valid.time) throw malformed(`memory of ${m.entityId}: ${entry.id} is from the future`);
      ids.add(entry.id);
    }
    for (const r of m.reflections) {
      if (new Set(r.topics).size !== r.topics.length)
        throw malformed(`memory of ${m.entityId}: ${r.id} repeats a topic`);
      for (const source of r.sources) {
        if (!def.rooms[source.roomId])
          throw malformed(`memory of ${m.entityId}: ${r.id} cites unknown room ${source.roomId}`);
      }
    }
  }
  if (state.memory?.length === 0) throw malformed("an empty memory list is written as no memory");
  const kept = new Map<string, number>();
  for (const r of state.records ?? []) {
    const objDef = objectDefs.get(r.objectId);
    const handler = objDef && objectType(objDef.objectType);
    if (!objDef || !handler?.checkRecord)
      throw malformed(`record of ${r.entityId}: ${r.objectId} keeps none`);
    const wrong = handler.checkRecord(r.record, objDef);
    if (wrong) throw malformed(`record of ${r.entityId} by ${r.objectId}: ${wrong}`);
    kept.set(r.objectId, (kept.get(r.objectId) ?? 0) + 1);
    if (kept.get(r.objectId)! > MAX_RECORDS_PER_OBJECT)
      throw malformed(`${r.objectId} keeps too many records`);
  }
  if (state.records?.length === 0) throw malformed("an empty record list is written as no records");
}

// ---- restore ------------------------------------------------------------------------------------

/** A copy of a state for loadState, which keeps what it is given. The rooms' events are shared, not
 * copied: they are the world's own immutable objects (snapshot() shares them too), and they are most
 * of a busy room's state (copying them was most of a replay's restore). */
export function copyStateForLoad(state: WorldState): WorldState {
  const { rooms, ...rest } = state;
  const copied: Record<string, WorldState["rooms"][string]> = {};
  for (const [roomId, { events, ...room }] of Object.entries(rooms))
    copied[roomId] = { ...structuredClone(room), events: [...events] };
  return { ...structuredClone(rest), rooms: copied };
}

/** Fills a freshly built world's parts from a validated state. */
export function loadState(parts: WorldParts, state: WorldState): void {
  for (const o of state.objects) {
    const obj = parts.objects.get(o.id)!;
    obj.state = o.state as Record<string, ObjectStateValue>;
    obj.version = o.version;
  }
  for (const room of parts.rooms.values()) {
    for (const obj of room.objects) room.refreshTile(obj.def.tile.tx, obj.def.tile.ty);
  }
  for (const r of state.actors) {
    const room = parts.rooms.get(r.roomId)!;
    const { lead, ...record } = r;
    const actor: Actor = {
      ...record,
      ...(lead ? { lead: { ...lead } } : {}),
      thinking: r.thinking === true,
      asleep: r.asleep === true,
      unwell: r.unwell === true,
      away: r.away === true,
      path: r.path.length > 0 ? r.path : NO_PATH,
      tx: Math.min(room.width - 1, Math.max(0, Math.floor(r.x / room.tileSize))),
      ty: Math.min(room.height - 1, Math.max(0, Math.floor(r.y / room.tileSize))),
      regionMask: 0,
      cell: -1,
      proximityCount: 0,
      rank: 0,
      audience: { kind: "entities", ids: [r.id] },
    };
    actor.regionMask = room.signals.maskAt(actor.tx, actor.ty);
    parts.actors.set(actor.id, actor);
    room.addActor(actor);
    room.grid.insert(actor);
  }
  for (const p of state.proximity) {
    parts.proximity.add(parts.actors.get(p.a)!, parts.actors.get(p.b)!, p.inside, p.counter);
  }
  for (const [roomId, r] of Object.entries(state.rooms)) {
    parts.rooms.get(roomId)!.log.restore(
      r.lastSeq,
      r.events as WorldEvent[],
      r.membership.map((m) => [m.entityId, m.intervals]),
      r.floors,
    );
    parts.rooms.get(roomId)!.chat.restore(chatRecords(r));
    parts.rooms.get(roomId)!.signals.restore(r.signals ?? []);
  }
  parts.txStore.restore(state.tx.map((t) => ({ ...t, result: t.result as unknown as InputResult })));
  for (const m of state.memory ?? []) {
    const memory = new AgentMemory();
    memory.nextId = m.nextId;
    memory.reflections = m.reflections;
    memory.episodes = m.episodes;
    parts.memory.set(m.entityId, memory);
  }
  parts.transfers.restore(state.transfers as TransferState | undefined);
  parts.records.restore(state.records ?? []);
}

/** What is wrong with a room's drop floors, if anything. */
function floorsProblem(
  roomId: string,
  lastSeq: number,
  floors: DropFloors,
  membership: { entityId: string; intervals: number[] }[],
): string | undefined {
  const present = new Set(membership.filter((m) => m.intervals.at(-1) === -1).map((m) => m.entityId));
  const seqs = [floors.roomDropped, floors.forgotten, ...floors.present.map((p) => p[1])];
  if (seqs.some((seq) => seq > lastSeq)) return `room ${roomId}: a drop floor is after lastSeq`;
  let previous = "";
  for (const [id] of floors.present) {
    if (!present.has(id)) return `room ${roomId}: floor of ${id}, who is not in the room`;
    if (compareIds(id, previous) <= 0 && previous !== "")
      return `room ${roomId}: present floors must be sorted by unique id`;
    previous = id;
  }
  const departed = new Set<string>();
  for (const [id, seq] of floors.departed) {
    if (present.has(id)) return `room ${roomId}: ${id} is both present and departed`;
    if (departed.has(id)) return `room ${roomId}: ${id} departed twice`;
    if (seq > lastSeq) return `room ${roomId}: a drop floor is after lastSeq`;
    departed.add(id);
  }
  return undefined;
}

/** A room's chat for a snapshot: who heard each message, as an index into `hearers`, where a list
 * equal to the previous message's is not written again. By value, so a restored world (whose lists are
 * shared the same way, chat.ts) writes the same snapshot as the one it came from. */
function chatState(records: readonly ChatMessageRecord[]): {
  chat: unknown[];
  hearers: (readonly string[])[];
} {
  const hearers: (readonly string[])[] = [];
  const chat = records.map((r) => {
    const last = hearers[hearers.length - 1];
    if (!last || !sameIds(last, r.heardBy)) hearers.push(r.heardBy);
    return { ...r, heardBy: hearers.length - 1 };
  });
  return { chat, hearers };
}

/** The chat records of a validated room state, with their hearers' lists (RoomChatLog.restore
 * freezes them and shares equal consecutive ones). */
function chatRecords(room: z.infer<typeof RoomState>): ChatMessageRecord[] {
  const lists = room.hearers ?? [];
  return room.chat.map((m) => ({
    ...m,
    heardBy: typeof m.heardBy === "number" ? lists[m.heardBy]! : m.heardBy,
  }));
}
