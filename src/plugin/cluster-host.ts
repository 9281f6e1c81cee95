// The world as a cluster room (config `cluster`, docs/cluster.md): instead of the local node:sqlite
// store, the room's shared JetStream log is its journal, and this gateway serves it only while it
// holds the room's lease. A room held by another gateway is not an error to fix but a wait: the
// service retries (RoomHeldElsewhereError) often enough to take the room soon after its lease lapses.

import { type ClusterRoom, takeRoom } from "../cluster/cluster-room.ts";
import { type ClusterResources, connectCluster } from "../cluster/nats.ts";
import { type DirectoryEntry, readDirectory } from "../cluster/ownership.ts";
import type { ClusterConfig, ResolvedConfig } from "../config/config.ts";
import { loadDefinition, type OpenedWorld } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";

/** What the host keeps of its cluster room (status, the service's loss handling). */
export interface ClusterHostPart {
  room: ClusterRoom;
  resources: ClusterResources;
  config: ClusterConfig;
  directory(): Promise<Directory>;
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
    return {
      definition,
      runtime: room.runtime,
      origin: replayed ? "restored" : "fresh",
      store: undefined,
      side: undefined,
      recovery: undefined,
      problems: [],
      cluster: { room, resources, config: cluster, directory: () => readDirectory(resources) },
    };
  } catch (error) {
    await resources.close();
    throw error;
  }
}

/** Gives the room up and disconnects: the last of the host's closers. */
export async function closeClusterPart(part: ClusterHostPart, logger: RuntimeLogger): Promise<void> {
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

/** The one rule for reaching the owner (docs/cluster.md): the gateway serving a room this standby
 * may host, if the directory names one whose lease is held and it is not this gateway (its own lease
 * from before a restart may still be live: sending callers to itself would loop). Every door (AIC
 * routes, the web page and its WebSocket, the tools) asks this, and redirects when it answers. */
export function ownerElsewhere(standby: StandbyView | undefined): DirectoryEntry | undefined {
  const entry = standby?.directory.find(
    (e) => e.live && e.gatewayId !== standby.gatewayId && standby.rooms.includes(e.room),
  );
  if (!entry) return undefined;
  const { live: _live, ...owner } = entry;
  return owner;
}
