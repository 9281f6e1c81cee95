// The tick log kept a second time, outside the database. SQLite holds the newest ticks in
// its write-ahead log until a checkpoint folds them into the file, and when a disk tears that log's
// tail it silently drops every frame from the first bad checksum on: the store alone cannot tell that
// it lost acknowledged ticks. This file beside the store gets each committed tick appended after its
// database commit, so a start can see how far the store went back and replay what the store lost.
// A tick that answers someone is fsynced in the background (fdatasync on libuv's pool, one at a
// time, the next one covering every tick appended meanwhile), not before its answer: a second fsync
// on the tick's path doubled the commit's cost. The write itself is done before the answer, so a
// killed process loses nothing of it; only a power cut within the few milliseconds of one fdatasync
// could leave the mirror a tick short, and a mirror behind the store is never taken for a loss. It starts afresh after each snapshot whose
// copy outside the database (snapshot-copy.ts) is durable, so the copy and this file together always
// reach the newest committed tick, and the file stays as short as the time between two snapshots.
// Layout: the line `MAGIC <header JSON>` ({world, sceneHash, after}: the rows continue the state at
// tick `after`), then one line per tick, `<tick>\t<checksum>\t<body>` (the store's row; tickChecksum
// proves it). A torn or damaged line ends the read: what follows it cannot be trusted to continue.
import {
  closeSync,
  fdatasync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { World } from "../world/world.ts";
import { type LogLoss, replayRow } from "./persistence.ts";
import { syncDir } from "./snapshot-copy.ts";
import { type StoreIdentity, type TickRow, tickChecksum } from "./store.ts";

const MAGIC = "openclawworld.tick-mirror.v1";

/** Where the second copy of a store's tick log lives. */
export function tickMirrorFile(storeFile: string): string {
  return `${storeFile}.tick-mirror`;
}

interface Header extends StoreIdentity {
  after: number;
}

export type TickMirrorRead =
  | {
      ok: true;
      identity: StoreIdentity;
      /** The rows continue the state at this tick. */
      after: number;
      /** Contiguous rows from `after + 1`, each checked against its checksum. */
      rows: TickRow[];
      /** Why the read stopped before the end of the file (a torn or damaged line), if it did. */
      damage?: string;
    }
  | { ok: false; missing: boolean; reason: string };

/** Reads the mirror; a missing or unreadable file is a reason, never a throw. */
export function readTickMirror(file: string): TickMirrorRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, reason: missing ? "no mirror" : (error as Error).message };
  }
  const lines = text.split("\n");
  const header = parseHeader(lines[0] ?? "");
  if (!header) return { ok: false, missing: false, reason: "its header is missing or damaged" };
  const rows: TickRow[] = [];
  // The last piece after the final newline is empty in a whole file, a torn line otherwise.
  const complete = lines.slice(1, -1);
  let damage: string | undefined;
  for (const [i, line] of complete.entries()) {
    const row = parseRow(line);
    const expected = header.after + rows.length + 1;
    if (!row || row.tick !== expected) {
      damage = `line ${i + 2} is not tick ${expected}'s record (torn or damaged)`;
      break;
    }
    rows.push(row);
  }
  const tail = lines[lines.length - 1] ?? "";
  if (!damage && tail !== "") damage = `its last line is cut off (${tail.length} bytes)`;
  return {
    ok: true,
    identity: { world: header.world, sceneHash: header.sceneHash },
    after: header.after,
    rows,
    ...(damage ? { damage } : {}),
  };
}

function parseHeader(line: string): Header | undefined {
  if (!line.startsWith(`${MAGIC} `)) return undefined;
  try {
    const header = JSON.parse(line.slice(MAGIC.length + 1)) as Partial<Header>;
    if (
      typeof header.world !== "string" ||
      typeof header.sceneHash !== "string" ||
      !Number.isSafeInteger(header.after)
    )
      return undefined;
    return header as Header;
  } catch {
    return undefined;
  }
}

function parseRow(line: string): TickRow | undefined {
  const first = line.indexOf("\t");
  const second = first < 0 ? -1 : line.indexOf("\t", first + 1);
  if (second < 0) return undefined;
  const tick = Number(line.slice(0, first));
  const checksum = line.slice(first + 1, second);
  const body = line.slice(second + 1);
  if (!Number.isSafeInteger(tick) || tickChecksum(tick, body) !== checksum) return undefined;
  return { tick, body, checksum };
}

/** Where the file stood when a snapshot was taken: the rows after it are the ticks after that
 * snapshot. `generation` tells a mark taken before another restart (it no longer applies). */
export interface MirrorMark {
  generation: number;
  offset: number;
}

/** The open mirror of a live store. Append failures never fail a tick (the database has it): they
 * are reported once through `onProblem`, and the mirror is off until the next restart. */
export class TickMirror {
  readonly file: string;
  private identity: StoreIdentity;
  private readonly fsyncEach: boolean;
  private readonly onProblem: (problem: string) => void;
  private fd: number | undefined;
  private offset = 0;
  private generation = 0;
  /** A background fdatasync is running; `syncAgain`: ticks were appended since it started. */
  private syncing = false;
  private syncAgain = false;
  /** Descriptors closed while their fdatasync ran: closed once it is done. */
  private readonly closeAfterSync: number[] = [];

  private constructor(
    file: string,
    identity: StoreIdentity,
    fsyncEach: boolean,
    onProblem: (problem: string) => void,
  ) {
    this.file = file;
    this.identity = identity;
    this.fsyncEach = fsyncEach;
    this.onProblem = onProblem;
  }

  /** A fresh mirror continuing the state at tick `after` (whose snapshot is durable). */
  static start(
    file: string,
    identity: StoreIdentity,
    after: number,
    options: { fsyncEach: boolean; onProblem: (problem: string) => void },
  ): TickMirror {
    const mirror = new TickMirror(file, identity, options.fsyncEach, options.onProblem);
    mirror.restart(after);
    return mirror;
  }

  /** Appends a committed tick. `flush`: it answered someone, so it is fsynced (in the background). */
  append(row: TickRow, flush: boolean): void {
    if (this.fd === undefined) return;
    try {
      this.offset += writeSync(this.fd, `${row.tick}\t${row.checksum}\t${row.body}\n`);
    } catch (error) {
      this.fail(`appending tick ${row.tick}`, error);
      return;
    }
    if (flush && this.fsyncEach) this.syncInBackground();
  }

  private syncInBackground(): void {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    const fd = this.fd;
    if (fd === undefined) return;
    this.syncing = true;
    this.syncAgain = false;
    fdatasync(fd, (error) => {
      this.syncing = false;
      for (const closed of this.closeAfterSync.splice(0)) closeQuietly(closed);
      if (error && this.fd === fd) this.fail("fsyncing", error);
      if (this.syncAgain) this.syncInBackground();
    });
  }

  /** The world took a new definition live: the next restart (the snapshot taken right after) writes
   * the new scene in the header, so a recovery on the new world files reads the rows after it. */
  reidentify(identity: StoreIdentity): void {
    this.identity = identity;
  }

  mark(): MirrorMark {
    return { generation: this.generation, offset: this.offset };
  }

  /** Starts the file afresh after a durable snapshot at tick `after`, keeping the rows written since
   * `mark` (taken when that snapshot was): they continue it. Without a mark nothing is kept (a new
   * timeline). False when the mark is stale: a newer snapshot restarted the file meanwhile. */
  restart(after: number, mark?: MirrorMark): boolean {
    if (mark && mark.generation !== this.generation) return false;
    const kept = mark && this.fd !== undefined ? this.readFrom(mark.offset) : Buffer.alloc(0);
    const header = Buffer.from(`${MAGIC} ${JSON.stringify({ ...this.identity, after })}\n`, "utf8");
    const tmp = `${this.file}.tmp-${process.pid}`;
    try {
      const fd = openSync(tmp, "w", 0o600);
      try {
        writeSync(fd, header);
        if (kept.byteLength > 0) writeSync(fd, kept);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
      syncDir(path.dirname(this.file));
    } catch (error) {
      rmSync(tmp, { force: true });
      this.fail("starting it afresh", error);
      return false;
    }
    this.closeFd();
    this.fd = openSync(this.file, "a+", 0o600);
    this.offset = header.byteLength + kept.byteLength;
    this.generation += 1;
    return true;
  }

  close(): void {
    this.closeFd();
  }

  private readFrom(offset: number): Buffer {
    const bytes = Buffer.alloc(Math.max(0, this.offset - offset));
    let read = 0;
    while (read < bytes.byteLength) {
      const n = readSync(this.fd!, bytes, read, bytes.byteLength - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  }

  private fail(what: string, error: unknown): void {
    this.closeFd();
    this.generation += 1; // marks taken before no longer describe the file
    this.onProblem(
      `the tick log's second copy (${this.file}) failed ${what}: ${(error as Error).message}; a torn write-ahead log would not be noticed until it is started afresh at the next snapshot`,
    );
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.syncAgain = false;
    // A descriptor number closed under a running fdatasync could be reused by another file meanwhile.
    if (this.syncing) this.closeAfterSync.push(fd);
    else closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already unusable; nothing more to release
  }
}

/** Compares the recovered world with the mirror and replays, onto `world`, the ticks the store lost
 * at its end. Never throws for damaged content. */
export function catchUpFromMirror(
  world: World,
  identity: StoreIdentity,
  file: string,
  read: TickMirrorRead,
): { loss?: LogLoss; problems: string[] } {
  if (!read.ok)
    return read.missing
      ? { problems: [] }
      : {
          problems: [
            `the tick log's second copy (${file}) could not be read (${read.reason}): whether the store lost ticks at its end was not checked`,
          ],
        };
  if (read.identity.world !== identity.world || read.identity.sceneHash !== identity.sceneHash)
    return { problems: [] };
  const committedTick = read.after + read.rows.length;
  const storeTick = world.tick;
  if (committedTick <= storeTick) return { problems: [] };
  let replayed = 0;
  let stopped: string | undefined;
  if (storeTick < read.after) stopped = `the second copy starts after tick ${read.after}`;
  for (const row of stopped ? [] : read.rows.filter((r) => r.tick > storeTick)) {
    stopped = replayRow(world, row);
    if (stopped) {
      stopped = `tick ${row.tick}: ${stopped}`;
      break;
    }
    replayed += 1;
  }
  const lost = committedTick - storeTick;
  const problems = [
    `the store's log ends at tick ${storeTick}, but tick ${committedTick} was committed (the tick log's second copy, ${file}, has it): its write-ahead log lost ${lost} ticks at its end (a torn or lost tail)`,
  ];
  const wentBackTicks = committedTick - world.tick;
  problems.push(
    wentBackTicks === 0
      ? `all ${lost} lost ticks were replayed from the second copy: nothing acknowledged was lost`
      : `${replayed} of the ${lost} lost ticks were replayed from the second copy (${stopped}); the world went back ${wentBackTicks} ticks, from tick ${committedTick} to tick ${world.tick}: what was acknowledged in them is lost`,
  );
  if (read.damage)
    problems.push(
      `the second copy's own end is damaged too (${read.damage}): ticks after ${committedTick} may have been committed and lost`,
    );
  return { loss: { storeTick, committedTick, replayedFromMirror: replayed, wentBackTicks }, problems };
}
