// The world as a cluster room (config `cluster`, docs/cluster.md): instead of the local node:sqlite
// store, the room's shared JetStream log is its journal, and this gateway serves it only while it
// holds the room's lease. A room held by another gateway is not an error to fix but a wait: the
// service retries (RoomHeldElsewhereError) often enough to take the room soon after its lease lapses.

import { type ClusterRoom, takeRoom } from "../cluster/cluster-room.ts";
import { type ClusterResources, connectCluster } from "../cluster/nats.ts";
import { type DirectoryEntry, directoryEntry, readDirectory } from "../cluster/ownership.ts";
import type { ClusterConfig, ResolvedConfig } from "../config/config.ts";
import { loadDefinition, type OpenedWorld } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";

/** What the host keeps of its cluster room (status, the service's loss handling). */
export interface ClusterHostPart {
  room: ClusterRoom;
  resources: ClusterResources;
  config: ClusterConfig;
  directory(): Promise<(DirectoryEntry & { live: boolean })[]>;
}

/** Another gateway holds every room this one may host: the service tries again in `retryInMs`. */
export class RoomHeldElsewhereError extends Error {
  readonly retryInMs: number;
  readonly owners: DirectoryEntry[];
  constructor(owners: DirectoryEntry[], retryInMs: number) {
    super(
      `every cluster room this gateway may host is held elsewhere (${owners.map((o) => `${o.room}: ${o.gatewayId} epoch ${o.epoch}`).join(", ") || "no directory entry yet"}); standing by`,
    );
    this.name = "RoomHeldElsewhereError";
    this.retryInMs = retryInMs;
    this.owners = owners;
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
      const owners = (await Promise.all(rooms.map((id) => directoryEntry(resources, id)))).filter(
        (entry): entry is DirectoryEntry => entry !== undefined,
      );
      throw new RoomHeldElsewhereError(owners, Math.max(100, Math.floor(cluster.leaseTtlMs / 4)));
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
