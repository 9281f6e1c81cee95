// The world as a cluster room (config `cluster`, docs/cluster.md): instead of the local node:sqlite
// store, the room's shared JetStream log is its journal, and this gateway serves it only while it
// holds the room's lease. A room held by another gateway is not an error to fix but a wait: the
// service retries (RoomHeldElsewhereError) often enough to take the room soon after its lease lapses.

import { type ClusterRoom, takeRoom } from "../cluster/cluster-room.ts";
import { type ClusterResources, connectCluster } from "../cluster/nats.ts";
import { type DirectoryEntry, readDirectory } from "../cluster/ownership.ts";
import type { ClusterConfig, ResolvedConfig } from "../config/config.ts";
import { loadDefinition, type OpenedWorld } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger, type WorldRuntime } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";

/** What the host keeps of its cluster room (status, the service's loss handling). */
export interface ClusterHostPart {
  room: ClusterRoom;
  resources: ClusterResources;
  config: ClusterConfig;
  directory(): Promise<Directory>;
  /** The gateway serving another cluster room now, as last read (a second ago at most): where an
   * agent that went there through a portal is sent (docs/cluster.md). */
  ownerOf(room: string): DirectoryEntry | undefined;
  /** Stops re-reading the directory. */
  stopWatching(): void;
}

/** The directory as a gateway reads it: every room, its owner, where to reach it, whether its
 * lease is held now. */
export type Directory = (DirectoryEntry & { live: boolean })[];

/** Another gateway holds every room this one may host: the service tries again in `retryInMs`.
 * `standby` has the whole directory as read at this try (the standby's status and redirects). */
export class RoomHeldElsewhereError extends Error {
  readonly retryInMs: number;
  readonly owners: DirectoryEntry[];
  readonly standby: StandbyView | undefined;
  constructor(owners: DirectoryEntry[], retryInMs: number, standby?: StandbyView) {
    super(
      `every cluster room this gateway may host is held elsewhere (${owners.map((o) => `${o.room}: ${o.gatewayId} epoch ${o.epoch}`).join(", ") || "no directory entry yet"}); standing by`,
    );
    this.name = "RoomHeldElsewhereError";
    this.retryInMs = retryInMs;
    this.owners = owners;
    this.standby = standby;
  }
}

export async function openClusterWorld(
  config: ResolvedConfig,
  cluster: ClusterConfig,
  logger: RuntimeLogger,
): Promise<OpenedWorld & { cluster: ClusterHostPart }> {
  const definition = await loadDefinition(config);
  const resources = await connectCluster(cluster, {
    leaseTtlMs: cluster.leaseTtlMs,
    replicas: cluster.replicas,
    name: `openclawworld ${cluster.gatewayId}`,
  });
  try {
    const rooms = cluster.rooms ?? [definition.name];
    let room: ClusterRoom | undefined;
    for (const id of rooms) {
      room = await takeRoom({
        resources,
        room: id,
        definition,
        claimant: { gatewayId: cluster.gatewayId, baseUrl: cluster.publicBaseUrl },
        leaseTtlMs: cluster.leaseTtlMs,
        snapshotEveryTicks: cluster.snapshotEveryTicks,
        logger,
      });
      if (room) break;
    }
    if (!room) {
      const directory = await readDirectory(resources);
      const owners = rooms.flatMap((id) => directory.filter((entry) => entry.room === id));
      throw new RoomHeldElsewhereError(
        owners.map(({ live: _live, ...entry }) => entry),
        Math.max(100, Math.floor(cluster.leaseTtlMs / 4)),
        { gatewayId: cluster.gatewayId, rooms, directory },
      );
    }
    logger.info(
      `openclawworld: serving cluster room ${room.room} (epoch ${room.lease.epoch}) at tick ${room.runtime.world.tick}: snapshot at ${room.restored.snapshotTick ?? "none"} + ${room.restored.replayedTicks} logged ticks`,
    );
    const replayed = room.restored.snapshotTick !== undefined || room.restored.replayedTicks > 0;
    const watched = watchDirectory(resources, logger);
    return {
      definition,
      runtime: room.runtime,
      origin: replayed ? "restored" : "fresh",
      store: undefined,
      side: undefined,
      recovery: undefined,
      problems: [],
      cluster: {
        room,
        resources,
        config: cluster,
        directory: () => readDirectory(resources),
        ownerOf: (id) => liveOwner(watched.current(), cluster.gatewayId, (room) => room === id),
        stopWatching: watched.stop,
      },
    };
  } catch (error) {
    await resources.close();
    throw error;
  }
}

/** Gives the room up and disconnects: the last of the host's closers. */
export async function closeClusterPart(part: ClusterHostPart, logger: RuntimeLogger): Promise<void> {
  part.stopWatching();
  try {
    await part.room.release();
  } catch (error) {
    logger.warn(`openclawworld: releasing cluster room ${part.room.room} failed: ${describe(error)}`);
  }
  await part.resources.close().catch(() => undefined);
}

/** The operator status's `cluster` part: this gateway's room and epoch, and the whole directory
 * (every room, its owner, where to reach it, whether its lease is held). */
export async function clusterStatus(part: ClusterHostPart) {
  return {
    gatewayId: part.config.gatewayId,
    room: part.room.room,
    epoch: part.room.lease.epoch,
    serving: part.room.lostReason === undefined,
    ...(part.room.lostReason === undefined ? {} : { lostReason: part.room.lostReason }),
    logSequence: part.room.log.sequence,
    directory: await part.directory(),
  };
}

/** What a standby knows of its cluster (kept in the process slot while it waits, refreshed at every
 * try to take a room: a few times per lease period). */
export interface StandbyView {
  gatewayId: string;
  /** The cluster rooms this gateway may host (config `cluster.rooms`, or its world's name). */
  rooms: string[];
  directory: Directory;
}

/** Where an AIC agent that left this world through a portal is sent (aic-app.ts): the world it went
 * to, and that world's gateway now. */
export function travelledVia(runtime: WorldRuntime, part: Pick<ClusterHostPart, "ownerOf">) {
  return (agentId: string): { world: string; owner: DirectoryEntry | undefined } | undefined => {
    const world = runtime.world.departedTo(agentEntityId(agentId));
    return world === undefined ? undefined : { world, owner: part.ownerOf(world) };
  };
}

/** How often a serving gateway re-reads the directory (for travellers it sends on). */
const DIRECTORY_REFRESH_MS = 1_000;

/** The directory, re-read in the background; a failed read keeps the last one. */
function watchDirectory(resources: ClusterResources, logger: RuntimeLogger) {
  let current: Directory = [];
  let warned = false;
  const refresh = () =>
    readDirectory(resources).then(
      (directory) => {
        current = directory;
        warned = false;
      },
      (error: unknown) => {
        if (!warned) logger.warn(`openclawworld: reading the cluster directory failed: ${describe(error)}`);
        warned = true;
      },
    );
  void refresh();
  const timer = setInterval(refresh, DIRECTORY_REFRESH_MS);
  timer.unref();
  return { current: () => current, stop: () => clearInterval(timer) };
}

/** The gateway holding the lease of a room `wanted`, unless it is `self` (its own lease from before a
 * restart may still be live: sending callers to itself would loop). */
function liveOwner(
  directory: Directory,
  self: string,
  wanted: (room: string) => boolean,
): DirectoryEntry | undefined {
  const entry = directory.find((e) => e.live && e.gatewayId !== self && wanted(e.room));
  if (!entry) return undefined;
  const { live: _live, ...owner } = entry;
  return owner;
}

/** The one rule for reaching the owner (docs/cluster.md): the gateway serving a room this standby
 * may host, if the directory names one whose lease is held and it is not this gateway (its own lease
 * from before a restart may still be live: sending callers to itself would loop). Every door (AIC
 * routes, the web page and its WebSocket, the tools) asks this, and redirects when it answers. */
export function ownerElsewhere(standby: StandbyView | undefined): DirectoryEntry | undefined {
  if (!standby) return undefined;
  return liveOwner(standby.directory, standby.gatewayId, (room) => standby.rooms.includes(room));
}
