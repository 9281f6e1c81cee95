// Who serves a cluster room: a lease in the TTL'd lease bucket (taken with create(), renewed with a
// revision compare-and-set) and the room's entry in the directory, whose fencing epoch grows by one
// at every takeover. A gateway serves a room only while its lease holds: a renewal refused (another
// gateway took the room) or not confirmed within the TTL ends it at once (onLost). The shared log
// (tick-log.ts) is the second fence: a deposed owner's append is refused by the expected sequence.
import type { KV } from "@nats-io/kv";
import { describe } from "../runtime/world-runtime.ts";

export interface DirectoryEntry {
  room: string;
  gatewayId: string;
  baseUrl: string;
  epoch: number;
}

export interface OwnershipBuckets {
  directory: KV;
  leases: KV;
}

export interface Claimant {
  gatewayId: string;
  baseUrl: string;
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** The directory: every room ever owned, its last owner and epoch. A room whose lease has lapsed
 * still names its last owner here; `live` says whether the lease is held. */
export async function readDirectory(
  buckets: OwnershipBuckets,
): Promise<(DirectoryEntry & { live: boolean })[]> {
  const rooms: string[] = [];
  for await (const key of await buckets.directory.keys()) rooms.push(key);
  const entries: (DirectoryEntry & { live: boolean })[] = [];
  for (const room of rooms.sort()) {
    const entry = await buckets.directory.get(room);
    if (entry?.operation !== "PUT") continue;
    const lease = await buckets.leases.get(room);
    const value = entry.json<DirectoryEntry>();
    const holder = lease?.operation === "PUT" ? lease.json<DirectoryEntry>() : undefined;
    entries.push({ ...value, live: holder?.epoch === value.epoch });
  }
  return entries;
}

export async function directoryEntry(
  buckets: OwnershipBuckets,
  room: string,
): Promise<DirectoryEntry | undefined> {
  const entry = await buckets.directory.get(room);
  return entry?.operation === "PUT" ? entry.json<DirectoryEntry>() : undefined;
}

export type LeaseLoss = "deposed" | "unconfirmed" | "released";

export interface LeaseOptions {
  ttlMs: number;
  /** Monotonic clock (ms); tests may pass their own. */
  now?: () => number;
}

/** A held lease on one room. `valid()` is false from the moment the TTL may have run out on the
 * server without a confirmed renewal: the holder must stop serving then, before anyone else can
 * take the room (the server counts the TTL from when it stored the renewal, after we sent it). */
export class RoomLease {
  readonly room: string;
  readonly epoch: number;
  readonly holder: DirectoryEntry;
  private revision: number;
  private confirmedSentAt: number;
  private readonly buckets: OwnershipBuckets;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lost: LeaseLoss | undefined;
  private lostDetail = "";
  private lossListeners: ((why: LeaseLoss, detail: string) => void)[] = [];

  private constructor(
    buckets: OwnershipBuckets,
    holder: DirectoryEntry,
    revision: number,
    sentAt: number,
    options: LeaseOptions,
  ) {
    this.buckets = buckets;
    this.holder = holder;
    this.room = holder.room;
    this.epoch = holder.epoch;
    this.revision = revision;
    this.confirmedSentAt = sentAt;
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? (() => performance.now());
  }

  /** Takes the room if nobody holds its lease: epoch = the directory's last epoch + 1. Undefined
   * when another gateway holds it (or took it meanwhile). */
  static async tryAcquire(
    buckets: OwnershipBuckets,
    room: string,
    claimant: Claimant,
    options: LeaseOptions,
  ): Promise<RoomLease | undefined> {
    const now = options.now ?? (() => performance.now());
    if ((await buckets.leases.get(room))?.operation === "PUT") return undefined;
    const current = await buckets.directory.get(room);
    const last = current?.operation === "PUT" ? current.json<DirectoryEntry>().epoch : 0;
    const holder: DirectoryEntry = { room, ...claimant, epoch: last + 1 };
    const sentAt = now();
    let revision: number;
    try {
      revision = await buckets.leases.create(room, encode(holder));
    } catch (error) {
      if (isCasConflict(error)) return undefined;
      throw error;
    }
    try {
      // The lease is ours alone, so this compare-and-set only fails if the directory moved under a
      // holder that crashed between its own two writes; then the room is let go and tried again.
      if (current) await buckets.directory.update(room, encode(holder), current.revision);
      else await buckets.directory.create(room, encode(holder));
    } catch (error) {
      await buckets.leases.delete(room, { previousSeq: revision }).catch(() => undefined);
      if (isCasConflict(error)) return undefined;
      throw error;
    }
    return new RoomLease(buckets, holder, revision, sentAt, options);
  }

  valid(): boolean {
    return this.lost === undefined && this.now() < this.confirmedSentAt + this.ttlMs;
  }

  get lossReason(): LeaseLoss | undefined {
    return this.lost;
  }

  /** A listener that comes after the loss hears it at once: a lease can be lost while its room is
   * still being restored, before anyone listens (seen in the failover soak: the room was then never
   * let go, and the gateway neither served it nor stood by). */
  onLost(listener: (why: LeaseLoss, detail: string) => void): void {
    if (this.lost) listener(this.lost, this.lostDetail);
    else this.lossListeners.push(listener);
  }

  /** Renews every third of the TTL until lost or released. */
  startRenewing(): void {
    if (this.timer || this.lost) return;
    const every = Math.max(100, Math.floor(this.ttlMs / 3));
    const tick = () => {
      this.timer = undefined;
      this.renew()
        .catch((error: unknown) => this.lose("unconfirmed", describe(error)))
        .finally(() => {
          if (!this.lost) {
            this.timer = setTimeout(tick, every);
            this.timer.unref?.();
          }
        });
    };
    this.timer = setTimeout(tick, every);
    this.timer.unref?.();
  }

  /** One renewal. A refused compare-and-set means another gateway holds the room now; an error
   * (NATS unreachable) is tolerated while the last confirmed renewal still covers us. */
  async renew(): Promise<void> {
    if (this.lost) return;
    if (!this.valid()) {
      this.lose("unconfirmed", "the lease ran out before a renewal was confirmed");
      return;
    }
    const sentAt = this.now();
    try {
      this.revision = await this.buckets.leases.update(this.room, encode(this.holder), this.revision);
      if (this.lost) return;
      // A renewal that came back after the TTL could have run out proves nothing about the gap.
      if (this.now() >= this.confirmedSentAt + this.ttlMs) {
        this.lose("unconfirmed", "a renewal was confirmed only after the lease could have run out");
        return;
      }
      this.confirmedSentAt = sentAt;
    } catch (error) {
      if (isCasConflict(error)) {
        this.lose("deposed", `another gateway holds the lease now (${describe(error)})`);
        return;
      }
      if (!this.valid()) this.lose("unconfirmed", describe(error));
    }
  }

  /** Gives the room up (a clean stop): another gateway may take it at once. */
  async release(): Promise<void> {
    if (this.lost) return;
    this.lose("released", "released by its holder");
    await this.buckets.leases.delete(this.room, { previousSeq: this.revision }).catch(() => undefined);
  }

  private lose(why: LeaseLoss, detail: string): void {
    if (this.lost) return;
    this.lost = why;
    this.lostDetail = detail;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const listener of this.lossListeners) {
      try {
        listener(why, detail);
      } catch {
        // A listener's failure must not keep the others from hearing that the room is lost.
      }
    }
  }
}

/** A compare-and-set refused by JetStream ("wrong last sequence"): someone else wrote first. */
export function isCasConflict(error: unknown): boolean {
  const code = (error as { code?: unknown; api_error?: { err_code?: unknown } })?.code;
  return (
    code === 10071 ||
    code === 10164 ||
    /wrong last sequence|key exists/i.test(String((error as Error)?.message ?? error))
  );
}
