// The authoritative simulation. Deterministic: the same definition and the same inputs per tick give
// the same events, results and snapshot hash, in any process. No I/O, clocks or timers here.
import { type Actor, compareIds, NO_PATH } from "./actor.ts";
import { approachTile } from "./approach.ts";
import { bodyOverlapsTile, moveWithCollision } from "./collision.ts";
import { AGENT_ENTITY_PREFIX } from "./ids.ts";
import { checkInput } from "./inputs.ts";
import { AgentMemory, type Episode, type EpisodeKind, type Reflection } from "./memory.ts";
import { objectType } from "./objects/registry.ts";
import type { InteractContext, InteractOutcome, ObjectStateValue, OperatorContext } from "./objects/types.ts";
import { byPlaceOrder, covers, placeAt, withinHearing } from "./places.ts";
import { ProximityTracker } from "./proximity.ts";
import { WorldRng } from "./rng.ts";
import { Room, type WorldObject } from "./room.ts";
import { SIGNAL_WINDOW_SEC, type SignalKind, signalBucketOf, signalWindowStartTick } from "./signals.ts";
import {
  canonicalHash,
  canonicalJson,
  captureSnapshot,
  loadState,
  validateSnapshot,
  type WorldParts,
} from "./snapshot.ts";
import { tickToMs } from "./time.ts";
import { type Transfer, TransferBook, transferId } from "./transfers.ts";
import { TxStore, txPayloadMismatch } from "./tx-store.ts";
import type {
  Audience,
  ChatChannel,
  ChatMessageRecord,
  EntityView,
  EventsPage,
  EventType,
  Facing,
  Input,
  InputFailure,
  InputResult,
  InputValue,
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
import { type SeenThing, VIEW_RADIUS_TILES, viewDigest } from "./view.ts";

type Outcome = { ok: true; value: InputValue } | { ok: false; error: WorldError };

const MEMBERSHIP_PRUNE_EVERY_TICKS = 600;

function fail(code: WorldError["code"], message: string, details?: Record<string, unknown>): Outcome {
  return { ok: false, error: details ? { code, message, details } : { code, message } };
}

function facingFor(dx: number, dy: number, current: Facing): Facing {
  if (dx === 0 && dy === 0) return current;
  if (Math.abs(dx) > Math.abs(dy)) return dx > 0 ? "right" : "left";
  return dy > 0 ? "down" : "up";
}

export class World implements WorldApi {
  readonly definition: WorldDefinition;
  private tickCount = 0;
  private nowMs: number;
  private rng: WorldRng;
  private nextHandle = 1;
  private readonly rooms = new Map<string, Room>();
  private readonly actors = new Map<string, Actor>();
  private readonly objects = new Map<string, WorldObject>();
  private readonly proximity = new ProximityTracker();
  private readonly txStore: TxStore;
  /** Agents' memories by entity id (memory.ts): created by the first episode or reflection. */
  private readonly memory = new Map<string, AgentMemory>();
  /** Travellers to and from other worlds (transfers.ts). */
  private readonly transfers = new TransferBook();
  private stepEvents: WorldEvent[] = [];
  private readonly scratch = { x: 0, y: 0 };
  /** Proximity radius in world units. */
  private readonly proximityRadius: number;

  private constructor(def: WorldDefinition) {
    this.definition = def;
    this.txStore = new TxStore(def.txMaxPerActor);
    this.nowMs = def.epochMs;
    this.rng = WorldRng.fromSeed(def.seed);
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
      this.rooms.set(roomId, room);
    }
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
    const valid = validateSnapshot(def, snapshot);
    const world = new World(def);
    world.tickCount = valid.tick;
    world.nowMs = valid.time;
    world.rng = WorldRng.fromState(valid.state.rng);
    world.nextHandle = valid.state.nextHandle;
    loadState(world.parts(), structuredClone(valid.state));
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
    };
  }

  get tick(): number {
    return this.tickCount;
  }

  get serverTsMs(): number {
    return this.nowMs;
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
    if (
      input.kind !== "join" &&
      input.kind !== "interact" &&
      input.kind !== "moderate" &&
      input.kind !== "chat" &&
      input.kind !== "reflect" &&
      !input.guards
    )
      return undefined;
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
        const failed = this.checkGuard(input, guard, startTick, startHash);
        if (failed) return failed;
      }
    }
    switch (input.kind) {
      case "join":
        return this.applyJoin(input);
      case "leave": {
        const actor = this.actors.get(input.entityId);
        if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
        this.removeActor(actor, input.reason);
        return { ok: true, value: { kind: "leave", entityId: input.entityId } };
      }
      case "thinking": {
        const actor = this.actors.get(input.entityId);
        if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
        actor.thinking = input.thinking;
        return { ok: true, value: { kind: "thinking", thinking: input.thinking } };
      }
      case "moveTo":
        return this.applyMoveTo(input.entityId, input.dest);
      case "approach":
        return this.applyApproach(input.entityId, input.targetId);
      case "moveDir": {
        const actor = this.actors.get(input.entityId);
        if (!actor) return fail("agent_not_in_room", `${input.entityId} is not in the world`);
        actor.path = NO_PATH;
        actor.pathIndex = 0;
        actor.dest = -1;
        actor.dirX = input.dx + 0; // + 0 turns -0 into 0 so snapshots stay canonical
        actor.dirY = input.dy + 0;
        if (input.dx !== 0 || input.dy !== 0) {
          this.releaseHeld(actor);
          actor.facing = facingFor(input.dx, input.dy, actor.facing);
          this.signal(actor, "move");
        }
        return { ok: true, value: { kind: "moveDir" } };
      }
      case "interact":
        return this.applyInteract(input.entityId, input.targetId, input.action, input.params ?? {});
      case "moderate":
        return this.applyModerate(input.targetId, input.action, input.params ?? {});
      case "chat":
        return this.applyChat(input.entityId, input.channel, input.message);
      case "reflect":
        return this.applyReflect(input);
      case "arrive":
        return this.applyArrive(input.transfer);
      case "transfersSent":
        return { ok: true, value: { kind: "transfersSent", marked: this.transfers.markSent(input.ids) } };
    }
  }

  private checkGuard(
    input: Input,
    guard: NonNullable<Input["guards"]>[number],
    startTick: number,
    startHash: () => string,
  ): Outcome | undefined {
    const conflict = (actual: unknown) =>
      fail("conflict", `guard ${guard.kind} failed`, { guard: { ...guard }, actual: actual ?? null });
    switch (guard.kind) {
      case "tick_is":
        return guard.tick === startTick ? undefined : conflict(startTick);
      case "snapshot_hash_is": {
        const hash = startHash();
        return guard.hash === hash ? undefined : conflict(hash);
      }
      case "entity_near": {
        const self = this.actors.get(input.entityId);
        const other = this.actors.get(guard.entityId);
        const otherPos = other ?? this.objects.get(guard.entityId);
        if (!self || !otherPos) return conflict(null);
        let ox: number;
        let oy: number;
        let roomId: string;
        if (other) {
          ox = other.x;
          oy = other.y;
          roomId = other.roomId;
        } else {
          const obj = this.objects.get(guard.entityId)!;
          const ts = this.rooms.get(obj.def.roomId)!.tileSize;
          ox = (obj.def.tile.tx + 0.5) * ts;
          oy = (obj.def.tile.ty + 0.5) * ts;
          roomId = obj.def.roomId;
        }
        if (roomId !== self.roomId) return conflict(null);
        const ts = this.rooms.get(self.roomId)!.tileSize;
        const distTiles = Math.hypot(ox - self.x, oy - self.y) / ts;
        return distTiles <= guard.withinTiles ? undefined : conflict(distTiles);
      }
      case "object_state_is": {
        const obj = this.objects.get(guard.objectId);
        const actual = obj ? (obj.state[guard.field] ?? null) : null;
        return actual === guard.equals ? undefined : conflict(actual);
      }
      case "view_is": {
        const actual = this.viewOf(input.entityId);
        return actual === guard.view ? undefined : conflict(actual);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // inputs
  // ---------------------------------------------------------------------------------------------

  private applyJoin(input: Extract<Input, { kind: "join" }>): Outcome {
    const roomId = input.joinRoomId ?? input.roomId ?? this.definition.defaultRoomId;
    const room = this.rooms.get(roomId);
    if (!room) return fail("not_found", `room "${roomId}" does not exist`);
    this.transfers.returned(input.entityId);
    const existing = this.actors.get(input.entityId);
    if (existing && existing.roomId === roomId) {
      return {
        ok: true,
        value: { kind: "join", entityId: existing.id, roomId, tile: { tx: existing.tx, ty: existing.ty } },
      };
    }
    // Moving between rooms is a leave + join; "disconnect" is the closest reason the events schema allows.
    if (existing) this.removeActor(existing, "disconnect");
    const tile = this.homeTile(room, input.at) ?? this.pickSpawn(room);
    const actor = this.newActor(input.entityId, input.actorKind, input.name, room, tile);
    this.placeActor(actor, room);
    return { ok: true, value: { kind: "join", entityId: actor.id, roomId, tile } };
  }

  private newActor(id: string, kind: Actor["kind"], name: string, room: Room, tile: TileCoord): Actor {
    const ts = room.tileSize;
    return {
      id,
      kind,
      name,
      roomId: room.def.roomId,
      x: (tile.tx + 0.5) * ts,
      y: (tile.ty + 0.5) * ts,
      tx: tile.tx,
      ty: tile.ty,
      facing: "down",
      handle: this.nextHandle++,
      path: NO_PATH,
      pathIndex: 0,
      dest: -1,
      dirX: 0,
      dirY: 0,
      moving: false,
      thinking: false,
      regionMask: 0,
      cell: -1,
      proximityCount: 0,
      rank: 0,
      audience: { kind: "entities", ids: [id] },
    };
  }

  /** A traveller from another world, placed once per transfer id: a record delivered again (a new
   * owner of the source re-sending it) is answered as applied and places nobody. It lands on its
   * portal's target tile, or on a spawn when that room or tile is not there (the source's portal
   * named a room this world does not have: the traveller is not lost on the way). */
  private applyArrive(transfer: Transfer): Outcome {
    if (this.transfers.wasApplied(transfer.id)) {
      const here = this.actors.get(transfer.entityId);
      return {
        ok: true,
        value: {
          kind: "arrive",
          entityId: transfer.entityId,
          roomId: here?.roomId ?? transfer.roomId,
          tile: here ? { tx: here.tx, ty: here.ty } : transfer.tile,
          duplicate: true,
        },
      };
    }
    const room = this.rooms.get(transfer.roomId) ?? this.rooms.get(this.definition.defaultRoomId)!;
    const tile = this.homeTile(room, transfer.tile) ?? this.pickSpawn(room);
    const existing = this.actors.get(transfer.entityId);
    if (existing) this.removeActor(existing, "disconnect");
    this.transfers.arrived(transfer.id, transfer.entityId);
    const actor = this.newActor(transfer.entityId, transfer.actorKind, transfer.name, room, tile);
    this.placeActor(actor, room);
    this.remember(actor.id, "entered", `came through a portal from ${transfer.fromWorld}`);
    const roomId = room.def.roomId;
    return { ok: true, value: { kind: "arrive", entityId: actor.id, roomId, tile } };
  }

  /** Through a portal to another world: the traveller leaves this one now, and the handoff is
   * recorded for the host to send (transfers.ts). */
  private depart(actor: Actor, toWorld: string, roomId: string, tile: TileCoord): void {
    this.stop(actor);
    this.transfers.depart({
      id: transferId(this.definition.name, this.tickCount, actor.id),
      fromWorld: this.definition.name,
      toWorld,
      roomId,
      tile: { tx: tile.tx, ty: tile.ty },
      entityId: actor.id,
      actorKind: actor.kind,
      name: actor.name,
      tick: this.tickCount,
    });
    this.removeActor(actor, "disconnect", roomId, toWorld);
  }

  /** The tile a join asked for, when it is inside the room and walkable. */
  private homeTile(room: Room, at: TileCoord | undefined): TileCoord | undefined {
    if (!at || at.tx < 0 || at.ty < 0 || at.tx >= room.width || at.ty >= room.height) return undefined;
    return room.def.blocked[at.ty * room.width + at.tx] === 1 ? undefined : { tx: at.tx, ty: at.ty };
  }

  /** A random free spawn point (any spawn when all are occupied), from the seeded RNG. A few random
   * probes first keep joins O(1) in rooms with many spawns; the full scan is the fallback. */
  private pickSpawn(room: Room): TileCoord {
    const spawns = room.def.spawns;
    const last = spawns.length - 1;
    for (let probe = 0; probe < 4; probe++) {
      const spawn = spawns[this.rng.int(0, last)]!;
      if (!this.actorOnTile(room, spawn.tile.tx, spawn.tile.ty))
        return { tx: spawn.tile.tx, ty: spawn.tile.ty };
    }
    const free = spawns.filter((s) => !this.actorOnTile(room, s.tile.tx, s.tile.ty));
    const pool = free.length > 0 ? free : spawns;
    const spawn = pool[this.rng.int(0, pool.length - 1)]!;
    return { tx: spawn.tile.tx, ty: spawn.tile.ty };
  }

  private actorOnTile(room: Room, tx: number, ty: number): boolean {
    const ts = room.tileSize;
    let found = false;
    room.grid.forEachWithin((tx + 0.5) * ts, (ty + 0.5) * ts, ts, (other) => {
      if (bodyOverlapsTile(ts, other.x, other.y, tx, ty)) found = true;
    });
    return found;
  }

  /** `fromRoomId`: it came by portal from that room. */
  private placeActor(actor: Actor, room: Room, fromRoomId?: string): void {
    actor.roomId = room.def.roomId;
    actor.regionMask = room.signals.maskAt(actor.tx, actor.ty);
    room.signals.count(this.signalBucket(), actor.regionMask, "arrive");
    this.actors.set(actor.id, actor);
    room.addActor(actor);
    room.grid.insert(actor);
    const event = this.emit(
      room,
      "presence.join",
      { entityId: actor.id, name: actor.name, kind: actor.kind },
      { kind: "room" },
      fromRoomId === undefined ? undefined : { fromRoomId },
    );
    room.log.enter(actor.id, event.seq);
    this.remember(actor.id, "entered", `entered ${room.def.name}`);
  }

  /** `toRoomId`: it is going by portal to that room (of world `toWorldId` when that is set). */
  private removeActor(
    actor: Actor,
    reason: "disconnect" | "kicked" | "room_closed",
    toRoomId?: string,
    toWorldId?: string,
  ): void {
    const room = this.rooms.get(actor.roomId)!;
    this.releaseHeld(actor);
    room.signals.count(this.signalBucket(), actor.regionMask, "depart");
    for (const pair of this.proximity.removeActor(actor)) {
      this.proximitySide(room, pair.a, pair.b, null);
      this.proximitySide(room, pair.b, pair.a, null);
    }
    const event = this.emit(
      room,
      "presence.leave",
      { entityId: actor.id, reason },
      { kind: "room" },
      toRoomId === undefined ? undefined : toWorldId === undefined ? { toRoomId } : { toRoomId, toWorldId },
    );
    room.log.exit(actor.id, event.seq);
    room.removeActor(actor);
    room.grid.remove(actor);
    this.actors.delete(actor.id);
  }

  private applyMoveTo(entityId: string, dest: TileCoord): Outcome {
    const actor = this.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    const room = this.rooms.get(actor.roomId)!;
    if (!room.inBounds(dest.tx, dest.ty)) {
      return fail(
        "invalid_destination",
        `tile (${dest.tx}, ${dest.ty}) is outside room "${room.def.roomId}"`,
        {
          widthTiles: room.width,
          heightTiles: room.height,
        },
      );
    }
    const goal = dest.ty * room.width + dest.tx;
    if (room.blocked[goal]) return fail("collision_blocked", `tile (${dest.tx}, ${dest.ty}) is blocked`);
    if (dest.tx === actor.tx && dest.ty === actor.ty) {
      this.stop(actor);
      return { ok: true, value: { kind: "moveTo", result: "no_op", pathLength: 0 } };
    }
    const path = room.pathFinder.find(room, actor.ty * room.width + actor.tx, goal);
    if (!path) return fail("collision_blocked", `tile (${dest.tx}, ${dest.ty}) cannot be reached from here`);
    this.releaseHeld(actor);
    actor.path = path;
    actor.pathIndex = 0;
    actor.dest = goal;
    actor.dirX = 0;
    actor.dirY = 0;
    this.remember(actor.id, "moved", `set off for (${dest.tx}, ${dest.ty})`);
    this.signal(actor, "move");
    return { ok: true, value: { kind: "moveTo", result: "accepted", pathLength: path.length - 1 } };
  }

  /** Where an object can be used from is the world's to say (objects sit in or against walls, so the
   * tile below one is often blocked): the approach tile over the room's current grid, then a move. */
  private applyApproach(entityId: string, targetId: string): Outcome {
    const actor = this.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    const obj = this.objects.get(targetId);
    if (!obj || obj.def.roomId !== actor.roomId)
      return fail("not_found", `no object "${targetId}" in this room`);
    const room = this.rooms.get(actor.roomId)!;
    const from = { tx: actor.tx, ty: actor.ty };
    const dest = approachTile(room, from, obj.def.tile, this.definition.interactRangeTiles);
    if (!dest) return fail("collision_blocked", `${obj.def.name} cannot be reached from here`);
    const moved = this.applyMoveTo(entityId, dest);
    if (!moved.ok || moved.value.kind !== "moveTo") return moved;
    return {
      ok: true,
      value: { kind: "approach", result: moved.value.result, pathLength: moved.value.pathLength, dest },
    };
  }

  private stop(actor: Actor): void {
    actor.path = NO_PATH;
    actor.pathIndex = 0;
    actor.dest = -1;
    actor.dirX = 0;
    actor.dirY = 0;
  }

  private applyInteract(
    entityId: string,
    targetId: string,
    action: string,
    params: Record<string, unknown>,
  ): Outcome {
    const actor = this.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    const obj = this.objects.get(targetId);
    if (!obj || obj.def.roomId !== actor.roomId) {
      if (this.actors.get(targetId)?.roomId === actor.roomId) {
        return this.outcome({ type: "invalid_action", message: `${targetId} offers no "${action}" action` });
      }
      return fail("not_found", `no object "${targetId}" in room "${actor.roomId}"`);
    }
    if (!obj.handler.actions.includes(action)) {
      return this.outcome({
        type: "invalid_action",
        message: `a ${obj.def.objectType} supports: ${obj.handler.actions.join(", ")}`,
      });
    }
    const used = (outcome: InteractOutcome): Outcome => {
      const said = outcome.message === undefined ? "" : ` — ${outcome.message}`;
      this.remember(actor.id, "used", `${action} ${obj.def.name}: ${outcome.type}${said}`);
      return this.outcome(outcome);
    };
    const room = this.rooms.get(actor.roomId)!;
    const ts = room.tileSize;
    const distance = Math.hypot(
      (obj.def.tile.tx + 0.5) * ts - actor.x,
      (obj.def.tile.ty + 0.5) * ts - actor.y,
    );
    if (distance > this.definition.interactRangeTiles * ts) {
      return used({
        type: "too_far",
        message: `${targetId} is ${(distance / ts).toFixed(1)} tiles away; come within ${this.definition.interactRangeTiles}`,
      });
    }
    // Counted where the actor stood when it acted (a portal moves it during the interaction).
    const mask = actor.regionMask;
    const outcome = obj.handler.interact(this.interactContext(actor, obj), action, params);
    if (outcome.type === "ok") room.signals.count(this.signalBucket(), mask, "interact");
    return used(outcome);
  }

  private interactContext(actor: Actor, obj: WorldObject): InteractContext {
    const room = this.rooms.get(obj.def.roomId)!;
    return {
      objectId: obj.def.id,
      state: obj.state,
      actorId: actor.id,
      actorName: actor.name,
      nowMs: this.nowMs,
      setState: (field, value) => this.setObjectState(obj, field, value, actor.id),
      moveActor: (roomId, tile) => this.teleport(actor, roomId, tile),
      sendActor: (world, roomId, tile) => this.depart(actor, world, roomId, tile),
      tileOccupied: () => this.actorOnTile(room, obj.def.tile.tx, obj.def.tile.ty),
      othersIn: (regionId) => {
        const region = room.def.regions.find((r) => r.id === regionId);
        if (!region) return 0;
        return room.actors.filter((a) => a.id !== actor.id && covers(region, a.tx, a.ty)).length;
      },
      hold: (facing) => this.hold(actor, obj, facing),
    };
  }

  /** The operator's action on an object (a note taken down): no actor, no range, no signal. */
  private applyModerate(targetId: string, action: string, params: Record<string, unknown>): Outcome {
    const obj = this.objects.get(targetId);
    if (!obj) return fail("not_found", `no object "${targetId}"`);
    if (!obj.handler.moderate || !obj.handler.operatorActions?.includes(action)) {
      const offered = obj.handler.operatorActions?.join(", ") || "nothing";
      return {
        ok: true,
        value: {
          kind: "moderate",
          outcome: {
            type: "invalid_action",
            message: `the operator may do to a ${obj.def.objectType}: ${offered}`,
          },
        },
      };
    }
    const outcome = obj.handler.moderate(this.operatorContext(obj, undefined), action, params);
    const o =
      outcome.message === undefined
        ? { type: outcome.type }
        : { type: outcome.type, message: outcome.message };
    return { ok: true, value: { kind: "moderate", outcome: o } };
  }

  private operatorContext(obj: WorldObject, actorId: string | undefined): OperatorContext {
    return {
      objectId: obj.def.id,
      state: obj.state,
      nowMs: this.nowMs,
      setState: (field, value) => this.setObjectState(obj, field, value, actorId),
    };
  }

  /** Seats an actor on an object's tile (it lets go of anything it held before). */
  private hold(actor: Actor, obj: WorldObject, facing: Facing): void {
    this.releaseHeld(actor);
    const room = this.rooms.get(actor.roomId)!;
    this.stop(actor);
    this.teleport(actor, room.def.roomId, obj.def.tile);
    actor.facing = facing;
  }

  /** Lets go of whatever object holds the actor (a seat it sat on): it moved off, left or was
   * carried away. Holders are found from the objects' own state, so a snapshot needs nothing more. */
  private releaseHeld(actor: Actor): void {
    const room = this.rooms.get(actor.roomId);
    if (!room) return;
    for (const obj of room.objects) {
      if (obj.handler.holder?.(obj.state) === actor.id)
        obj.handler.release?.(this.operatorContext(obj, actor.id));
    }
  }

  /** An actor stepped onto a tile whose object acts on arrival (a portal): as if it used it. */
  private enterObject(actor: Actor, obj: WorldObject): void {
    const enter = obj.handler.enter;
    if (!enter) return;
    const room = this.rooms.get(actor.roomId)!;
    const mask = actor.regionMask;
    const outcome = enter(this.interactContext(actor, obj));
    if (!outcome) return;
    if (outcome.type === "ok") room.signals.count(this.signalBucket(), mask, "interact");
    const said = outcome.message === undefined ? "" : ` — ${outcome.message}`;
    this.remember(actor.id, "used", `stepped onto ${obj.def.name}: ${outcome.type}${said}`);
  }

  private outcome(outcome: InteractOutcome): Outcome {
    const o =
      outcome.message === undefined
        ? { type: outcome.type }
        : { type: outcome.type, message: outcome.message };
    return { ok: true, value: { kind: "interact", outcome: o } };
  }

  private setObjectState(
    obj: WorldObject,
    field: string,
    value: ObjectStateValue,
    actorId: string | undefined,
  ): void {
    obj.state[field] = value;
    obj.version++;
    const room = this.rooms.get(obj.def.roomId)!;
    room.refreshTile(obj.def.tile.tx, obj.def.tile.ty);
    this.emit(
      room,
      "object.state_changed",
      {
        objectId: obj.def.id,
        objectType: obj.def.objectType,
        patch: [{ op: "replace", path: `/${field}`, value }],
        version: obj.version,
      },
      { kind: "room" },
      actorId === undefined ? undefined : { actorId },
    );
  }

  private teleport(actor: Actor, roomId: string, tile: TileCoord): void {
    const target = this.rooms.get(roomId);
    if (!target) return;
    this.stop(actor);
    const ts = target.tileSize;
    if (actor.roomId !== roomId) {
      // The events schema allows only disconnect|kicked|room_closed as leave reasons; a portal
      // trip is reported as "disconnect" from the old room followed by a join in the new one, each
      // naming the other room (world-internal: toRoomId / fromRoomId).
      const from = actor.roomId;
      this.removeActor(actor, "disconnect", roomId);
      actor.x = (tile.tx + 0.5) * ts;
      actor.y = (tile.ty + 0.5) * ts;
      actor.tx = tile.tx;
      actor.ty = tile.ty;
      actor.handle = this.nextHandle++;
      this.placeActor(actor, target, from);
      return;
    }
    actor.x = (tile.tx + 0.5) * ts;
    actor.y = (tile.ty + 0.5) * ts;
    actor.tx = tile.tx;
    actor.ty = tile.ty;
    target.grid.update(actor);
    this.enteredTile(target, actor);
  }

  private applyChat(entityId: string, channel: ChatChannel, message: string): Outcome {
    const actor = this.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    if (message.trim().length === 0) return fail("bad_request", "message is empty");
    if (message.length > this.definition.chatMaxLength) {
      return fail("bad_request", `message is longer than ${this.definition.chatMaxLength} characters`, {
        length: message.length,
        max: this.definition.chatMaxLength,
      });
    }
    const room = this.rooms.get(actor.roomId)!;
    // The place decides who hears (places.ts): in a private room only those inside, on any channel.
    const privatePlaces = room.privatePlaces();
    const hears = (other: Actor) => withinHearing(privatePlaces, actor, other);
    const zone = privatePlaces.length > 0 ? placeAt(privatePlaces, actor.tx, actor.ty)?.id : undefined;
    let heardBy: readonly string[];
    if (channel === "global" && privatePlaces.length === 0) heardBy = room.presentIds();
    else if (channel === "global") heardBy = room.actors.filter(hears).map((a) => a.id);
    else {
      const near: string[] = [];
      const radius = this.definition.chatRadiusTiles * room.tileSize;
      room.grid.forEachWithin(actor.x, actor.y, radius, (other) => {
        if (hears(other)) near.push(other.id);
      });
      heardBy = near.sort(compareIds);
    }
    const id = `msg_${this.rng.idChars(16)}`;
    const record: ChatMessageRecord = {
      id,
      roomId: room.def.roomId,
      channel,
      fromEntityId: actor.id,
      fromName: actor.name,
      message,
      tsMs: this.nowMs,
      heardBy,
      ...(zone !== undefined ? { zone } : {}),
    };
    room.chat.add(record);
    this.signal(actor, "chat");
    const audience: Audience =
      channel === "global" && heardBy === room.presentIds()
        ? { kind: "room" }
        : { kind: "entities", ids: [...heardBy] };
    this.emit(
      room,
      "chat.message",
      { messageId: id, fromEntityId: actor.id, channel, message, tsMs: this.nowMs },
      audience,
    );
    this.remember(actor.id, "said", `said: ${message}`);
    for (const hearer of heardBy) {
      if (hearer !== actor.id) this.remember(hearer, "heard", `${actor.name} said: ${message}`);
    }
    return { ok: true, value: { kind: "chat", chatMessageId: id } };
  }

  /** A reflection into the agent's own memory. The agent must be in the world (a reflection is by an
   * agent that inhabits it, seed 003) and may only cite events its world has logged. */
  private applyReflect(input: Extract<Input, { kind: "reflect" }>): Outcome {
    if (!this.actors.has(input.entityId))
      return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    for (const source of input.sources) {
      const room = this.rooms.get(source.roomId);
      if (!room) return fail("bad_request", `source room "${source.roomId}" does not exist`);
      if (source.seq > room.log.lastSeq)
        return fail("bad_request", `source event ${source.seq} of room "${source.roomId}" has not happened`, {
          lastSeq: room.log.lastSeq,
        });
    }
    const stored = this.memoryFor(input.entityId).reflect({
      tsMs: this.nowMs,
      content: input.content,
      topics: [...input.topics],
      sources: input.sources.map((s) => ({ roomId: s.roomId, seq: s.seq })),
      importance: input.importance,
    });
    return { ok: true, value: { kind: "reflect", ...stored } };
  }

  private memoryFor(entityId: string): AgentMemory {
    let memory = this.memory.get(entityId);
    if (!memory) {
      memory = new AgentMemory();
      this.memory.set(entityId, memory);
    }
    return memory;
  }

  /** An episodic entry for an agent (humans keep no memory here). */
  private remember(entityId: string, what: EpisodeKind, text: string): void {
    if (entityId.startsWith(AGENT_ENTITY_PREFIX)) this.memoryFor(entityId).record(this.nowMs, what, text);
  }

  /** One side of a proximity change (`distance` null: they parted). The event is addressed to its
   * subject, and only agents read the events addressed to them (pollEvents); a browser shows who is
   * near from positions. So a human's side is not recorded: in a crowd it was most of the event log,
   * pushed everyone's cursors out of the retained window, and nobody could read it (DECISIONS). */
  private proximitySide(room: Room, subject: Actor, other: Actor, distance: number | null): void {
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

  private emit(
    room: Room,
    type: EventType,
    payload: Record<string, unknown>,
    audience: Audience,
    extra?: Pick<WorldEvent, "actorId" | "toRoomId" | "fromRoomId" | "toWorldId">,
  ): WorldEvent {
    const event = room.log.append(type, payload, audience, this.tickCount, this.nowMs, extra);
    this.stepEvents.push(event);
    return event;
  }

  // ---------------------------------------------------------------------------------------------
  // world signals (signals.ts): counted as the world applies actions, so replay and restore agree
  // ---------------------------------------------------------------------------------------------

  private signalBucket(): number {
    return signalBucketOf(this.tickCount, this.definition.tickRate);
  }

  /** An action by `actor`, counted in its room and the regions of its tile. */
  private signal(actor: Actor, kind: SignalKind): void {
    this.rooms.get(actor.roomId)!.signals.count(this.signalBucket(), actor.regionMask, kind);
  }

  /** After an actor's tile changed within its room: count the region borders it crossed. */
  private enteredTile(room: Room, actor: Actor): void {
    const mask = room.signals.maskAt(actor.tx, actor.ty);
    if (mask === actor.regionMask) return;
    room.signals.crossed(this.signalBucket(), actor.regionMask, mask);
    actor.regionMask = mask;
  }

  // ---------------------------------------------------------------------------------------------
  // simulation
  // ---------------------------------------------------------------------------------------------

  private simulate(): void {
    const stepLen = this.definition.walkSpeed / this.definition.tickRate;
    const debounce = this.definition.proximityDebounceTicks;
    const maxNeighbors = this.definition.proximityMaxNeighbors;
    // Actors that stepped onto a tile whose object acts on arrival (a portal): applied after every
    // room moved, since a portal moves the actor to another room's list.
    let stepped: { actor: Actor; objects: WorldObject[] }[] | undefined;
    for (const room of this.rooms.values()) {
      const actors = room.actors;
      for (let i = 0; i < actors.length; i++) {
        const actor = actors[i]!;
        const x0 = actor.x;
        const y0 = actor.y;
        if (actor.pathIndex < actor.path.length) this.walkPath(room, actor, stepLen);
        else if (actor.dirX !== 0 || actor.dirY !== 0) this.walkDir(room, actor, stepLen);
        const dx = actor.x - x0;
        const dy = actor.y - y0;
        actor.moving = dx !== 0 || dy !== 0;
        if (actor.moving) {
          actor.facing = facingFor(dx, dy, actor.facing);
          const tx0 = actor.tx;
          const ty0 = actor.ty;
          actor.tx = Math.min(room.width - 1, Math.max(0, Math.floor(actor.x / room.tileSize)));
          actor.ty = Math.min(room.height - 1, Math.max(0, Math.floor(actor.y / room.tileSize)));
          room.grid.update(actor);
          this.enteredTile(room, actor);
          if ((actor.tx !== tx0 || actor.ty !== ty0) && room.onEnter.size > 0) {
            const objects = room.onEnter.get(actor.ty * room.width + actor.tx);
            if (objects) {
              stepped ??= [];
              stepped.push({ actor, objects });
            }
          }
        }
      }
    }
    for (const { actor, objects } of stepped ?? []) {
      for (const obj of objects) {
        // Still there (an earlier object of the same tile may have carried it away).
        if (
          this.actors.get(actor.id) === actor &&
          actor.roomId === obj.def.roomId &&
          actor.tx === obj.def.tile.tx &&
          actor.ty === obj.def.tile.ty
        )
          this.enterObject(actor, obj);
      }
    }
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

  /** Walks along tile centres; re-paths (or stops) when a door closed on the way. */
  private walkPath(room: Room, actor: Actor, stepLen: number): void {
    let remaining = stepLen;
    const ts = room.tileSize;
    let repathed = false;
    while (remaining > 0 && actor.pathIndex < actor.path.length) {
      const index = actor.path[actor.pathIndex]!;
      if (room.blocked[index]) {
        const from = actor.ty * room.width + actor.tx;
        const path = repathed ? undefined : room.pathFinder.find(room, from, actor.dest);
        if (!path) {
          this.stop(actor);
          return;
        }
        repathed = true;
        actor.path = path;
        actor.pathIndex = 0;
        continue;
      }
      const tx = index % room.width;
      const cx = (tx + 0.5) * ts;
      const cy = ((index - tx) / room.width + 0.5) * ts;
      const dx = cx - actor.x;
      const dy = cy - actor.y;
      const dist = Math.sqrt(dx * dx + dy * dy);
      if (dist <= remaining) {
        actor.x = cx;
        actor.y = cy;
        remaining -= dist;
        actor.pathIndex++;
      } else {
        actor.x += (dx / dist) * remaining;
        actor.y += (dy / dist) * remaining;
        remaining = 0;
      }
    }
    if (actor.pathIndex >= actor.path.length) this.stop(actor);
  }

  private walkDir(room: Room, actor: Actor, stepLen: number): void {
    const scale = actor.dirX !== 0 && actor.dirY !== 0 ? stepLen * Math.SQRT1_2 : stepLen;
    moveWithCollision(
      room,
      room.tileSize,
      actor.x,
      actor.y,
      actor.dirX * scale,
      actor.dirY * scale,
      this.scratch,
    );
    actor.x = this.scratch.x;
    actor.y = this.scratch.y;
  }

  // ---------------------------------------------------------------------------------------------
  // reads
  // ---------------------------------------------------------------------------------------------

  private actorView(actor: Actor): EntityView {
    return {
      id: actor.id,
      kind: actor.kind,
      name: actor.name,
      roomId: actor.roomId,
      pos: { x: actor.x, y: actor.y },
      tile: { tx: actor.tx, ty: actor.ty },
      facing: actor.facing,
      speed: actor.moving ? this.definition.walkSpeed : 0,
      ...(actor.thinking ? { thinking: true as const } : {}),
    };
  }

  private objectEntityView(obj: WorldObject): EntityView {
    const ts = this.rooms.get(obj.def.roomId)!.tileSize;
    return {
      id: obj.def.id,
      kind: "object",
      name: obj.def.name,
      roomId: obj.def.roomId,
      pos: { x: (obj.def.tile.tx + 0.5) * ts, y: (obj.def.tile.ty + 0.5) * ts },
      tile: { tx: obj.def.tile.tx, ty: obj.def.tile.ty },
      facing: "down",
      speed: 0,
      meta: { objectType: obj.def.objectType },
    };
  }

  getEntity(id: string): EntityView | undefined {
    const actor = this.actors.get(id);
    if (actor) return this.actorView(actor);
    const obj = this.objects.get(id);
    return obj ? this.objectEntityView(obj) : undefined;
  }

  actorsInRoom(roomId: string): EntityView[] {
    const room = this.rooms.get(roomId);
    return room ? room.actors.map((a) => this.actorView(a)) : [];
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
      const d = Math.hypot((obj.def.tile.tx + 0.5) * ts - center.x, (obj.def.tile.ty + 0.5) * ts - center.y);
      if (d <= radius) found.push({ of: obj, id: obj.def.id, distance: d });
    }
    found.sort((p, q) => p.distance - q.distance || compareIds(p.id, q.id));
    const kept = found.length > limit ? found.slice(0, Math.max(0, Math.floor(limit))) : found;
    return kept.map((hit) => ({
      entity: "def" in hit.of ? this.objectEntityView(hit.of) : this.actorView(hit.of),
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
      const { tx, ty } = obj.def.tile;
      if (Math.hypot((tx + 0.5) * ts - actor.x, (ty + 0.5) * ts - actor.y) <= radius)
        seen.push({ id: obj.def.id, tile: { tx, ty }, version: obj.version });
    }
    return viewDigest(actor.roomId, { tx: actor.tx, ty: actor.ty }, seen);
  }

  objectView(objectId: string): ObjectView | undefined {
    const obj = this.objects.get(objectId);
    if (!obj) return undefined;
    return {
      objectType: obj.def.objectType,
      state: { ...obj.state },
      version: obj.version,
      affords: obj.handler.affordances(obj.state),
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
      { rng: this.rng.state(), nextHandle: this.nextHandle },
    );
  }

  snapshotHash(): string {
    return canonicalHash(this.snapshot());
  }
}
