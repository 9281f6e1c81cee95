// The read side of the contract: what adapters may look at in the world (the web view sync, the
// tools' room lookup, status) and the tick feed that tells them when to look again. Writes never go
// here: every change to the world is an action through AicService.
import type { TickInfo, WorldRuntime } from "../runtime/world-runtime.ts";
import type { WorldApi } from "../world/types.ts";

/** An agent's turns and calls as the history keeps them (the replay and follow pages show them). */
export type { AgentTurn, StoredAgentTurn } from "../runtime/history.ts";
export { WORLD_NOTICE_ENTITY_ID, WORLD_NOTICE_NAME } from "../world/fit-definition.ts";
export { AGENT_ENTITY_PREFIX, agentEntityId, HUMAN_ENTITY_PREFIX } from "../world/ids.ts";
export { CREATURE_TYPE } from "../world/objects/creature.ts";
/** The world's clock rules, for a resident's day plan (src/residents/routine.ts). */
export { clockMinutes, minuteOfDay, withinClocks } from "../world/opening-hours.ts";
export { speakerName } from "../world/speakers.ts";
/** What the reads answer with: adapters name these types here, never in src/world. */
export type { ActorRecordView, EntityView, TileCoord, WorldEvent } from "../world/types.ts";
export type { TickInfo };

export interface WorldReads
  extends Pick<
    WorldApi,
    | "definition"
    | "tick"
    | "serverTsMs"
    | "getEntity"
    | "actorsInRoom"
    | "queryRadius"
    | "objectView"
    | "isBlocked"
    | "eventsFor"
    | "latestSeq"
    | "enteredAtSeq"
    | "chatHistoryFor"
    | "privateRegions"
    | "memoryOf"
    | "recordsOf"
  > {
  /** Called after every tick with what it produced; returns the unsubscribe function. */
  onTick(listener: (info: TickInfo) => void): () => void;
  /** The tick's recent busy share of its interval (RuntimeHealth.load): adapters shed new load. */
  load(): number;
  /** Changes when the operator replaced the world (restore): a view kept of it must be resent whole. */
  readonly worldEpoch: number;
}

/** Read-only view of a hosted world: the world's own query methods, without step() or snapshots.
 * Every read asks the runtime for its current world: an operator restore or a journal rollback
 * swaps it between ticks, and a view kept from before would show the undone state. A replica (the
 * fan-out process's) passes the load of the gateway whose world it mirrors. */
export function worldReads(
  runtime: WorldRuntime,
  load: () => number = () => runtime.health().load,
): WorldReads {
  const world = (): WorldApi => runtime.world;
  return {
    get definition() {
      return world().definition;
    },
    get tick() {
      return world().tick;
    },
    get serverTsMs() {
      return world().serverTsMs;
    },
    getEntity: (id) => world().getEntity(id),
    actorsInRoom: (roomId) => world().actorsInRoom(roomId),
    queryRadius: (roomId, center, radius, limit) => world().queryRadius(roomId, center, radius, limit),
    objectView: (objectId) => world().objectView(objectId),
    isBlocked: (roomId, tile) => world().isBlocked(roomId, tile),
    eventsFor: (recipientId, roomId, afterSeq, limit) =>
      world().eventsFor(recipientId, roomId, afterSeq, limit),
    latestSeq: (roomId) => world().latestSeq(roomId),
    enteredAtSeq: (entityId, roomId) => world().enteredAtSeq(entityId, roomId),
    chatHistoryFor: (recipientId, roomId, sinceTsMs, limit) =>
      world().chatHistoryFor(recipientId, roomId, sinceTsMs, limit),
    privateRegions: (roomId) => world().privateRegions(roomId),
    memoryOf: (entityId) => world().memoryOf(entityId),
    recordsOf: (entityId) => world().recordsOf(entityId),
    onTick: (listener) => runtime.onTick(listener),
    load,
    get worldEpoch() {
      return runtime.worldEpoch;
    },
  };
}
