// The world's durable store: one SQLite database (Node's built-in `node:sqlite`, WAL mode, full
// fsync on commit) under the service's state directory. It holds
//   - the tick log: the inputs of every applied tick, one row per tick, each written (and fsynced)
//     before any answer of that tick reaches a caller (group commit per tick);
//   - snapshots: "auto" ones that compact the log, and named operator checkpoints (a body is text in
//     stores from before snapshots were gzipped, bytes since: the column is declared TEXT, and SQLite
//     keeps a BLOB in it as it is);
//   - side tables: small records adapters need to survive a restart (humans' resume tokens, rate-limit
//     buckets, the heartbeat token key), keyed by (scope, key); some are written with the tick commit;
//   - a quarantine for records that failed their checks, so nothing is dropped silently.
// Everything here is synchronous on purpose: a tick commits before the tick loop goes on.
import { createHash } from "node:crypto";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { privateDirSync, privateFileSync } from "./private-files.ts";

export type SnapshotKind = "auto" | "checkpoint";

/** A stored snapshot's manifest entry (seed 001: label, tick, sim time, hash, format). */
export interface SnapshotManifest {
  id: number;
  kind: SnapshotKind;
  label: string | null;
  tick: number;
  /** Simulation time (ms) of the snapshot. */
  time: number;
  format: string;
  /** SHA-256 of the snapshot's canonical JSON, as computed when it was saved. */
  hash: string;
  /** Wall-clock ISO time of the save: for the operator only, never shown to agents. */
  savedAt: string;
}

export interface StoredSnapshot extends SnapshotManifest {
  /** Text: the snapshot's JSON (as stores written before the gzipped form hold it). Bytes: its
   * canonical JSON (the text its hash is of), gzipped (see snapshotEntry). */
  body: string | Uint8Array;
}

/** A run's manifest (seed 001 `record_run`): a bounded stretch of the world that replay tooling can
 * order and label. Ticks and times are simulation time; `startedAt`/`endedAt` are wall clock, for the
 * operator only. */
export interface RunManifest {
  id: number;
  label: string;
  state: "open" | "closed";
  sceneHash: string;
  start: { tick: number; time: number };
  end?: { tick: number; time: number };
  /** The checkpoints saved while it was open, in order. */
  checkpoints: { label: string; tick: number; time: number; hash: string }[];
  startedAt: string;
  endedAt?: string;
}

interface RunRow {
  id: number;
  label: string;
  scene_hash: string;
  start_tick: number;
  start_time: number;
  end_tick: number | null;
  end_time: number | null;
  checkpoints: string;
  started_at: string;
  ended_at: string | null;
}

function runManifest(row: RunRow): RunManifest {
  return {
    id: row.id,
    label: row.label,
    state: row.end_tick === null ? "open" : "closed",
    sceneHash: row.scene_hash,
    start: { tick: row.start_tick, time: row.start_time },
    ...(row.end_tick !== null && row.end_time !== null
      ? { end: { tick: row.end_tick, time: row.end_time } }
      : {}),
    checkpoints: JSON.parse(row.checkpoints) as RunManifest["checkpoints"],
    startedAt: row.started_at,
    ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
  };
}

const RUN_COLUMNS = [
  "id",
  "label",
  "scene_hash",
  "start_tick",
  "start_time",
  "end_tick",
  "end_time",
  "checkpoints",
  "started_at",
  "ended_at",
] as const;

/** Runs kept: the oldest closed ones go beyond this. */
export const MAX_RUNS = 1_000;

export interface TickRow {
  tick: number;
  body: string;
  checksum: string;
}

/** One side-table row to write with a commit: `value` undefined deletes it. */
export interface SideWrite {
  scope: string;
  key: string;
  value: string | undefined;
}

export interface StoreIdentity {
  world: string;
  sceneHash: string;
}

/** A tick that gave the world a new definition (a live reload): the store's identity becomes the
 * new scene, and the definition it replaced (its wire JSON) is kept with that tick, in the same
 * transaction as the tick's row, while a snapshot older than the tick may be the recovery's base. */
export interface SceneChange {
  identity: StoreIdentity;
  replaced: { sceneHash: string; body: string };
}

/** Checksum of one tick row: the tick number is part of it, so a row moved to another tick fails. */
export function tickChecksum(tick: number, body: string): string {
  return createHash("sha256").update(`${tick}\n${body}`).digest("hex").slice(0, 32);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ticks (tick INTEGER PRIMARY KEY, body TEXT NOT NULL, checksum TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('auto', 'checkpoint')),
  label TEXT,
  tick INTEGER NOT NULL,
  time INTEGER NOT NULL,
  format TEXT NOT NULL,
  hash TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS checkpoint_label ON snapshots(label) WHERE kind = 'checkpoint';
CREATE TABLE IF NOT EXISTS sessions (scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (scope, key));
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  label TEXT NOT NULL,
  scene_hash TEXT NOT NULL,
  start_tick INTEGER NOT NULL,
  start_time INTEGER NOT NULL,
  end_tick INTEGER,
  end_time INTEGER,
  checkpoints TEXT NOT NULL DEFAULT '[]',
  started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE TABLE IF NOT EXISTS replaced_definitions (scene_hash TEXT PRIMARY KEY,
  replaced_at INTEGER NOT NULL, body TEXT NOT NULL, checksum TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS quarantine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  what TEXT NOT NULL,
  ref TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL,
  body TEXT NOT NULL
);
`;

const MANIFEST_COLUMNS = "id, kind, label, tick, time, format, hash, saved_at AS savedAt";

export class WorldStore {
  readonly file: string;
  private readonly db: DatabaseSync;
  private readonly insertTick: StatementSync;
  private readonly putSide: StatementSync;
  private readonly deleteSide: StatementSync;
  private readonly fsyncEachCommit: boolean;
  private closed = false;
  private timelineResets = 0;

  private constructor(file: string, db: DatabaseSync, fsyncEachCommit: boolean) {
    this.file = file;
    this.db = db;
    this.fsyncEachCommit = fsyncEachCommit;
    this.insertTick = db.prepare("INSERT INTO ticks (tick, body, checksum) VALUES (?, ?, ?)");
    this.putSide = db.prepare(
      "INSERT INTO sessions (scope, key, value) VALUES (?, ?, ?) ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value",
    );
    this.deleteSide = db.prepare("DELETE FROM sessions WHERE scope = ? AND key = ?");
  }

  /** Opens (or creates) the store. `synchronous: "full"` fsyncs every commit (the default);
   * "off" leaves flushing to the OS (for benchmarks comparing the cost). */
  static open(file: string, options: { synchronous?: "full" | "normal" | "off" } = {}): WorldStore {
    // The saved world holds chat and idempotency records: private, like the gateway's own state.
    privateDirSync(path.dirname(file));
    const db = new DatabaseSync(file);
    try {
      privateFileSync(file);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec(`PRAGMA synchronous = ${(options.synchronous ?? "full").toUpperCase()}`);
      db.exec("PRAGMA busy_timeout = 2000");
      db.exec(SCHEMA);
      // Fails fast on a file that is not a database or is damaged beyond SQLite's own recovery.
      const check = db.prepare("PRAGMA quick_check").get() as { quick_check?: string } | undefined;
      if (check?.quick_check !== "ok") throw new Error(`database check failed: ${check?.quick_check}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return new WorldStore(file, db, (options.synchronous ?? "full") === "full");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /** How commits reach the disk (PRAGMA synchronous): "full" fsyncs each one. */
  get synchronous(): "off" | "normal" | "full" | "extra" {
    const row = this.db.prepare("PRAGMA synchronous").get() as { synchronous: number };
    return (["off", "normal", "full", "extra"] as const)[row.synchronous] ?? "full";
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Changes when resetTimeline starts a new timeline: a snapshot taken before belongs to the old one. */
  get timeline(): number {
    return this.timelineResets;
  }

  // ---- identity ------------------------------------------------------------------------------

  identity(): StoreIdentity | undefined {
    const world = this.meta("world");
    const sceneHash = this.meta("sceneHash");
    return world !== undefined && sceneHash !== undefined ? { world, sceneHash } : undefined;
  }

  setIdentity(identity: StoreIdentity): void {
    this.transaction(() => {
      this.setMeta("world", identity.world);
      this.setMeta("sceneHash", identity.sceneHash);
    });
  }

  meta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db
      .prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(key, value);
  }

  // ---- the tick log --------------------------------------------------------------------------

  /** One tick, committed (and fsynced in full mode) before this returns (the row written is returned), together with `side` (the
   * side-table rows that changed since the last commit: one transaction, so they are durable exactly
   * when the tick is). With `flush: false` the commit reaches the OS but skips the fsync: for an idle
   * tick (no input, no event) that answers nobody. A power cut may then lose only such trailing idle
   * ticks, which replay reproduces; the next flushed commit carries them to the disk with it, since
   * the WAL is written in order. */
  appendTick(
    tick: number,
    body: string,
    flush = true,
    side: readonly SideWrite[] = [],
    scene?: SceneChange,
  ): TickRow {
    const row: TickRow = { tick, body, checksum: tickChecksum(tick, body) };
    this.withSync(flush || scene !== undefined, () =>
      this.transaction(() => {
        this.insertTick.run(row.tick, row.body, row.checksum);
        this.applySide(side);
        if (scene) this.changeScene(tick, scene);
      }),
    );
    return row;
  }

  private changeScene(tick: number, { identity, replaced }: SceneChange): void {
    this.setMeta("world", identity.world);
    this.setMeta("sceneHash", identity.sceneHash);
    this.db
      .prepare(
        "INSERT OR REPLACE INTO replaced_definitions (scene_hash, replaced_at, body, checksum) VALUES (?, ?, ?, ?)",
      )
      .run(replaced.sceneHash, tick, replaced.body, tickChecksum(tick, replaced.body));
  }

  /** The wire JSON of a definition a live reload replaced (appendTick's `scene`), while a snapshot
   * of it may still be kept; undefined when none or when its checksum fails. */
  replacedDefinition(sceneHash: string): string | undefined {
    const row = this.db
      .prepare("SELECT replaced_at AS tick, body, checksum FROM replaced_definitions WHERE scene_hash = ?")
      .get(sceneHash) as { tick: number; body: string; checksum: string } | undefined;
    return row && tickChecksum(row.tick, row.body) === row.checksum ? row.body : undefined;
  }

  /** Side-table rows in one transaction of their own, written to the OS (not fsynced): survives a
   * killed process at once, and a power loss once the next flushed commit has happened. */
  writeSide(side: readonly SideWrite[]): void {
    if (side.length === 0) return;
    this.withSync(false, () => this.transaction(() => this.applySide(side)));
  }

  private applySide(side: readonly SideWrite[]): void {
    for (const write of side) {
      if (write.value === undefined) this.deleteSide.run(write.scope, write.key);
      else this.putSide.run(write.scope, write.key, write.value);
    }
  }

  private withSync<T>(flush: boolean, fn: () => T): T {
    if (flush || !this.fsyncEachCommit) return fn();
    this.db.exec("PRAGMA synchronous = NORMAL");
    try {
      return fn();
    } finally {
      this.db.exec("PRAGMA synchronous = FULL");
    }
  }

  /** Log rows after `tick`, in tick order. */
  ticksAfter(tick: number): TickRow[] {
    return this.db
      .prepare("SELECT tick, body, checksum FROM ticks WHERE tick > ? ORDER BY tick")
      .all(tick) as unknown as TickRow[];
  }

  /** A log row's body as the bytes on disk (a damaged one may not be valid UTF-8). */
  tickBytes(tick: number): Uint8Array | undefined {
    const row = this.db.prepare("SELECT CAST(body AS BLOB) AS bytes FROM ticks WHERE tick = ?").get(tick) as
      | { bytes: Uint8Array }
      | undefined;
    return row?.bytes;
  }

  /** Puts back a log row's repaired body and checksum. */
  repairTick(tick: number, body: string, checksum: string): void {
    this.db.prepare("UPDATE ticks SET body = ?, checksum = ? WHERE tick = ?").run(body, checksum, tick);
  }

  logStats(): { rows: number; firstTick: number | null; lastTick: number | null } {
    const row = this.db
      .prepare("SELECT COUNT(*) AS rows, MIN(tick) AS firstTick, MAX(tick) AS lastTick FROM ticks")
      .get() as { rows: number; firstTick: number | null; lastTick: number | null };
    return { rows: row.rows, firstTick: row.firstTick, lastTick: row.lastTick };
  }

  /** Moves log rows from `fromTick` on into the quarantine (kept for the operator, never replayed). */
  quarantineTicksFrom(fromTick: number, reason: string): number {
    return this.transaction(() => {
      const rows = this.ticksAfter(fromTick - 1);
      const put = this.db.prepare(
        "INSERT INTO quarantine (what, ref, reason, at, body) VALUES ('tick', ?, ?, ?, ?)",
      );
      const at = new Date().toISOString();
      for (const row of rows) put.run(String(row.tick), reason, at, row.body);
      this.db.prepare("DELETE FROM ticks WHERE tick >= ?").run(fromTick);
      return rows.length;
    });
  }

  // ---- snapshots -----------------------------------------------------------------------------

  /** Saves an auto snapshot and compacts: keeps the newest `keepAuto` auto snapshots and the log
   * since the oldest of them (so an older snapshot plus the log can stand in for a damaged newer one). */
  saveAutoSnapshot(entry: Omit<StoredSnapshot, "id" | "kind" | "label" | "savedAt">, keepAuto = 2): number {
    return this.transaction(() => {
      const id = this.insertSnapshot({ ...entry, kind: "auto", label: null });
      const kept = this.db
        .prepare("SELECT id, tick FROM snapshots WHERE kind = 'auto' ORDER BY id DESC LIMIT ?")
        .all(keepAuto) as { id: number; tick: number }[];
      const oldest = kept[kept.length - 1]!;
      this.db.prepare("DELETE FROM snapshots WHERE kind = 'auto' AND id < ?").run(oldest.id);
      const oldestTick = Math.min(...kept.map((k) => k.tick));
      this.db.prepare("DELETE FROM ticks WHERE tick <= ?").run(oldestTick);
      // A snapshot at or after the tick that replaced a definition is of a newer scene.
      this.db.prepare("DELETE FROM replaced_definitions WHERE replaced_at <= ?").run(oldestTick);
      return id;
    });
  }

  /** Takes in what was salvaged of a damaged store (or its snapshot copy) in one transaction: auto
   * snapshots in the given order (the last is the newest), checkpoints, log rows and side-table rows.
   * Nothing is compacted: recovery decides what of it checks out. */
  importRows(rows: {
    autoSnapshots?: readonly Omit<StoredSnapshot, "id" | "kind" | "label" | "savedAt">[];
    checkpoints?: readonly (Omit<StoredSnapshot, "id" | "kind" | "savedAt"> & { label: string | null })[];
    ticks?: readonly TickRow[];
    side?: readonly { scope: string; key: string; value: string }[];
    runs?: readonly Record<string, unknown>[];
  }): void {
    this.transaction(() => {
      for (const entry of rows.autoSnapshots ?? [])
        this.insertSnapshot({ ...entry, kind: "auto", label: null });
      for (const entry of rows.checkpoints ?? []) {
        if (entry.label === null) continue;
        this.db.prepare("DELETE FROM snapshots WHERE kind = 'checkpoint' AND label = ?").run(entry.label);
        this.insertSnapshot({ ...entry, kind: "checkpoint" });
      }
      const putTick = this.db.prepare("INSERT OR IGNORE INTO ticks (tick, body, checksum) VALUES (?, ?, ?)");
      for (const row of rows.ticks ?? []) putTick.run(row.tick, row.body, row.checksum);
      for (const row of rows.side ?? []) this.putSide.run(row.scope, row.key, row.value);
      const putRun = this.db.prepare(
        `INSERT OR IGNORE INTO runs (${RUN_COLUMNS.join(", ")}) VALUES (${RUN_COLUMNS.map(() => "?").join(", ")})`,
      );
      for (const row of rows.runs ?? [])
        putRun.run(...RUN_COLUMNS.map((c) => (row[c] ?? null) as SQLInputValue));
    });
  }

  /** Starts a new timeline at this snapshot: every auto snapshot and log row of the old one goes
   * (checkpoints stay). Used when the operator restores an earlier state. */
  resetTimeline(entry: Omit<StoredSnapshot, "id" | "kind" | "label" | "savedAt">): number {
    this.timelineResets += 1;
    return this.transaction(() => {
      this.db.exec("DELETE FROM ticks");
      this.db.exec("DELETE FROM snapshots WHERE kind = 'auto'");
      this.db.exec("DELETE FROM replaced_definitions");
      return this.insertSnapshot({ ...entry, kind: "auto", label: null });
    });
  }

  saveCheckpoint(label: string, entry: Omit<StoredSnapshot, "id" | "kind" | "label" | "savedAt">): number {
    return this.transaction(() => {
      this.db.prepare("DELETE FROM snapshots WHERE kind = 'checkpoint' AND label = ?").run(label);
      return this.insertSnapshot({ ...entry, kind: "checkpoint", label });
    });
  }

  /** The tick of the newest auto snapshot, if any. */
  newestAutoTick(): number | undefined {
    const row = this.db
      .prepare("SELECT tick FROM snapshots WHERE kind = 'auto' ORDER BY id DESC LIMIT 1")
      .get() as { tick: number } | undefined;
    return row?.tick;
  }

  /** Auto snapshots, newest first (with bodies: recovery reads them in that order). */
  autoSnapshots(): StoredSnapshot[] {
    return this.db
      .prepare(`SELECT ${MANIFEST_COLUMNS}, body FROM snapshots WHERE kind = 'auto' ORDER BY id DESC`)
      .all() as unknown as StoredSnapshot[];
  }

  checkpoints(): SnapshotManifest[] {
    return this.db
      .prepare(`SELECT ${MANIFEST_COLUMNS} FROM snapshots WHERE kind = 'checkpoint' ORDER BY id`)
      .all() as unknown as SnapshotManifest[];
  }

  checkpoint(label: string): StoredSnapshot | undefined {
    return this.db
      .prepare(`SELECT ${MANIFEST_COLUMNS}, body FROM snapshots WHERE kind = 'checkpoint' AND label = ?`)
      .get(label) as unknown as StoredSnapshot | undefined;
  }

  quarantineSnapshot(id: number, reason: string): void {
    this.transaction(() => {
      const row = this.db.prepare("SELECT body FROM snapshots WHERE id = ?").get(id) as
        | { body: string | Uint8Array }
        | undefined;
      if (!row) return;
      this.db
        .prepare("INSERT INTO quarantine (what, ref, reason, at, body) VALUES ('snapshot', ?, ?, ?, ?)")
        .run(String(id), reason, new Date().toISOString(), row.body);
      this.db.prepare("DELETE FROM snapshots WHERE id = ?").run(id);
    });
  }

  quarantined(): { what: string; ref: string; reason: string; at: string }[] {
    return this.db.prepare("SELECT what, ref, reason, at FROM quarantine ORDER BY id").all() as unknown as {
      what: string;
      ref: string;
      reason: string;
      at: string;
    }[];
  }

  // ---- runs (seed 001 record_run) -------------------------------------------------------------

  /** The open run, if any (at most one is open at a time). */
  openRun(): RunManifest | undefined {
    const row = this.db.prepare("SELECT * FROM runs WHERE end_tick IS NULL ORDER BY id DESC LIMIT 1").get() as
      | RunRow
      | undefined;
    return row ? runManifest(row) : undefined;
  }

  run(id: number): RunManifest | undefined {
    const row = this.db.prepare("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
    return row ? runManifest(row) : undefined;
  }

  runs(): RunManifest[] {
    return (this.db.prepare("SELECT * FROM runs ORDER BY id").all() as unknown as RunRow[]).map(runManifest);
  }

  startRun(label: string, sceneHash: string, at: { tick: number; time: number }): RunManifest {
    const id = this.transaction(() => {
      const result = this.db
        .prepare(
          "INSERT INTO runs (label, scene_hash, start_tick, start_time, started_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(label, sceneHash, at.tick, at.time, new Date().toISOString());
      this.db
        .prepare(
          "DELETE FROM runs WHERE end_tick IS NOT NULL AND id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?)",
        )
        .run(MAX_RUNS);
      return Number(result.lastInsertRowid);
    });
    return this.run(id)!;
  }

  closeRun(id: number, at: { tick: number; time: number }): void {
    this.db
      .prepare("UPDATE runs SET end_tick = ?, end_time = ?, ended_at = ? WHERE id = ? AND end_tick IS NULL")
      .run(at.tick, at.time, new Date().toISOString(), id);
  }

  labelRun(id: number, label: string): void {
    this.db.prepare("UPDATE runs SET label = ? WHERE id = ?").run(label, id);
  }

  /** Records a checkpoint in the open run's manifest (bounded like the checkpoints themselves). */
  addRunCheckpoint(checkpoint: RunManifest["checkpoints"][number]): void {
    this.transaction(() => {
      const open = this.openRun();
      if (!open) return;
      const checkpoints = [...open.checkpoints, checkpoint].slice(-MAX_RUNS);
      this.db
        .prepare("UPDATE runs SET checkpoints = ? WHERE id = ?")
        .run(JSON.stringify(checkpoints), open.id);
    });
  }

  // ---- side tables (the SQL table is called `sessions`: it began with humans' sessions) ---------

  sessionList(scope: string): { key: string; value: string }[] {
    return this.db
      .prepare("SELECT key, value FROM sessions WHERE scope = ? ORDER BY key")
      .all(scope) as unknown as { key: string; value: string }[];
  }

  /** Durable (fsynced in full mode) when it returns. */
  sessionPut(scope: string, key: string, value: string): void {
    this.putSide.run(scope, key, value);
  }

  sessionDelete(scope: string, key: string): void {
    this.deleteSide.run(scope, key);
  }

  // ---- internals -----------------------------------------------------------------------------

  private insertSnapshot(entry: Omit<StoredSnapshot, "id" | "savedAt">): number {
    const result = this.db
      .prepare(
        "INSERT INTO snapshots (kind, label, tick, time, format, hash, saved_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        entry.kind,
        entry.label,
        entry.tick,
        entry.time,
        entry.format,
        entry.hash,
        new Date().toISOString(),
        entry.body,
      );
    return Number(result.lastInsertRowid);
  }

  private transaction<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const value = fn();
      this.db.exec("COMMIT");
      return value;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw error;
    }
  }
}
