// The world's history for replay: every committed tick's log row and a keyframe (a
// snapshot with its state hash) at each start, auto snapshot, checkpoint and operator restore, kept
// for a retention window in a database of its own beside the store (`world.db.history`). The store
// keeps only what recovery needs (its log is compacted behind each snapshot); this keeps the stretch
// an operator may want to watch again. It is written after the store's commit and never fails a tick:
// a failure is reported once and the history stops until the next start. Commits are written to the
// OS, not fsynced (synchronous=NORMAL in WAL): a killed gateway loses nothing of it; a power cut may
// lose its last ticks, which the next start takes back from the store's log (`catchUp`).
// A timeline (`segment`) is one unbroken run of ticks; an operator restore, or a start whose world
// went back behind what the history holds, begins a new one, so a tick number names one state.
import path from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { definitionFromWire, definitionToWire } from "../world/definition-wire.ts";
import type { WorldDefinition } from "../world/types.ts";
import type { SnapshotEntry } from "./persistence.ts";
import { privateDirSync, privateFileSync } from "./private-files.ts";
import type { StoreIdentity, TickRow } from "./store.ts";

export const HISTORY_FORMAT = "openclawworld.history.v1";

/** Where the history of a store lives. */
export function historyFile(storeFile: string): string {
  return `${storeFile}.history`;
}

/** Why a keyframe was taken. */
export type KeyframeCause = "start" | "auto" | "checkpoint" | "restore";

export interface Keyframe {
  segment: number;
  tick: number;
  /** Simulation time (ms). */
  time: number;
  /** SHA-256 of the snapshot's canonical JSON: the state hash the live world had at `tick`. */
  hash: string;
  cause: KeyframeCause;
  label: string | null;
}

export interface StoredKeyframe extends Keyframe {
  /** The snapshot's JSON, gzipped (persistence.ts `snapshotEntry`). */
  body: Uint8Array;
}

/** One unbroken timeline of the history. */
export interface Stretch {
  segment: number;
  firstTick: number;
  lastTick: number;
  firstTime: number;
  lastTime: number;
  keyframes: Keyframe[];
}

/** How much history is kept: whichever bound is reached first (simulation time, bytes on disk).
 * `maxTurnBytes` bounds the agents' turns apart (their requests and answers; 0: none are kept). */
export interface HistoryRetention {
  maxAgeMs: number;
  maxBytes: number;
  maxTurnBytes?: number;
}

/** A day of a busy room on a small disk: a demo room (5 people, 10 agents) logs ~20 MB an hour. */
export const DEFAULT_RETENTION: HistoryRetention = {
  maxAgeMs: 24 * 3_600_000,
  maxBytes: 1024 ** 3,
  maxTurnBytes: 64 * 1024 ** 2,
};

/** One line of an agent's record beside the replay: a request it made through the contract (a tool
 * call or an AIC request) with the answer as served, a tool call the gateway's policy blocked before
 * it reached the world, or a resident turn (what woke it, how long its model took). */
export interface AgentTurn {
  agentId: string;
  kind: "call" | "blocked" | "turn";
  /** The endpoint, the blocked tool, or "turn". */
  name: string;
  /** The world's tick and simulation time when it was answered (a turn: when it ended). */
  tick: number;
  time: number;
  /** "ok", or the refusal's code (`rate_limited`, `conflict`, `tool_call_blocked`, a turn's `failed`). */
  status: string;
  ms: number;
  /** JSON texts, capped (agent-turns.ts): what it asked, and what it was shown or told. */
  request: string;
  answer: string;
}

export interface StoredAgentTurn extends AgentTurn {
  seq: number;
  segment: number;
}

/** Agent turns waiting to be written: beyond this many between two writes, the newest are dropped
 * (and counted) rather than the tick slowed. */
const MAX_PENDING_TURNS = 20_000;
/** Agent turns one read returns. */
export const MAX_TURNS_READ = 2_000;

export interface HistoryStats {
  file: string;
  bytes: number;
  ticks: number;
  keyframes: number;
  segments: number;
  /** The agents' turns kept, their requests' and answers' bytes, and those dropped unwritten. */
  agentTurns: { count: number; bytes: number; dropped: number };
  oldest?: { segment: number; tick: number; time: number };
  newest?: { segment: number; tick: number; time: number };
  retention: HistoryRetention;
  /** Why the history stopped recording, if it did (until the next start). */
  problem?: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ticks (segment INTEGER NOT NULL, tick INTEGER NOT NULL, time INTEGER NOT NULL,
  body TEXT NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (segment, tick)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keyframes (segment INTEGER NOT NULL, tick INTEGER NOT NULL, time INTEGER NOT NULL,
  hash TEXT NOT NULL, cause TEXT NOT NULL, label TEXT, body BLOB NOT NULL, PRIMARY KEY (segment, tick));
CREATE TABLE IF NOT EXISTS agent_turns (seq INTEGER PRIMARY KEY AUTOINCREMENT, segment INTEGER NOT NULL,
  tick INTEGER NOT NULL, time INTEGER NOT NULL, agent_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
  status TEXT NOT NULL, ms REAL NOT NULL, request TEXT NOT NULL, answer TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agent_turns_at ON agent_turns (segment, tick);
CREATE INDEX IF NOT EXISTS agent_turns_agent ON agent_turns (agent_id, seq);
CREATE TABLE IF NOT EXISTS definitions (scene TEXT PRIMARY KEY, body TEXT NOT NULL);
`;

const TURN_COLUMNS = "seq, segment, tick, time, agent_id AS agentId, kind, name, status, ms, request, answer";

const KEYFRAME_COLUMNS = "segment, tick, time, hash, cause, label";

export class WorldHistory {
  readonly file: string;
  readonly retention: HistoryRetention;
  private readonly db: DatabaseSync;
  private readonly insertTick: StatementSync;
  private current: number;
  private lastTick: number | undefined;
  private failure: string | undefined;
  private readonly onProblem: (problem: string) => void;
  private appendsSincePrune = 0;
  private pendingTurns: (AgentTurn & { segment: number })[] = [];
  private droppedTurns = 0;

  private constructor(
    file: string,
    db: DatabaseSync,
    retention: HistoryRetention,
    onProblem: (problem: string) => void,
  ) {
    this.file = file;
    this.db = db;
    this.retention = retention;
    this.onProblem = onProblem;
    this.insertTick = db.prepare(
      "INSERT OR REPLACE INTO ticks (segment, tick, time, body, checksum) VALUES (?, ?, ?, ?, ?)",
    );
    const newest = db.prepare("SELECT MAX(segment) AS s FROM keyframes").get() as { s: number | null };
    this.current = newest.s ?? 0;
    this.lastTick = this.lastTickOf(this.current);
  }

  /** Opens (or creates) the history of this world. One of another world or scene (the world files
   * changed) cannot be replayed on this one: it is emptied, and the caller told why. */
  static open(
    file: string,
    identity: StoreIdentity,
    options: { retention?: HistoryRetention; onProblem: (problem: string) => void },
  ): WorldHistory {
    privateDirSync(path.dirname(file));
    const db = new DatabaseSync(file);
    privateFileSync(file);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 2000");
    db.exec(SCHEMA);
    const get = (key: string) =>
      (db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined)?.value;
    const world = get("world");
    const scene = get("sceneHash");
    if (world !== undefined && (world !== identity.world || scene !== identity.sceneHash)) {
      db.exec("DELETE FROM ticks; DELETE FROM keyframes; DELETE FROM agent_turns;");
      options.onProblem(
        `the history at ${file} was of world ${world} (scene ${scene}), not this one: it was cleared`,
      );
    }
    const put = db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    put.run("world", identity.world);
    put.run("sceneHash", identity.sceneHash);
    put.run("format", HISTORY_FORMAT);
    return new WorldHistory(file, db, options.retention ?? DEFAULT_RETENTION, options.onProblem);
  }

  get segment(): number {
    return this.current;
  }

  /** Keeps a definition the world ran with (as JSON, definition-wire.ts), so a keyframe of it still
   * opens after a live reload replaced it (definitionFor). Once per scene. */
  keepDefinition(definition: WorldDefinition): void {
    this.guard("keeping the definition", () => {
      this.db
        .prepare("INSERT OR IGNORE INTO definitions (scene, body) VALUES (?, ?)")
        .run(definition.sceneHash, JSON.stringify(definitionToWire(definition)));
    });
  }

  /** The definition of a scene this history kept, for the replay to open its keyframes. */
  definitionFor(sceneHash: string): WorldDefinition | undefined {
    if (!this.db.isOpen) return undefined;
    const row = this.db.prepare("SELECT body FROM definitions WHERE scene = ?").get(sceneHash) as
      | { body: string }
      | undefined;
    if (!row) return undefined;
    const definition = definitionFromWire(JSON.parse(row.body));
    return typeof definition === "string" ? undefined : definition;
  }

  /** The world took a new definition live (world-reload.ts): its history goes on, so a restart on
   * the new world files keeps it instead of clearing it as another scene's. */
  setIdentity(identity: StoreIdentity): void {
    this.guard("recording the new scene", () => {
      const put = this.db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      );
      put.run("world", identity.world);
      put.run("sceneHash", identity.sceneHash);
    });
  }

  close(): void {
    this.flushTurns();
    if (this.db.isOpen) this.db.close();
  }

  /** An agent's request, blocked call or turn (agent-turns.ts). Kept in memory and written after the
   * current event-loop turn, in one transaction with the others, so no tick ever waits on it. */
  noteTurn(turn: AgentTurn): void {
    if (this.failure || (this.retention.maxTurnBytes ?? 0) <= 0) return;
    if (this.pendingTurns.length >= MAX_PENDING_TURNS) {
      this.droppedTurns += 1;
      return;
    }
    this.pendingTurns.push({ ...turn, segment: this.current });
    if (this.pendingTurns.length === 1) setImmediate(() => this.flushTurns());
  }

  /** Writes the agent turns noted since the last write. */
  flushTurns(): void {
    if (this.pendingTurns.length === 0 || !this.db.isOpen) return;
    const turns = this.pendingTurns;
    this.pendingTurns = [];
    this.guard("keeping agent turns", () => {
      const insert = this.db.prepare(
        "INSERT INTO agent_turns (segment, tick, time, agent_id, kind, name, status, ms, request, answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      );
      this.db.exec("BEGIN");
      try {
        for (const t of turns)
          insert.run(
            t.segment,
            t.tick,
            t.time,
            t.agentId,
            t.kind,
            t.name,
            t.status,
            t.ms,
            t.request,
            t.answer,
          );
        this.db.exec("COMMIT");
      } catch (error) {
        this.db.exec("ROLLBACK");
        throw error;
      }
    });
  }

  /** The agent turns of `segment` answered in [from, to] (one agent's, or everyone's), oldest first. */
  agentTurns(segment: number, from: number, to: number, agentId?: string): StoredAgentTurn[] {
    this.flushTurns();
    const who = agentId === undefined ? "" : " AND agent_id = ?";
    return this.db
      .prepare(
        `SELECT ${TURN_COLUMNS} FROM agent_turns WHERE segment = ? AND tick >= ? AND tick <= ?${who} ORDER BY seq LIMIT ${MAX_TURNS_READ}`,
      )
      .all(
        ...[segment, from, to, ...(agentId === undefined ? [] : [agentId])],
      ) as unknown as StoredAgentTurn[];
  }

  /** One agent's turns across every timeline kept, newest first: at most `limit` of those before
   * `beforeSeq` (the follow page's pages; an older page starts before the last seq it got). */
  agentTurnsPage(agentId: string, limit: number, beforeSeq?: number): StoredAgentTurn[] {
    this.flushTurns();
    const take = Math.max(1, Math.min(MAX_TURNS_READ, Math.floor(limit)));
    const before = beforeSeq === undefined ? "" : " AND seq < ?";
    return this.db
      .prepare(
        `SELECT ${TURN_COLUMNS} FROM agent_turns WHERE agent_id = ?${before} ORDER BY seq DESC LIMIT ${take}`,
      )
      .all(...[agentId, ...(beforeSeq === undefined ? [] : [beforeSeq])]) as unknown as StoredAgentTurn[];
  }

  /** The agents with turns in [from, to] of `segment`, and how many each. */
  turnTakers(segment: number, from: number, to: number): { agentId: string; turns: number }[] {
    this.flushTurns();
    return this.db
      .prepare(
        "SELECT agent_id AS agentId, COUNT(*) AS turns FROM agent_turns WHERE segment = ? AND tick >= ? AND tick <= ? GROUP BY agent_id ORDER BY agent_id",
      )
      .all(segment, from, to) as unknown as { agentId: string; turns: number }[];
  }

  /** Brings the history up to a freshly recovered world, before its start keyframe: the store's log
   * rows it misses are taken in; a world behind the history (its store lost ticks) begins a new
   * timeline, as the ticks after its tick are no longer the world's past. */
  catchUp(worldTick: number, storeRows: readonly TickRow[], timeOf: (tick: number) => number): void {
    this.guard("catching up", () => {
      if (this.lastTick !== undefined && this.lastTick > worldTick) {
        this.current += 1;
        this.lastTick = undefined;
        return;
      }
      for (const row of storeRows)
        if (row.tick <= worldTick && (this.lastTick === undefined || row.tick > this.lastTick))
          this.write(row, timeOf(row.tick));
    });
  }

  /** A committed tick (the store's row), at simulation time `time`. */
  append(row: TickRow, time: number): void {
    this.guard(`appending tick ${row.tick}`, () => {
      this.write(row, time);
      // Pruning is a few deletes: every minute of ticks (at 20 Hz) is plenty for a day's window.
      if (++this.appendsSincePrune >= 1200) this.prune();
    });
  }

  private write(row: TickRow, time: number): void {
    this.insertTick.run(this.current, row.tick, time, row.body, row.checksum);
    this.lastTick = row.tick;
  }

  /** A snapshot of the live world. `restore` begins a new timeline at it (the operator restored an
   * earlier or another state: the ticks before it are not its past). */
  keyframe(entry: SnapshotEntry, cause: KeyframeCause, label: string | null = null): void {
    this.guard(`keeping a ${cause} keyframe`, () => {
      if (cause === "restore") {
        this.current += 1;
        this.lastTick = undefined;
      }
      this.db
        .prepare(
          "INSERT OR REPLACE INTO keyframes (segment, tick, time, hash, cause, label, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .run(this.current, entry.tick, entry.time, entry.hash, cause, label, entry.body);
      if (this.lastTick === undefined || this.lastTick < entry.tick) this.lastTick = entry.tick;
    });
  }

  /** Every timeline still held, oldest first, with its keyframes. */
  stretches(): Stretch[] {
    const rows = this.db
      .prepare(
        `SELECT segment, MIN(tick) AS firstTick, MAX(tick) AS lastTick, MIN(time) AS firstTime, MAX(time) AS lastTime
         FROM (SELECT segment, tick, time FROM ticks UNION ALL SELECT segment, tick, time FROM keyframes)
         GROUP BY segment ORDER BY segment`,
      )
      .all() as unknown as Omit<Stretch, "keyframes">[];
    return rows.map((row) => ({ ...row, keyframes: this.keyframes(row.segment) }));
  }

  keyframes(segment: number): Keyframe[] {
    return this.db
      .prepare(`SELECT ${KEYFRAME_COLUMNS} FROM keyframes WHERE segment = ? ORDER BY tick`)
      .all(segment) as unknown as Keyframe[];
  }

  /** The newest keyframe of `segment` at or before `tick`. */
  keyframeAtOrBefore(segment: number, tick: number): StoredKeyframe | undefined {
    return this.db
      .prepare(
        `SELECT ${KEYFRAME_COLUMNS}, body FROM keyframes WHERE segment = ? AND tick <= ? ORDER BY tick DESC LIMIT 1`,
      )
      .get(segment, tick) as unknown as StoredKeyframe | undefined;
  }

  /** Log rows of `segment` in (after, upTo], in tick order, with their simulation time. */
  rows(segment: number, after: number, upTo: number): (TickRow & { time: number })[] {
    return this.db
      .prepare(
        "SELECT tick, time, body, checksum FROM ticks WHERE segment = ? AND tick > ? AND tick <= ? ORDER BY tick",
      )
      .all(segment, after, upTo) as unknown as (TickRow & { time: number })[];
  }

  /** The tick of `segment` at or before simulation time `time` (for "the last N minutes"). */
  tickAtTime(segment: number, time: number): number | undefined {
    const row = this.db
      .prepare("SELECT MAX(tick) AS tick FROM ticks WHERE segment = ? AND time <= ?")
      .get(segment, time) as { tick: number | null };
    return row.tick ?? undefined;
  }

  /** Drops what is beyond the retention, always up to a keyframe: whatever is kept still starts at
   * one, so every kept tick can be replayed. The newest keyframe of the live timeline is never cut. */
  prune(): number {
    this.appendsSincePrune = 0;
    this.flushTurns();
    const newest = this.db
      .prepare("SELECT MAX(time) AS time FROM ticks WHERE segment = ?")
      .get(this.current) as { time: number | null };
    let removed = 0;
    if (newest.time !== null) removed += this.cutBefore(newest.time - this.retention.maxAgeMs);
    for (let i = 0; i < 64 && this.bytes() > this.retention.maxBytes; i++) {
      const cut = this.secondOldestKeyframe();
      if (!cut) break;
      removed += this.cutKeyframeOrder(cut);
    }
    return removed + this.pruneTurns();
  }

  /** The agents' turns past their own bound go oldest first. */
  private pruneTurns(): number {
    const cap = this.retention.maxTurnBytes ?? 0;
    let removed = 0;
    for (let i = 0; i < 64 && this.turnBytes() > cap; i++) {
      const cut = this.db
        .prepare("DELETE FROM agent_turns WHERE seq IN (SELECT seq FROM agent_turns ORDER BY seq LIMIT 50)")
        .run();
      if (Number(cut.changes) === 0) break;
      removed += Number(cut.changes);
    }
    return removed;
  }

  private turnBytes(): number {
    const row = this.db
      .prepare("SELECT COALESCE(SUM(LENGTH(request) + LENGTH(answer)), 0) AS bytes FROM agent_turns")
      .get() as { bytes: number };
    return row.bytes;
  }

  /** Cuts every timeline's ticks and keyframes before the newest keyframe at or before `time`. */
  private cutBefore(time: number): number {
    const kf = this.db
      .prepare("SELECT segment, tick FROM keyframes WHERE time <= ? ORDER BY segment DESC, tick DESC LIMIT 1")
      .get(time) as { segment: number; tick: number } | undefined;
    return kf ? this.cutKeyframeOrder(kf) : 0;
  }

  private secondOldestKeyframe(): { segment: number; tick: number } | undefined {
    return this.db
      .prepare("SELECT segment, tick FROM keyframes ORDER BY segment, tick LIMIT 1 OFFSET 1")
      .get() as { segment: number; tick: number } | undefined;
  }

  /** Removes everything before keyframe `at` (older timelines whole, its own up to it). */
  private cutKeyframeOrder(at: { segment: number; tick: number }): number {
    const a = this.db
      .prepare("DELETE FROM ticks WHERE segment < ? OR (segment = ? AND tick <= ?)")
      .run(at.segment, at.segment, at.tick);
    const b = this.db
      .prepare("DELETE FROM keyframes WHERE segment < ? OR (segment = ? AND tick < ?)")
      .run(at.segment, at.segment, at.tick);
    const c = this.db
      .prepare("DELETE FROM agent_turns WHERE segment < ? OR (segment = ? AND tick < ?)")
      .run(at.segment, at.segment, at.tick);
    return Number(a.changes) + Number(b.changes) + Number(c.changes);
  }

  /** Bytes the database takes (pages in use). */
  bytes(): number {
    const count = this.db.prepare("PRAGMA page_count").get() as { page_count: number };
    const free = this.db.prepare("PRAGMA freelist_count").get() as { freelist_count: number };
    const size = this.db.prepare("PRAGMA page_size").get() as { page_size: number };
    return (count.page_count - free.freelist_count) * size.page_size;
  }

  stats(): HistoryStats {
    this.flushTurns();
    const counts = this.db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM ticks) AS ticks, (SELECT COUNT(*) FROM keyframes) AS keyframes, (SELECT COUNT(DISTINCT segment) FROM keyframes) AS segments",
      )
      .get() as { ticks: number; keyframes: number; segments: number };
    const end = (order: "ASC" | "DESC") =>
      this.db
        .prepare(`SELECT segment, tick, time FROM ticks ORDER BY segment ${order}, tick ${order} LIMIT 1`)
        .get() as { segment: number; tick: number; time: number } | undefined;
    const oldest = end("ASC");
    const newest = end("DESC");
    return {
      file: this.file,
      bytes: this.bytes(),
      ...counts,
      agentTurns: {
        count: (this.db.prepare("SELECT COUNT(*) AS n FROM agent_turns").get() as { n: number }).n,
        bytes: this.turnBytes(),
        dropped: this.droppedTurns,
      },
      ...(oldest ? { oldest } : {}),
      ...(newest ? { newest } : {}),
      retention: this.retention,
      ...(this.failure ? { problem: this.failure } : {}),
    };
  }

  private lastTickOf(segment: number): number | undefined {
    const row = this.db
      .prepare(
        "SELECT MAX(tick) AS tick FROM (SELECT tick FROM ticks WHERE segment = ? UNION ALL SELECT tick FROM keyframes WHERE segment = ?)",
      )
      .get(segment, segment) as { tick: number | null };
    return row.tick ?? undefined;
  }

  /** Runs a write; a failure stops the history (reported once), never the world. */
  private guard(what: string, fn: () => void): void {
    if (this.failure) return;
    try {
      fn();
    } catch (error) {
      this.failure = `the replay history (${this.file}) failed ${what}: ${(error as Error).message}; it records nothing more until the next start`;
      this.onProblem(this.failure);
    }
  }
}
