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
  close(): Promise<void>;
}

export const LOG_STREAM = "OCW_TICKS";
const LOG_SUBJECTS = "ocw.ticks.*";

export function logSubject(room: string): string {
  return `ocw.ticks.${room}`;
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
    await ensureLogStream(jsm, replicas);
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
      close: async () => {
        await nc.drain().catch(() => nc.close());
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

async function ensureLogStream(jsm: Awaited<ReturnType<typeof jetstreamManager>>, replicas: number) {
  try {
    await jsm.streams.info(LOG_STREAM);
  } catch {
    await jsm.streams.add({
      name: LOG_STREAM,
      subjects: [LOG_SUBJECTS],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: replicas,
      // Nothing ages out: the log behind a snapshot is trimmed by its owner, nothing else.
      max_age: 0,
    });
  }
}
