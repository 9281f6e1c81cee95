// What an action's rule may touch of the world (actions/, presence.ts, movement.ts, effects.ts):
// its state and the few services every rule shares (events, memory, signals). `World` implements
// it; the rules never see the tick loop, transactions or snapshots.
import type { Actor } from "./actor.ts";
import type { Relocation } from "./fit-definition.ts";
import type { AgentMemory, EpisodeKind } from "./memory.ts";
import type { WorldRng } from "./rng.ts";
import type { Room } from "./room.ts";
import type { SignalKind } from "./signals.ts";
import type { WorldParts } from "./snapshot.ts";
import type { Audience, EventType, InputValue, WorldDefinition, WorldError, WorldEvent } from "./types.ts";

export type Outcome = { ok: true; value: InputValue } | { ok: false; error: WorldError };

export function fail(code: WorldError["code"], message: string, details?: Record<string, unknown>): Outcome {
  return { ok: false, error: details ? { code, message, details } : { code, message } };
}

/** What an event may name besides its payload (WorldEvent's world-internal fields). */
export type EventExtra = Pick<WorldEvent, "actorId" | "toRoomId" | "fromRoomId" | "toWorldId">;

export type Emit = (
  room: Room,
  type: EventType,
  payload: Record<string, unknown>,
  to: Audience,
  extra?: EventExtra,
) => WorldEvent;

export interface WorldCore
  extends Pick<
    WorldParts,
    "definition" | "rooms" | "actors" | "objects" | "proximity" | "transfers" | "records"
  > {
  /** The tick being applied. */
  readonly tick: number;
  /** Simulation time of that tick. */
  readonly serverTsMs: number;
  readonly rng: WorldRng;
  /** A fresh small integer for an actor's proximity key (snapshotted). */
  nextActorHandle(): number;
  /** Appends an event to a room's log and to this tick's events. */
  readonly emit: Emit;
  /** An episodic entry for an agent (humans keep no memory here). */
  remember(entityId: string, what: EpisodeKind, text: string): void;
  memoryFor(entityId: string): AgentMemory;
  /** An action by `actor`, counted in its room and the regions of its tile (signals.ts). */
  signal(actor: Actor, kind: SignalKind): void;
  signalBucket(): number;
  /** After an actor's tile changed within its room: count the region borders it crossed. */
  enteredTile(room: Room, actor: Actor): void;
  /** An actor moved or arrived in a room (`enteredMask`: the region bits it just walked into): the
   * objects that watch where actors go (their type's `visit`) hear of it. */
  arrivedAt(room: Room, actor: Actor, enteredMask: number): void;
  /** A chat line to one actor alone, from no actor (the world, an object that speaks). */
  sayTo(room: Room, entityId: string, fromEntityId: string, fromName: string, message: string): void;
  /** One side of a proximity change (`distance` null: they parted). */
  proximitySide(room: Room, subject: Actor, other: Actor, distance: number | null): void;
  viewOf(entityId: string): string | undefined;
  /** Takes a new definition between two inputs (actions/redefine.ts; what is kept: fit-definition.ts). */
  redefine(definition: WorldDefinition): Relocation[];
}
