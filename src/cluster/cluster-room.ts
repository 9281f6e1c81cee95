// A cluster room on this gateway: take its lease, restore it from the shared log, fence the log,
// and tick it with the log as its journal. When the lease is lost or an append is refused the
// runtime stops at once and onLost listeners hear why (the host stops serving the room); a standby
// gateway waits in waitForRoom and takes the room when its lease lapses.
import { describe, type RuntimeLogger, WorldRuntime } from "../runtime/world-runtime.ts";
import type { WorldDefinition } from "../world/types.ts";
import { type Handoff, startHandoff } from "./handoff.ts";
import type { ClusterResources } from "./nats.ts";
import { type Claimant, RoomLease } from "./ownership.ts";
import { type RestoredRoom, restoreRoom, SharedTickLog } from "./shared-log.ts";

export interface ClusterRoomOptions {
  resources: ClusterResources;
  room: string;
  definition: WorldDefinition;
  claimant: Claimant;
  leaseTtlMs: number;
  snapshotEveryTicks: number;
  logger: RuntimeLogger;
}

export interface ClusterRoom {
  room: string;
  lease: RoomLease;
  log: SharedTickLog;
  runtime: WorldRuntime;
  restored: RestoredRoom;
  /** Travellers through portals to and from other cluster rooms (handoff.ts). */
  handoff: Handoff;
  /** Why the room was lost, once it was. */
  readonly lostReason: string | undefined;
  onLost(listener: (reason: string) => void): void;
  /** A clean stop: the runtime stops and the lease is released for another gateway at once. */
  release(): Promise<void>;
}

/** Takes the room if its lease is free; undefined when another gateway holds it (or the lease
 * lapsed while the room was restored). */
export async function takeRoom(options: ClusterRoomOptions): Promise<ClusterRoom | undefined> {
  const { resources, room, definition, logger } = options;
  const lease = await RoomLease.tryAcquire(resources, room, options.claimant, { ttlMs: options.leaseTtlMs });
  if (!lease) return undefined;
  lease.startRenewing();
  try {
    const restored = await restoreRoom(resources, room, definition);
    const log = new SharedTickLog({
      resources,
      room,
      lease,
      restored,
      snapshotEveryTicks: options.snapshotEveryTicks,
      logger,
    });
    await log.fence(restored.world);
    // The restore can outlast the lease on a busy machine: then the room is not ours to serve, and
    // this gateway stands by again (whoever takes it next replays this fence's epoch record too).
    if (!lease.valid()) {
      await lease.release();
      logger.warn(`openclawworld: cluster room ${room}: the lease lapsed while it was restored; standing by`);
      return undefined;
    }
    const runtime = new WorldRuntime(restored.world, logger);
    runtime.journal = log;
    const handoff = await startHandoff({ resources, room, runtime, logger });
    return assemble(room, lease, log, runtime, restored, handoff, logger);
  } catch (error) {
    await lease.release();
    throw error;
  }
}

function assemble(
  room: string,
  lease: RoomLease,
  log: SharedTickLog,
  runtime: WorldRuntime,
  restored: RestoredRoom,
  handoff: Handoff,
  logger: RuntimeLogger,
): ClusterRoom {
  let lostReason: string | undefined;
  const listeners: ((reason: string) => void)[] = [];
  const lose = (reason: string) => {
    if (lostReason !== undefined) return;
    lostReason = reason;
    runtime.stop();
    handoff.stop();
    logger.error(
      `openclawworld: cluster room ${room} (epoch ${lease.epoch}) is no longer served here: ${reason}`,
    );
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (error) {
        logger.warn(`openclawworld: a cluster room listener failed: ${describe(error)}`);
      }
    }
  };
  lease.onLost((why, detail) => lose(`lease ${why}: ${detail}`));
  runtime.onTick(() => {
    if (log.lostReason) {
      lose(log.lostReason);
      return;
    }
    log.maybeSnapshot(runtime.world).catch((error: unknown) => {
      logger.warn(`openclawworld: cluster room ${room}: snapshot failed: ${describe(error)}`);
    });
  });
  // A refused append stops the runtime from inside (its journal cannot recover): notice it here.
  const watch = setInterval(() => {
    if (log.lostReason) lose(log.lostReason);
    if (lostReason !== undefined) clearInterval(watch);
  }, 200);
  watch.unref();
  return {
    room,
    lease,
    log,
    runtime,
    restored,
    handoff,
    get lostReason() {
      return lostReason;
    },
    onLost(listener) {
      // Lost before this listener came (right after the take): told on the next turn, once its
      // registrant has finished setting up (service.ts checks that the host is the current one).
      if (lostReason !== undefined) {
        const reason = lostReason;
        setTimeout(() => listener(reason), 0);
      } else listeners.push(listener);
    },
    async release() {
      clearInterval(watch);
      runtime.stop();
      handoff.stop();
      lostReason ??= "released";
      await lease.release();
    },
  };
}

/** Stands by until the room's lease is free, then takes it. Polls every `pollMs` (a quarter of the
 * TTL by default): the takeover comes within TTL + pollMs of the owner's last renewal. */
export async function waitForRoom(
  options: ClusterRoomOptions & { signal?: AbortSignal; pollMs?: number },
): Promise<ClusterRoom> {
  const pollMs = options.pollMs ?? Math.max(100, Math.floor(options.leaseTtlMs / 4));
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const taken = await takeRoom(options);
      if (taken) return taken;
    } catch (error) {
      options.logger.warn(
        `openclawworld: cluster room ${options.room}: could not take it: ${describe(error)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
