// The cluster's NATS resources, named once: the directory and lease buckets, the shared tick log
// stream and the snapshot bucket. Every gateway of a cluster opens them with the same settings.
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";

export interface NatsTarget {
  servers: readonly string[];
  user?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
}

export interface ClusterResources {
  nc: NatsConnection;
  /** room -> who owns it now, at which fencing epoch, where to reach it (no TTL: the epoch only grows). */
  directory: KV;
  /** room -> the owner's lease; the bucket's TTL makes a lease that is not renewed disappear. */
  leases: KV;
  /** room -> the newest snapshot the log is trimmed behind. */
  snapshots: KV;
  /** The stream holding every room's tick log, one subject per room (logSubject). */
  logStream: string;
  /** The stream of travellers on their way to a room, one subject per target room (transferSubject). */
  transferStream: string;
  close(): Promise<void>;
}

export const LOG_STREAM = "OCW_TICKS";
const LOG_SUBJECTS = "ocw.ticks.*";

export function logSubject(room: string): string {
  return `ocw.ticks.${room}`;
}

export const TRANSFER_STREAM = "OCW_TRANSFERS";
const TRANSFER_SUBJECTS = "ocw.transfers.*";
/** How long JetStream drops a second publish of the same transfer id: far longer than a failover
 * takes to re-send (the target's own record of applied ids covers anything later). */
const TRANSFER_DEDUP_WINDOW_MS = 10 * 60_000;

export function transferSubject(room: string): string {
  return `ocw.transfers.${room}`;
}

export async function connectCluster(
  target: NatsTarget,
  options: { leaseTtlMs: number; replicas?: number; name?: string },
): Promise<ClusterResources> {
  const nc = await connect({
    servers: [...target.servers],
    ...(target.user !== undefined ? { user: target.user, pass: target.password } : {}),
    ...(target.token !== undefined ? { token: target.token } : {}),
    ...(options.name ? { name: options.name } : {}),
    // A gateway keeps trying: a NATS restart must not leave it disconnected for good.
    maxReconnectAttempts: -1,
  });
  try {
    const replicas = options.replicas ?? 1;
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, LOG_STREAM, LOG_SUBJECTS, replicas, { retention: RetentionPolicy.Limits });
    // A work queue: a transfer stays until its target room's owner acknowledges it, however long
    // the room waits for an owner.
    await ensureStream(jsm, TRANSFER_STREAM, TRANSFER_SUBJECTS, replicas, {
      retention: RetentionPolicy.Workqueue,
      duplicate_window: TRANSFER_DEDUP_WINDOW_MS * 1_000_000,
    });
    const kvm = new Kvm(jetstream(nc));
    const directory = await kvm.create("ocw-rooms", { history: 1, replicas });
    const leases = await kvm.create("ocw-leases", { history: 1, replicas, ttl: options.leaseTtlMs });
    const snapshots = await kvm.create("ocw-snapshots", { history: 1, replicas });
    return {
      nc,
      directory,
      leases,
      snapshots,
      logStream: LOG_STREAM,
      transferStream: TRANSFER_STREAM,
      close: async () => {
        await nc.drain().catch(() => nc.close());
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

type StreamManager = Awaited<ReturnType<typeof jetstreamManager>>;

/** Creates the stream unless it exists (every gateway opens it with the same settings). Nothing ages
 * out of either: the log behind a snapshot is trimmed by its owner, a transfer is removed when its
 * target acknowledges it. */
async function ensureStream(
  jsm: StreamManager,
  name: string,
  subject: string,
  replicas: number,
  settings: { retention: RetentionPolicy; duplicate_window?: number },
) {
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({
      name,
      subjects: [subject],
      storage: StorageType.File,
      num_replicas: replicas,
      max_age: 0,
      ...settings,
    });
  }
}
