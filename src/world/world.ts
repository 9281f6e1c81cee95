// The authoritative simulation. Deterministic: the same definition and the same inputs per tick give
// the same events, results and snapshot hash, in any process. No I/O, clocks or timers here.
// This file is the tick (inputs in canonical order, transactions, guards, movement and proximity),
// the events and the reads; each action's rule is its own file under actions/ (registry.ts).

import { actionOf } from "./actions/registry.ts";
import { type Actor, compareIds } from "./actor.ts";
import { type Emit, fail, type Outcome, type WorldCore } from "./core.ts";
import {
  fitSnapshot,
  type Relocation,
  redefineProblem,
  relocationNotice,
  WORLD_NOTICE_ENTITY_ID,
  WORLD_NOTICE_NAME,
} from "./fit-definition.ts";
import { nearestOpenTile, nearestWayOut } from "./free-tile.ts";
import { guardFailure } from "./guards.ts";
import { AGENT_ENTITY_PREFIX } from "./ids.ts";
import { checkInput } from "./inputs.ts";
import { AgentMemory, type Episode, type EpisodeKind, type Reflection } from "./memory.ts";
import { walkAll } from "./movement.ts";
import { ObjectRecords } from "./object-records.ts";
import { regionName, visitObject } from "./object-use.ts";
import { objectType } from "./objects/object-registry.ts";
import { closingNotice } from "./opening-hours.ts";
import { newActor, operatorContext, pickSpawn, placeActor, releaseHeld, teleport } from "./placement.ts";
import { byPlaceOrder } from "./places.ts";
import { ProximityTracker } from "./proximity.ts";
import { WorldRng } from "./rng.ts";
import { roamContext } from "./roam.ts";
import { objectTile, Room, type WorldObject } from "./room.ts";
import { SIGNAL_WINDOW_SEC, type SignalKind, signalBucketOf, signalWindowStartTick } from "./signals.ts";
import {
  canonicalHash,
  canonicalJson,
  captureSnapshot,
  copyStateForLoad,
  loadState,
  validateFittedSnapshot,
  validateSnapshot,
  type WorldParts,
  type WorldState,
} from "./snapshot.ts";
import { tickToMs } from "./time.ts";
import { type Transfer, TransferBook } from "./transfers.ts";
import { TxStore, txPayloadMismatch } from "./tx-store.ts";
import type {
  ActorRecordView,
  ChatChannel,
  ChatMessageRecord,
  EntityView,
  EventsPage,
  Input,
  InputFailure,
  InputResult,
  ObjectView,
  RegionDefinition,
  StepResult,
  TileCoord,
  Vec2,
  WorldApi,
  WorldDefinition,
  WorldError,
  WorldEvent,
  WorldSignals,
  WorldSnapshot,
} from "./types.ts";
import { actorView, objectEntityView, type SeenThing, VIEW_RADIUS_TILES, viewDigest } from "./view.ts";

const MEMBERSHIP_PRUNE_EVERY_TICKS = 600;

declare const checked: unique symbol;
/** A snapshot that passed World.checkSnapshot, or that a world took of itself (checkedSnapshot()):
 * restoreChecked rebuilds it without checking again. Only a type mark; JSON loses it. */
export type CheckedSnapshot = WorldSnapshot & { state: WorldState; readonly [checked]: true };

/** The state below is open to the action rules through `WorldCore` (core.ts); adapters see a world
 * only as `WorldApi`. */
export class World implements WorldApi, WorldCore {
  private currentDefinition: WorldDefinition;
  private tickCount = 0;
  private nowMs: number;
  private seeded: WorldRng;
  private nextHandle = 1;
  readonly rooms = new Map<string, Room>();
  readonly actors = new Map<string, Actor>();
  readonly objects = new Map<string, WorldObject>();
  proximity = new ProximityTracker();
  private txStore: TxStore;
  /** Agents' memories by entity id (memory.ts): created by the first episode or reflection. */
  private readonly memory = new Map<string, AgentMemory>();
  /** Travellers to and from other worlds (transfers.ts). */
  transfers = new TransferBook();
  private stepEvents: WorldEvent[] = [];
  /** The objects whose state changes with time alone (their type has `elapse`), in room then id order. */
  private readonly timedObjects: WorldObject[] = [];
  /** What objects keep about actors, away or not (object-records.ts). */
  readonly records = new ObjectRecords();
  /** The objects told where actors go (their type has `visit`), in room then id order. */
  private readonly visitors: WorldObject[] = [];
  /** The objects that move by themselves (creatures: their type has `roam`), in room then id order. */
  private readonly roamingObjects: WorldObject[] = [];
  /** Proximity radius in world units. */
  private proximityRadius: number;

  private constructor(def: WorldDefinition) {
    this.currentDefinition = def;
    this.txStore = new TxStore(def.txMaxPerActor);
    this.nowMs = def.epochMs;
    this.seeded = WorldRng.fromSeed(def.seed);
    this.proximityRadius = def.proximityRadiusTiles * this.tileSizeOf(def);
    for (const roomId of Object.keys(def.rooms).sort()) {
      const roomDef = def.rooms[roomId]!;
      const room = new Room(roomDef, this.proximityRadius, {
        room: def.eventRetention,
        perRecipient: def.eventRetentionPerRecipient,
      });
      for (const objDef of roomDef.objects) {
        const handler = objectType(objDef.objectType);
        if (!handler) continue; // parseWorld rejects unknown types; a hand-made definition just loses them
        const obj: WorldObject = { def: objDef, handler, state: handler.initialState(objDef), version: 1 };
        room.addObject(obj);
        this.objects.set(objDef.id, obj);
      }
      room.objects.sort((a, b) => compareIds(a.def.id, b.def.id));
      for (const obj of room.objects) room.refreshTile(obj.def.tile.tx, obj.def.tile.ty);
      room.applyHours(this.nowMs);
      this.timedObjects.push(...room.objects.filter((o) => o.handler.elapse));
      this.visitors.push(...room.objects.filter((o) => o.handler.visit));
      this.roamingObjects.push(...room.objects.filter((o) => o.handler.roam));
      this.rooms.set(roomId, room);
    }
  }

  /** The definition in force: a host's `redefine` input replaces it between two inputs of a tick. */
  get definition(): WorldDefinition {
    return this.currentDefinition;
  }

  private tileSizeOf(def: WorldDefinition): number {
    const first = Object.values(def.rooms)[0];
    return first ? first.tileSize : 32;
  }

  static create(def: WorldDefinition): World {
    return new World(def);
  }

  /** Rebuilds a world from snapshot(); refuses snapshots of another world, scene or format, and any
   * snapshot that is not exactly what snapshot() writes (strict, see snapshot.ts). */
  static restore(def: WorldDefinition, snapshot: WorldSnapshot): World {
    return World.restoreChecked(def, World.checkSnapshot(def, snapshot));
  }

  /** The check restore() makes, on its own: a snapshot that passes may be restored again and again
   * without paying for it twice (a busy room's check takes over 100 ms; a replay restores the same
   * states many times). */
  static checkSnapshot(def: WorldDefinition, snapshot: WorldSnapshot): CheckedSnapshot {
    return validateSnapshot(def, snapshot) as WorldSnapshot as CheckedSnapshot;
  }

  /** Rebuilds a world from a snapshot known to be valid for `def`: one checkSnapshot passed, or one
   * this process's own snapshot() took of a world of that definition (checkedSnapshot()). Never for
   * anything read from a file, a database or the network without the check. */
  static restoreChecked(def: WorldDefinition, snapshot: CheckedSnapshot): World {
    return World.built(def, snapshot, copyStateForLoad(snapshot.state));
  }

  /** A world of `def` at the snapshot's tick holding `state`, which it keeps (nobody else may). */
  private static built(def: WorldDefinition, snapshot: CheckedSnapshot, state: WorldState): World {
    const world = new World(def);
    world.tickCount = snapshot.tick;
    world.nowMs = snapshot.time;
    for (const room of world.rooms.values()) room.applyHours(world.nowMs);
    world.seeded = WorldRng.fromState(state.rng);
    world.nextHandle = state.nextHandle;
    loadState(world.parts(), state);
    return world;
  }

  private parts(): WorldParts {
    return {
      definition: this.definition,
      rooms: this.rooms,
      actors: this.actors,
      objects: this.objects,
      proximity: this.proximity,
      txStore: this.txStore,
      memory: this.memory,
      transfers: this.transfers,
      records: this.records,
    };
  }

  get tick(): number {
    return this.tickCount;
  }

  get serverTsMs(): number {
    return this.nowMs;
  }

  get rng(): WorldRng {
    return this.seeded;
  }

  nextActorHandle(): number {
    return this.nextHandle++;
  }

  /** Takes a new definition (the host's `redefine` input; fit-definition.ts says what is kept). All or
   * nothing: a state that does not fit throws before anything changed. */
  redefine(def: WorldDefinition): Relocation[] {
    const problem = redefineProblem(this.currentDefinition, def);
    if (problem) throw new Error(problem);
    const before = this.checkedSnapshot();
    const fitted = fitSnapshot(before, this.currentDefinition, def);
    validateFittedSnapshot(def, fitted.snapshot);
    // The fitted state is already a copy of its own (the events shared, as copyStateForLoad does):
    // the new world takes it without copying it again.
    const fresh = World.built(def, fitted.snapshot as CheckedSnapshot, fitted.snapshot.state);
    const oldRooms = new Map([...this.rooms].map(([id, room]) => [id, room.def.name]));
    const previous = this.currentDefinition;
    this.currentDefinition = def;
    this.proximityRadius = fresh.proximityRadius;
    this.seeded = fresh.seeded;
    this.nextHandle = fresh.nextHandle;
    this.proximity = fresh.proximity;
    this.txStore = fresh.txStore;
    this.transfers = fresh.transfers;
    for (const [target, source] of [
      [this.rooms, fresh.rooms],
      [this.actors, fresh.actors],
      [this.objects, fresh.objects],
      [this.memory, fresh.memory],
    ] as [Map<string, unknown>, Map<string, unknown>][]) {
      target.clear();
      for (const [key, value] of source) target.set(key, value);
    }
    this.timedObjects.splice(0, this.timedObjects.length, ...fresh.timedObjects);
    this.visitors.splice(0, this.visitors.length, ...fresh.visitors);
    this.records.restore(fresh.records.entries());
    this.roamingObjects.splice(0, this.roamingObjects.length, ...fresh.roamingObjects);
    const moved: Relocation[] = [];
    const home = this.rooms.get(def.defaultRoomId)!;
    for (const record of fitted.homeless) {
      const spawn = pickSpawn(this, home);
      const actor = newActor(this, record.id, record.kind, record.name, home, spawn);
      const tile = nearestOpenTile(home, spawn.tx, spawn.ty, actor) ?? spawn;
      Object.assign(actor, {
        x: (tile.tx + 0.5) * home.tileSize,
        y: (tile.ty + 0.5) * home.tileSize,
        tx: tile.tx,
        ty: tile.ty,
        facing: record.facing,
        thinking: record.thinking === true,
        asleep: record.asleep === true,
        unwell: record.unwell === true,
        away: record.away === true,
      });
      placeActor(this, actor, home);
      const oldTileSize = previous.rooms[record.roomId]?.tileSize ?? home.tileSize;
      const fromTile = { tx: Math.floor(record.x / oldTileSize), ty: Math.floor(record.y / oldTileSize) };
      moved.push({
        entityId: actor.id,
        fromRoomId: record.roomId,
        fromTile,
        roomId: home.def.roomId,
        tile,
        reason: "room_removed",
      });
    }
    for (const room of this.rooms.values()) {
      for (const actor of [...room.actors]) {
        if (room.blocked[actor.ty * room.width + actor.tx] !== 1) continue;
        const tile = nearestOpenTile(room, actor.tx, actor.ty, actor);
        if (!tile) continue;
        const fromTile = { tx: actor.tx, ty: actor.ty };
        teleport(this, actor, room.def.roomId, tile);
        moved.push({
          entityId: actor.id,
          fromRoomId: room.def.roomId,
          fromTile,
          roomId: room.def.roomId,
          tile,
          reason: "blocked",
        });
      }
    }
    for (const move of moved) {
      const room = this.rooms.get(move.roomId)!;
      this.tell(
        room,
        move.entityId,
        relocationNotice(move, oldRooms.get(move.fromRoomId) ?? move.fromRoomId, room.def.name),
      );
    }
    return moved;
  }

  /** A line from the world to one actor, in the chat it reads: an agent finds it among its events,
   * a person in the chat log. */
  private tell(room: Room, entityId: string, message: string): void {
    this.sayTo(room, entityId, WORLD_NOTICE_ENTITY_ID, WORLD_NOTICE_NAME, message);
  }

  sayTo(room: Room, entityId: string, fromEntityId: string, fromName: string, message: string): void {
    const id = `msg_${this.seeded.idChars(16)}`;
    room.chat.add({
      id,
      roomId: room.def.roomId,
      channel: "proximity",
      fromEntityId,
      fromName,
      message,
      tsMs: this.nowMs,
      heardBy: [entityId],
    });
    this.emit(
      room,
      "chat.message",
      {
        messageId: id,
        fromEntityId,
        channel: "proximity",
        message,
        tsMs: this.nowMs,
      },
      { kind: "entities", ids: [entityId] },
    );
  }

  // ---------------------------------------------------------------------------------------------
  // step
  // ---------------------------------------------------------------------------------------------

  step(inputs: readonly Input[]): StepResult {
    const startTick = this.tickCount;
    // Guards compare against the state callers observed: the state at the start of this step. Should
    // hashing ever fail, only the inputs that guard on the hash fail with it (see applyWithTx).
    let startHash: { hash: string } | { error: unknown } | undefined;
    const startHashOnce = (): string => {
      startHash ??= this.tryHash();
      if ("error" in startHash) throw startHash.error;
      return startHash.hash;
    };
    if (
      inputs.some((i) => Array.isArray(i?.guards) && i.guards.some((g) => g?.kind === "snapshot_hash_is"))
    ) {
      startHash = this.tryHash();
    }
    this.tickCount = startTick + 1;
    this.nowMs = tickToMs(this.definition.epochMs, this.definition.tickRate, this.tickCount);
    this.stepEvents = [];
    this.txStore.sweep(this.nowMs);
    for (const room of this.rooms.values()) room.applyHours(this.nowMs);
    const bucket = this.signalBucket();
    for (const room of this.rooms.values()) room.signals.prune(bucket);

    const order = inputs.map((_, i) => i);
    const keyOf = (i: number): string => {
      const id = (inputs[i] as { entityId?: unknown } | undefined)?.entityId;
      return typeof id === "string" ? id : "";
    };
    order.sort((a, b) => compareIds(keyOf(a), keyOf(b)) || a - b);
    const results = new Array<InputResult>(inputs.length);
    const failures: InputFailure[] = [];
    for (const i of order) {
      results[i] = this.applyWithTx(inputs[i]!, startTick, startHashOnce, (message) =>
        failures.push({ index: i, message }),
      );
    }

    this.simulate();
    this.showOutOfClosedPlaces();
    for (const obj of this.timedObjects) obj.handler.elapse!(operatorContext(this, obj, undefined));
    for (const obj of this.roamingObjects) obj.handler.roam!(roamContext(this, obj));
    if (this.tickCount % MEMBERSHIP_PRUNE_EVERY_TICKS === 0) {
      for (const room of this.rooms.values()) {
        room.log.pruneAll();
        room.chat.prune(this.nowMs);
      }
    }
    const events = this.stepEvents;
    this.stepEvents = [];
    return {
      tick: this.tickCount,
      serverTsMs: this.nowMs,
      events,
      results,
      ...(failures.length > 0 ? { failures } : {}),
    };
  }

  private tryHash(): { hash: string } | { error: unknown } {
    try {
      return { hash: this.snapshotHash() };
    } catch (error) {
      return { error };
    }
  }

  private stamp(outcome: Outcome): InputResult {
    return outcome.ok
      ? { ok: true, value: outcome.value, tick: this.tickCount, serverTsMs: this.nowMs }
      : { ok: false, error: outcome.error, tick: this.tickCount, serverTsMs: this.nowMs };
  }

  /** One input, isolated: a throw anywhere while checking or applying it fails only this input (code
   * `internal`); the tick's other inputs still apply, and nothing is stored under its tx key, so a
   * retry runs it again. The cause goes to the host (StepResult.failures) for the operator's log. */
  private applyWithTx(
    input: Input,
    startTick: number,
    startHash: () => string,
    reportFailure: (message: string) => void,
  ): InputResult {
    try {
      return this.applyChecked(input, startTick, startHash);
    } catch (error) {
      reportFailure(error instanceof Error ? error.message : String(error));
      return this.stamp(fail("internal", "the world could not apply this input"));
    }
  }

  private applyChecked(input: Input, startTick: number, startHash: () => string): InputResult {
    const problem = checkInput(input) ?? this.unstorable(input);
    if (problem) return this.stamp({ ok: false, error: problem });
    const tx = input.tx;
    const replayed = tx ? this.replayTx(tx) : undefined;
    if (replayed) return replayed;
    const result = this.stamp(this.apply(input, startTick, startHash));
    if (tx) {
      this.txStore.put({
        key: tx.key,
        payloadHash: tx.payloadHash,
        result,
        expiresAtMs: this.nowMs + this.definition.txTtlSec * 1000,
        owner: input.entityId,
      });
    }
    return result;
  }

  /** The world stores only what it can hash: text in an input that RFC 8785 cannot canonicalize
   * (a lone surrogate) would make every later snapshot hash throw. The contract refuses such text
   * first (src/aic/text.ts); this keeps the world's own invariant for any other caller. Only inputs
   * that carry free text are checked (movement inputs, the bulk of a tick, carry none). */
  private unstorable(input: Input): WorldError | undefined {
    if (!actionOf(input.kind)?.freeText && !input.guards) return undefined;
    try {
      canonicalJson(input);
      return undefined;
    } catch (error) {
      return { code: "bad_request", message: `input cannot be stored: ${(error as Error).message}` };
    }
  }

  private apply(input: Input, startTick: number, startHash: () => string): Outcome {
    if (input.kind !== "join" && input.roomId !== undefined) {
      if (!this.rooms.has(input.roomId)) return fail("not_found", `room "${input.roomId}" does not exist`);
      const actor = this.actors.get(input.entityId);
      if (!actor || actor.roomId !== input.roomId) {
        return fail("agent_not_in_room", `${input.entityId} is not in room "${input.roomId}"`, {
          roomId: input.roomId,
          actualRoomId: actor?.roomId ?? null,
        });
      }
    }
    if (input.guards) {
      for (const guard of input.guards) {
        const failed = guardFailure(this, input, guard, startTick, startHash);
        if (failed) return failed;
      }
    }
    return actionOf(input.kind)!.apply(this, input as never);
  }

  memoryFor(entityId: string): AgentMemory {
    let memory = this.memory.get(entityId);
    if (!memory) {
      memory = new AgentMemory();
      this.memory.set(entityId, memory);
    }
    return memory;
  }

  /** An episodic entry for an agent (humans keep no memory here). */
  remember(entityId: string, what: EpisodeKind, text: string): void {
    if (entityId.startsWith(AGENT_ENTITY_PREFIX)) this.memoryFor(entityId).record(this.nowMs, what, text);
  }

  /** One side of a proximity change (`distance` null: they parted). The event is addressed to its
   * subject, and only agents read the events addressed to them (pollEvents); a browser shows who is
   * near from positions. So a human's side is not recorded: in a crowd it was most of the event log,
   * pushed everyone's cursors out of the retained window, and nobody could read it (DECISIONS). */
  proximitySide(room: Room, subject: Actor, other: Actor, distance: number | null): void {
    if (subject.kind !== "agent") return;
    if (distance === null) {
      this.emit(room, "proximity.exit", { subjectId: subject.id, otherId: other.id }, subject.audience);
      this.remember(subject.id, "parted", `${other.name} went away`);
    } else {
      this.emit(
        room,
        "proximity.enter",
        { subjectId: subject.id, otherId: other.id, distance },
        subject.audience,
      );
      this.remember(subject.id, "met", `${other.name} came near`);
    }
  }

  readonly emit: Emit = (room, type, payload, to, extra) => {
    const event = room.log.append(type, payload, to, this.tickCount, this.nowMs, extra);
    this.stepEvents.push(event);
    return event;
  };

  // ---------------------------------------------------------------------------------------------
  // world signals (signals.ts): counted as the world applies actions, so replay and restore agree
  // ---------------------------------------------------------------------------------------------

  signalBucket(): number {
    return signalBucketOf(this.tickCount, this.definition.tickRate);
  }

  /** An action by `actor`, counted in its room and the regions of its tile. */
  signal(actor: Actor, kind: SignalKind): void {
    this.rooms.get(actor.roomId)!.signals.count(this.signalBucket(), actor.regionMask, kind);
  }

  /** After an actor's tile changed within its room: count the region borders it crossed. */
  enteredTile(room: Room, actor: Actor): void {
    const mask = room.signals.maskAt(actor.tx, actor.ty);
    const before = actor.regionMask;
    if (mask !== before) {
      room.signals.crossed(this.signalBucket(), before, mask);
      actor.regionMask = mask;
    }
    this.arrivedAt(room, actor, mask & ~before);
  }

  arrivedAt(room: Room, actor: Actor, enteredMask: number): void {
    if (this.visitors.length === 0) return;
    const entered: string[] = [];
    for (let bit = 0; bit < 32 && enteredMask >>> bit !== 0; bit++)
      if ((enteredMask >>> bit) & 1) entered.push(room.signals.regions[bit]!.id);
    for (const obj of this.visitors) {
      // A visit may carry the actor off (it left the world): the objects after it are not told.
      if (this.actors.get(actor.id) !== actor) return;
      visitObject(this, actor, obj, entered);
    }
  }
  /** Whoever stands in a closed place (it closed this tick, or a join, a seat or a portal put them
   * there) is moved to the open tile outside nearest by walking (its door, not the next room through
   * a wall) and told why. Walking in is refused at the
   * edge: a closed place's tiles block (Room.applyHours). */
  private showOutOfClosedPlaces(): void {
    for (const room of this.rooms.values()) {
      if (room.closedPlaces.length === 0) continue;
      for (const actor of [...room.actors]) {
        const place = room.closedPlaceAt(actor.tx, actor.ty);
        if (!place) continue;
        const tile =
          nearestWayOut(room, actor.tx, actor.ty, actor) ?? nearestOpenTile(room, actor.tx, actor.ty, actor);
        if (!tile) continue;
        releaseHeld(this, actor);
        teleport(this, actor, room.def.roomId, tile);
        this.tell(room, actor.id, closingNotice(place.name, place.hours!));
        this.remember(actor.id, "moved", `was shown out of ${place.name} at closing time`);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // simulation
  // ---------------------------------------------------------------------------------------------

  private simulate(): void {
    const stepLen = this.definition.walkSpeed / this.definition.tickRate;
    const debounce = this.definition.proximityDebounceTicks;
    const maxNeighbors = this.definition.proximityMaxNeighbors;
    walkAll(this, stepLen);
    let rank = 0; // rooms iterate in id order and room.actors is id-sorted
    for (const room of this.rooms.values()) {
      const actors = room.actors;
      for (let i = 0; i < actors.length; i++) actors[i]!.rank = rank++;
      this.proximity.scanRoom(actors, room.grid, this.proximityRadius, maxNeighbors, this.tickCount);
    }
    const changed = this.proximity.settle(this.tickCount, debounce, this.proximityRadius, maxNeighbors);
    for (let i = 0; i < changed.length; i++) {
      const pair = changed[i]!;
      const room = this.rooms.get(pair.a.roomId)!;
      if (pair.inside) {
        // Distance in world units, rounded to 1/1000 so the payload is stable and readable.
        const dx = pair.a.x - pair.b.x;
        const dy = pair.a.y - pair.b.y;
        const distance = Math.round(Math.sqrt(dx * dx + dy * dy) * 1000) / 1000;
        this.proximitySide(room, pair.a, pair.b, distance);
        this.proximitySide(room, pair.b, pair.a, distance);
      } else {
        this.proximitySide(room, pair.a, pair.b, null);
        this.proximitySide(room, pair.b, pair.a, null);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // reads
  // ---------------------------------------------------------------------------------------------

  getEntity(id: string): EntityView | undefined {
    const actor = this.actors.get(id);
    if (actor) return actorView(this.definition, actor);
    const obj = this.objects.get(id);
    return obj ? objectEntityView(this.rooms.get(obj.def.roomId)!, obj) : undefined;
  }

  actorsInRoom(roomId: string): EntityView[] {
    const room = this.rooms.get(roomId);
    return room ? room.actors.map((a) => actorView(this.definition, a)) : [];
  }

  queryRadius(
    roomId: string,
    center: Vec2,
    radius: number,
    limit = Number.POSITIVE_INFINITY,
  ): { entity: EntityView; distance: number }[] {
    const room = this.rooms.get(roomId);
    if (!room || !(radius >= 0) || !Number.isFinite(center.x) || !Number.isFinite(center.y)) return [];
    // Views are built for the nearest `limit` only: in a crowd, observe's radius holds twice the 500
    // it may answer, and a view per entity it then dropped was most of what an observe allocated.
    const found: { of: Actor | WorldObject; id: string; distance: number }[] = [];
    room.grid.forEachWithin(center.x, center.y, Math.min(radius, 1e7), (actor, distance) => {
      found.push({ of: actor, id: actor.id, distance });
    });
    const ts = room.tileSize;
    for (const obj of room.objects) {
      const { tx, ty } = objectTile(obj);
      const d = Math.hypot((tx + 0.5) * ts - center.x, (ty + 0.5) * ts - center.y);
      if (d <= radius) found.push({ of: obj, id: obj.def.id, distance: d });
    }
    found.sort((p, q) => p.distance - q.distance || compareIds(p.id, q.id));
    const kept = found.length > limit ? found.slice(0, Math.max(0, Math.floor(limit))) : found;
    return kept.map((hit) => ({
      entity: "def" in hit.of ? objectEntityView(room, hit.of) : actorView(this.definition, hit.of),
      distance: hit.distance,
    }));
  }

  viewOf(entityId: string): string | undefined {
    const actor = this.actors.get(entityId);
    if (!actor) return undefined;
    const room = this.rooms.get(actor.roomId)!;
    const radius = VIEW_RADIUS_TILES * room.tileSize;
    const seen: SeenThing[] = [];
    room.grid.forEachWithin(actor.x, actor.y, radius, (other) => {
      if (other.id !== entityId) seen.push({ id: other.id, tile: { tx: other.tx, ty: other.ty } });
    });
    const ts = room.tileSize;
    for (const obj of room.objects) {
      const { tx, ty } = objectTile(obj);
      if (Math.hypot((tx + 0.5) * ts - actor.x, (ty + 0.5) * ts - actor.y) <= radius)
        seen.push({ id: obj.def.id, tile: { tx, ty }, version: obj.version });
    }
    return viewDigest(actor.roomId, { tx: actor.tx, ty: actor.ty }, seen);
  }

  objectView(objectId: string): ObjectView | undefined {
    const obj = this.objects.get(objectId);
    if (!obj) return undefined;
    const awaits = obj.handler.awaits?.(obj.state);
    const needs = obj.handler.care?.(obj.state, this.nowMs);
    return {
      objectType: obj.def.objectType,
      state: { ...obj.state },
      version: obj.version,
      affords: obj.handler.affordances(obj.state),
      ...(awaits ? { awaits } : {}),
      ...(needs ? { needs } : {}),
    };
  }

  isBlocked(roomId: string, tile: TileCoord): boolean {
    const room = this.rooms.get(roomId);
    if (!room?.inBounds(tile.tx, tile.ty)) return true;
    return room.blocked[tile.ty * room.width + tile.tx] === 1;
  }

  chatFor(
    recipientId: string,
    roomId: string,
    sinceTsMs: number,
    channel?: ChatChannel,
  ): ChatMessageRecord[] {
    return this.rooms.get(roomId)?.chat.visibleTo(recipientId, sinceTsMs, channel) ?? [];
  }

  chatHistoryFor(recipientId: string, roomId: string, sinceTsMs: number, limit: number): ChatMessageRecord[] {
    return this.rooms.get(roomId)?.chat.historyFor(recipientId, sinceTsMs, limit) ?? [];
  }

  eventsFor(recipientId: string, roomId: string, afterSeq: number, limit: number): EventsPage {
    const room = this.rooms.get(roomId);
    if (!room) return { events: [], nextSeq: Math.max(0, Math.floor(afterSeq) || 0) };
    return room.log.eventsFor(recipientId, Number.isFinite(afterSeq) ? afterSeq : 0, Math.floor(limit) || 0);
  }

  latestSeq(roomId: string): number {
    return this.rooms.get(roomId)?.log.lastSeq ?? 0;
  }

  enteredAtSeq(entityId: string, roomId: string): number | undefined {
    return this.rooms.get(roomId)?.log.enteredAtSeq(entityId);
  }

  retainedEventCount(roomId: string): number {
    return this.rooms.get(roomId)?.log.retainedCount ?? 0;
  }

  memoryOf(entityId: string): { reflections: Reflection[]; episodes: Episode[] } | undefined {
    const memory = this.memory.get(entityId);
    if (!memory) return undefined;
    return { reflections: structuredClone(memory.reflections), episodes: structuredClone(memory.episodes) };
  }

  /** Activity in a room over the recent window (world signals, see signals.ts). */
  signals(roomId: string): WorldSignals | undefined {
    const room = this.rooms.get(roomId);
    if (!room) return undefined;
    const rate = this.definition.tickRate;
    return {
      windowSec: SIGNAL_WINDOW_SEC,
      sinceTsMs: tickToMs(this.definition.epochMs, rate, signalWindowStartTick(this.tickCount, rate)),
      ...room.signals.view(this.signalBucket()),
    };
  }

  /** The regions covering a tile, smallest first (the most specific place), ties by id. */
  regionsAt(roomId: string, tile: TileCoord): RegionDefinition[] {
    const room = this.rooms.get(roomId);
    if (!room?.inBounds(tile.tx, tile.ty)) return [];
    const mask = room.signals.maskAt(tile.tx, tile.ty);
    return room.signals.regions.filter((_, bit) => (mask >>> bit) & 1).sort(byPlaceOrder);
  }

  recordsOf(entityId: string): ActorRecordView[] {
    const views: ActorRecordView[] = [];
    for (const { objectId, record } of this.records.of(entityId)) {
      const obj = this.objects.get(objectId);
      const view = obj?.handler.recordView?.(record, obj.def, (id) => regionName(this, id) ?? id);
      if (obj && view) views.push({ objectId, objectType: obj.def.objectType, ...view });
    }
    return views;
  }

  closedPlaces(roomId: string): readonly RegionDefinition[] {
    return this.rooms.get(roomId)?.closedPlaces ?? [];
  }

  privateRegions(roomId: string): RegionDefinition[] {
    return this.rooms.get(roomId)?.privatePlaces() ?? [];
  }

  replayTx(tx: { key: string; payloadHash: string }): InputResult | undefined {
    const stored = this.txStore.get(tx.key, this.nowMs);
    if (!stored) return undefined;
    if (stored.payloadHash === tx.payloadHash) return { ...stored.result, replayed: true };
    return this.stamp({ ok: false, error: txPayloadMismatch() });
  }

  lookupTx(key: string): { payloadHash: string; result: InputResult } | undefined {
    const entry = this.txStore.get(key, this.nowMs);
    return entry ? { payloadHash: entry.payloadHash, result: entry.result } : undefined;
  }

  outgoingTransfers(): readonly Transfer[] {
    return this.transfers.outgoing;
  }

  departedTo(entityId: string): string | undefined {
    return this.transfers.departed.get(entityId);
  }

  /** Room ids, sorted. */
  roomIds(): string[] {
    return [...this.rooms.keys()];
  }

  // ---------------------------------------------------------------------------------------------
  // snapshot / restore
  // ---------------------------------------------------------------------------------------------

  snapshot(): WorldSnapshot {
    return captureSnapshot(
      this.parts(),
      { tick: this.tickCount, time: this.nowMs },
      { rng: this.seeded.state(), nextHandle: this.nextHandle },
    );
  }

  /** snapshot(), marked as valid for this world's definition: it is what restore() accepts by
   * construction (restoreChecked). */
  checkedSnapshot(): CheckedSnapshot {
    return this.snapshot() as CheckedSnapshot;
  }

  snapshotHash(): string {
    return canonicalHash(this.snapshot());
  }
}
