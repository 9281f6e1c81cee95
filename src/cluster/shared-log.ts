// A cluster room's durable store: its ticks on the room's JetStream subject, its snapshot in the
// snapshot bucket. It is the runtime's TickJournal (the write-ahead rule: a tick's answers are
// released only once JetStream acknowledged its record), fenced twice: every append names the
// subject's expected last sequence, so a writer that missed someone else's append (a deposed owner)
// is refused; and nothing is appended once the holder's lease may have lapsed.
import { DeliverPolicy, type JetStreamClient, jetstream, jetstreamManager } from "@nats-io/jetstream";
import {
  checkStoredSnapshot,
  type SnapshotEntry,
  snapshotEntryInSlices,
  tickDigest,
} from "../runtime/persistence.ts";
import { describe, type RuntimeLogger, type TickJournal } from "../runtime/world-runtime.ts";
import type { Input, StepResult, WorldApi, WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import { type ClusterResources, logSubject } from "./nats.ts";
import { isCasConflict, type RoomLease } from "./ownership.ts";

/** One record of a room's log: a tick's inputs (and the digest of its results, to prove a replay
 * matched), or the mark a new owner appends when it takes the room (the fence for the old one). */
export type LogRecord =
  | { kind: "tick"; epoch: number; tick: number; inputs: Input[]; digest: string }
  | { kind: "epoch"; epoch: number; gatewayId: string; tick: number };

/** The snapshot bucket's value: a JSON head line, then the gzipped snapshot (persistence.ts). */
interface SnapshotHead {
  tick: number;
  time: number;
  format: string;
  hash: string;
  /** Sequence of the last log record the snapshot contains: the log resumes after it. */
  seq: number;
  epoch: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The room is no longer this gateway's (deposed, lease lapsed) or its log cannot be trusted. */
export class RoomLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RoomLostError";
  }
}

export interface RestoredRoom {
  world: World;
  /** Sequence of the log's last record (0: none). */
  lastSeq: number;
  /** Revision of the room's snapshot entry (0: none), for its compare-and-set. */
  snapshotRevision: number;
  snapshotTick: number | undefined;
  replayedTicks: number;
}

/** Rebuilds a room from its snapshot and the log after it. Throws RoomLostError when the log does
 * not continue the state (a gap) or a replay diverges: serving that would invent a world. */
export async function restoreRoom(
  resources: ClusterResources,
  room: string,
  definition: WorldDefinition,
): Promise<RestoredRoom> {
  const stored = await resources.snapshots.get(room);
  let world: World = World.create(definition);
  let fromSeq = 0;
  let snapshotRevision = 0;
  let snapshotTick: number | undefined;
  if (stored?.operation === "PUT") {
    snapshotRevision = stored.revision;
    const { head, body } = splitSnapshot(stored.value);
    const check = checkStoredSnapshot({ ...head, id: 0, kind: "auto", label: null, savedAt: "", body });
    if (!check.ok) throw new RoomLostError(`room ${room}: its snapshot is damaged (${check.reason})`);
    world = World.restore(definition, check.snapshot);
    fromSeq = head.seq;
    snapshotTick = head.tick;
  }
  const lastSeq = await lastSequence(resources, room);
  let replayedTicks = 0;
  for await (const record of readLog(resources, room, fromSeq + 1, lastSeq)) {
    if (record.kind !== "tick") continue;
    if (record.tick <= world.tick) continue; // in the snapshot already
    replayTick(world, record, room);
    replayedTicks += 1;
  }
  return { world, lastSeq, snapshotRevision, snapshotTick, replayedTicks };
}

export function replayTick(world: World, record: Extract<LogRecord, { kind: "tick" }>, room: string): void {
  if (record.tick !== world.tick + 1)
    throw new RoomLostError(`room ${room}: the log has tick ${record.tick} after tick ${world.tick}`);
  const digest = tickDigest(world.step(record.inputs));
  if (digest !== record.digest)
    throw new RoomLostError(`room ${room}: replay of tick ${record.tick} diverged from the log`);
}

/** The room log's last sequence (0 when it has none). */
export async function lastSequence(resources: ClusterResources, room: string): Promise<number> {
  const jsm = await jetstreamManager(resources.nc);
  try {
    const last = await jsm.streams.getMessage(resources.logStream, { last_by_subj: logSubject(room) });
    return last?.seq ?? 0;
  } catch (error) {
    if (/no message found/i.test(describe(error))) return 0;
    throw error;
  }
}

/** The room's records with sequences in [from, to], in order. */
export async function* readLog(
  resources: ClusterResources,
  room: string,
  from: number,
  to: number,
): AsyncGenerator<LogRecord & { seq: number }> {
  if (to < from) return;
  const js = jetstream(resources.nc);
  const consumer = await js.consumers.get(resources.logStream, {
    // One subject as a string: nats-server 2.9 (Debian) knows filter_subject, not the list form.
    filter_subjects: logSubject(room),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, from),
  });
  const messages = await consumer.consume();
  // A read that stops making progress (NATS gone, the range trimmed under us) must end, not hang a
  // takeover: it fails, and the room is not served from a partial log.
  let lastProgress = performance.now();
  let reached = false;
  const watchdog = setInterval(() => {
    if (performance.now() - lastProgress > READ_STALL_MS) messages.stop();
  }, 500);
  try {
    for await (const message of messages) {
      lastProgress = performance.now();
      yield { ...(JSON.parse(decoder.decode(message.data)) as LogRecord), seq: message.seq };
      if (message.seq >= to) {
        reached = true;
        break;
      }
    }
  } finally {
    clearInterval(watchdog);
    messages.stop();
    await consumer.delete().catch(() => undefined);
  }
  if (!reached) throw new RoomLostError(`room ${room}: its log could not be read up to sequence ${to}`);
}

/** How long a log read may go without a record before it gives up. */
const READ_STALL_MS = 10_000;

function splitSnapshot(value: Uint8Array): { head: SnapshotHead; body: Uint8Array } {
  const newline = value.indexOf(10);
  return {
    head: JSON.parse(decoder.decode(value.subarray(0, newline))) as SnapshotHead,
    body: value.subarray(newline + 1),
  };
}

export interface SharedLogOptions {
  resources: ClusterResources;
  room: string;
  lease: RoomLease;
  restored: RestoredRoom;
  snapshotEveryTicks: number;
  logger: RuntimeLogger;
  /** How long an append may wait for its acknowledgement. */
  appendTimeoutMs?: number;
}

/** The room's journal while this gateway owns it. */
export class SharedTickLog implements TickJournal {
  private readonly js: JetStreamClient;
  private readonly options: SharedLogOptions;
  private lastSeq: number;
  private snapshotRevision: number;
  private lastSnapshotTick: number;
  private snapshotting = false;
  /** Commit timings (ms) since the last take: the benchmark's figures. */
  readonly commitMs: number[] = [];
  private lost: string | undefined;

  constructor(options: SharedLogOptions) {
    this.options = options;
    this.js = jetstream(options.resources.nc);
    this.lastSeq = options.restored.lastSeq;
    this.snapshotRevision = options.restored.snapshotRevision;
    this.lastSnapshotTick = options.restored.snapshotTick ?? -Infinity;
    options.lease.onLost((why, detail) => {
      this.lost ??= `lease ${why}: ${detail}`;
    });
  }

  get sequence(): number {
    return this.lastSeq;
  }

  get lostReason(): string | undefined {
    return this.lost;
  }

  /** The new owner's first record: it fences every earlier writer. An old owner that appended after
   * we read the log makes this fail: then we read what it wrote and try again (its lease has lapsed,
   * so it stops within its TTL). */
  async fence(world: World): Promise<void> {
    const { lease, resources, room } = this.options;
    for (let attempt = 0; attempt < 20; attempt++) {
      const record: LogRecord = {
        kind: "epoch",
        epoch: lease.epoch,
        gatewayId: lease.holder.gatewayId,
        tick: world.tick,
      };
      try {
        await this.append(record);
        return;
      } catch (error) {
        if (!isCasConflict(error)) throw error;
        const last = await lastSequence(resources, room);
        for await (const late of readLog(resources, room, this.lastSeq + 1, last)) {
          if (late.kind === "tick" && late.tick > world.tick) replayTick(world, late, room);
        }
        this.lastSeq = last;
      }
    }
    throw new RoomLostError(`room ${room}: could not fence its log (another writer keeps appending)`);
  }

  commit(inputs: readonly Input[], result: StepResult): Promise<void> {
    if (this.lost) throw new RoomLostError(this.lost);
    if (!this.options.lease.valid()) throw new RoomLostError("the lease may have lapsed; not appending");
    const started = performance.now();
    const record: LogRecord = {
      kind: "tick",
      epoch: this.options.lease.epoch,
      tick: result.tick,
      inputs: inputs as Input[],
      digest: tickDigest(result),
    };
    return this.append(record).then(
      () => {
        this.commitMs.push(performance.now() - started);
        if (this.commitMs.length > 10_000) this.commitMs.splice(0, 5_000);
      },
      (error: unknown) => {
        // Refused (someone else appended) or unknown (a timeout: it may be stored): either way this
        // gateway cannot know the log's end any more, so it stops serving the room.
        this.lost ??= isCasConflict(error)
          ? `deposed: the log moved on without us (${describe(error)})`
          : `append failed: ${describe(error)}`;
        throw new RoomLostError(this.lost);
      },
    );
  }

  /** Never rolls back in place: the room's true state is the log's, which another gateway may be
   * extending already. The runtime stops; the room is restored from the log by whoever takes it. */
  recover(): WorldApi {
    throw new RoomLostError(this.lost ?? "the room's log could not be written");
  }

  private async append(record: LogRecord): Promise<void> {
    const { resources, room, appendTimeoutMs } = this.options;
    const ack = await this.js.publish(logSubject(room), encoder.encode(JSON.stringify(record)), {
      expect: { lastSubjectSequence: this.lastSeq, streamName: resources.logStream },
      timeout: appendTimeoutMs ?? 5_000,
    });
    this.lastSeq = ack.seq;
  }

  /** After a committed tick: every snapshotEveryTicks ticks, the state as committed goes to the
   * snapshot bucket (compare-and-set on its revision: a deposed owner cannot overwrite a newer one)
   * and the log before its last record is trimmed. Runs beside the ticks; returns whether it saved. */
  async maybeSnapshot(world: Pick<WorldApi, "tick" | "snapshot">): Promise<boolean> {
    if (this.snapshotting || this.lost) return false;
    if (world.tick - this.lastSnapshotTick < this.options.snapshotEveryTicks) return false;
    this.snapshotting = true;
    try {
      const seq = this.lastSeq;
      const entry = await snapshotEntryInSlices(world.snapshot());
      await this.saveSnapshot(entry, seq);
      return true;
    } finally {
      this.snapshotting = false;
    }
  }

  /** Saves `entry` (the state as of log record `seq`) and trims the log behind it. */
  async saveSnapshot(entry: SnapshotEntry, seq: number): Promise<void> {
    const { resources, room, lease } = this.options;
    if (this.lost || !lease.valid()) return;
    const head: SnapshotHead = {
      tick: entry.tick,
      time: entry.time,
      format: entry.format,
      hash: entry.hash,
      seq,
      epoch: lease.epoch,
    };
    const headBytes = encoder.encode(`${JSON.stringify(head)}\n`);
    const value = new Uint8Array(headBytes.length + entry.body.length);
    value.set(headBytes, 0);
    value.set(entry.body, headBytes.length);
    this.snapshotRevision =
      this.snapshotRevision === 0
        ? await resources.snapshots.create(room, value)
        : await resources.snapshots.update(room, value, this.snapshotRevision);
    this.lastSnapshotTick = entry.tick;
    const jsm = await jetstreamManager(resources.nc);
    // Keeps the record at `seq`: the subject's last sequence must stay known for the next append's fence.
    await jsm.streams.purge(resources.logStream, { filter: logSubject(room), seq });
  }
}
