// Durability on top of the store: what a tick writes, how a world is rebuilt after a crash, and the
// operator's snapshots. The world is deterministic, so a snapshot plus the inputs of every tick since
// it reproduce the state exactly (including idempotency records, chat and event sequence numbers):
// the log stores inputs, and a digest of each tick's results to prove the replay matched.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gunzipSync, gzip, gzipSync } from "node:zlib";
import type { JsonForm } from "../world/canonical-json.ts";
import { definitionFromWire } from "../world/definition-wire.ts";
import { canonicalHash, jsonPieces } from "../world/snapshot.ts";
import {
  type Input,
  SNAPSHOT_FORMAT,
  type StepResult,
  type WorldDefinition,
  type WorldSnapshot,
} from "../world/types.ts";
import { World } from "../world/world.ts";
import { repairFlippedBit } from "./bit-repair.ts";
import {
  type SceneChange,
  type SideWrite,
  type StoredSnapshot,
  type TickRow,
  tickChecksum,
  type WorldStore,
} from "./store.ts";

/** What the log keeps per tick. */
interface TickBody {
  inputs: Input[];
  /** Digest of the tick's results and event positions (see tickDigest). */
  digest: string;
}

/** Results and the (room, seq) of each event: a replay that produces anything else diverged. */
export function tickDigest(result: StepResult): string {
  const events = result.events.map((e) => [e.roomId, e.seq, e.type]);
  return createHash("sha256")
    .update(JSON.stringify([result.tick, result.results, events]))
    .digest("hex")
    .slice(0, 32);
}

/** The runtime's group commit: one row per tick, written before the tick's answers are released,
 * with the side-table rows that changed since the last commit in the same transaction. */
export function commitTick(
  store: WorldStore,
  inputs: readonly Input[],
  result: StepResult,
  side?: SideTables,
  /** The tick gave the world a new definition: the store names it in the same transaction. */
  scene?: SceneChange,
): { row: TickRow; flushed: boolean } {
  const body: TickBody = { inputs: inputs as Input[], digest: tickDigest(result) };
  const pending = side?.collect();
  // Idle ticks are logged too (simulation time never goes back after a crash) but need no fsync of
  // their own: nothing was acknowledged or delivered in them. 20 fsyncs a second on an idle world
  // would stall the event loop for nothing. Side rows (someone was answered) do need one.
  const answersSomeone = inputs.length > 0 || result.events.length > 0 || pending?.needsFlush === true;
  const row = store.appendTick(result.tick, JSON.stringify(body), answersSomeone, pending?.writes, scene);
  pending?.done(answersSomeone);
  return { row, flushed: answersSomeone };
}

/** A piece of adapter state kept in a side table of the store (e.g. rate-limit buckets): it says what
 * changed, the tick commit writes that in its own transaction, and then it is told to forget it. */
export interface SideSource {
  readonly scope: string;
  /** Rows changed since the last `written()`: JSON-able value, or undefined to delete. */
  pending(): { key: string; value: unknown }[];
  /** The rows last returned by `pending()` are durable. Called synchronously after `pending()`. */
  written(): void;
}

/** The side tables of one store: sources whose changes ride on the tick commits, and `settle` for an
 * answer that cannot wait for the next tick (its rows are written to the OS at once and fsynced with
 * the next tick, which is then flushed even if it is otherwise idle). */
export class SideTables {
  private readonly store: WorldStore;
  private readonly sources: SideSource[] = [];
  /** Rows were written by `settle` without an fsync: the next tick commit must flush. */
  private unflushed = false;

  constructor(store: WorldStore) {
    this.store = store;
  }

  register(source: SideSource): void {
    this.sources.push(source);
  }

  /** A scope's stored rows (unparseable ones are skipped). */
  list(scope: string): { key: string; value: unknown }[] {
    return parseRows(this.store.sessionList(scope));
  }

  /** What the next tick commit writes; `done` after it committed (`flushed`: fsynced). */
  collect(): { writes: SideWrite[]; needsFlush: boolean; done(flushed: boolean): void } {
    const writes = this.pendingWrites();
    return {
      writes,
      needsFlush: writes.length > 0 || this.unflushed,
      done: (flushed) => {
        for (const source of this.sources) source.written();
        if (flushed) this.unflushed = false;
      },
    };
  }

  /** Writes every pending change now (to the OS; the next tick fsyncs it). Throws if the store does. */
  settle(): void {
    const writes = this.pendingWrites();
    if (writes.length === 0) return;
    this.store.writeSide(writes);
    for (const source of this.sources) source.written();
    this.unflushed = true;
  }

  private pendingWrites(): SideWrite[] {
    return this.sources.flatMap((source) =>
      source.pending().map(({ key, value }) => ({
        scope: source.scope,
        key,
        value: value === undefined ? undefined : JSON.stringify(value),
      })),
    );
  }
}

function parseRows(rows: { key: string; value: string }[]): { key: string; value: unknown }[] {
  return rows.flatMap(({ key, value }) => {
    try {
      return [{ key, value: JSON.parse(value) as unknown }];
    } catch {
      return [];
    }
  });
}

/** What a start learnt from the tick log's second copy (tick-mirror.ts) about the end of the store's
 * log: set when the store had lost committed ticks. */
export interface LogLoss {
  /** The tick the store (with the snapshot copy) brought the world back to. */
  storeTick: number;
  /** The newest tick the mirror proves was committed. */
  committedTick: number;
  /** Ticks of the difference replayed from the mirror. */
  replayedFromMirror: number;
  /** How far the world still went back: `committedTick` minus the tick it starts at. */
  wentBackTicks: number;
}

export interface RecoveryReport {
  /** Where the rebuilt state started: a stored snapshot (its tick) or a fresh world. */
  base: { kind: "snapshot" | "fresh"; tick: number; hash?: string };
  replayedTicks: number;
  tick: number;
  /** Everything that did not check out, in plain words; empty after a clean recovery. */
  problems: string[];
  quarantinedTicks: number;
  quarantinedSnapshots: number;
  /** The store's log had lost ticks at its end (a torn write-ahead log): how many, and how far the
   * world still went back after the second copy's were replayed. */
  logLoss?: LogLoss;
}

export type SnapshotCheck = { ok: true; snapshot: WorldSnapshot } | { ok: false; reason: string };

/** Parses a stored snapshot and checks its recorded hash against its content: gzipped JSON, or JSON
 * text in stores written before snapshots were gzipped. */
export function checkStoredSnapshot(stored: StoredSnapshot): SnapshotCheck {
  let text: string;
  try {
    text = typeof stored.body === "string" ? stored.body : gunzipSync(stored.body).toString("utf8");
  } catch (error) {
    return { ok: false, reason: `not gzip (${(error as Error).message})` };
  }
  let snapshot: WorldSnapshot;
  try {
    snapshot = JSON.parse(text) as WorldSnapshot;
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  const actual = canonicalHash(snapshot);
  if (actual !== stored.hash)
    return { ok: false, reason: `hash ${actual} does not match recorded ${stored.hash}` };
  return { ok: true, snapshot };
}

/** Rebuilds the world from the store: the newest snapshot that checks out, then the log after it.
 * Anything that fails a check is reported and moved to the quarantine, never silently dropped; the
 * result is the last good state. Never throws for damaged content (only for an unusable database). */
export function recoverWorld(
  definition: WorldDefinition,
  store: WorldStore,
  /** Tried when no snapshot of the store checks out: the copy of the last one (snapshot-copy.ts). */
  fallback?: () => Omit<StoredSnapshot, "id" | "kind" | "label"> | undefined,
): { world: World; report: RecoveryReport } {
  const problems: string[] = [];
  let quarantinedSnapshots = 0;
  let world: World | undefined;
  let base: RecoveryReport["base"] = { kind: "fresh", tick: 0 };
  let baseId: number | undefined;
  for (const stored of store.autoSnapshots()) {
    const check = checkStoredSnapshot(stored);
    let reason = check.ok ? undefined : check.reason;
    if (check.ok) {
      try {
        world = World.restore(definitionOf(check.snapshot, definition, store), check.snapshot);
      } catch (error) {
        reason = (error as Error).message;
      }
    }
    if (world) {
      base = { kind: "snapshot", tick: world.tick, hash: stored.hash };
      baseId = stored.id;
      break;
    }
    problems.push(`snapshot #${stored.id} (tick ${stored.tick}) rejected: ${reason}`);
    store.quarantineSnapshot(stored.id, reason ?? "rejected");
    quarantinedSnapshots += 1;
  }
  const storeHadSnapshot = world !== undefined;
  const copy = storeHadSnapshot ? undefined : fallback?.();
  if (copy) {
    try {
      world = restoreCopy(definition, copy);
      base = { kind: "snapshot", tick: world.tick, hash: copy.hash };
      problems.push(
        `no snapshot in the store checked out: started from the snapshot copy (tick ${copy.tick})`,
      );
    } catch (error) {
      problems.push(`the snapshot copy (tick ${copy.tick}) was rejected too: ${(error as Error).message}`);
    }
  }
  if (!world) world = World.create(definition);

  let replayedTicks = 0;
  let quarantinedTicks = 0;
  const rows = store.ticksAfter(-1);
  const baseTick = world.tick;
  const stale = rows.filter((row) => row.tick <= baseTick).length;
  if (rows.length > 0 && rows[stale] && rows[stale].tick !== world.tick + 1) {
    // The log does not continue the base state (its snapshot was lost): replaying it would invent a
    // state nobody saw. Keep it for the operator instead.
    const reason = `log starts at tick ${rows[stale].tick} but the recovered state is at tick ${world.tick}`;
    problems.push(reason);
    quarantinedTicks += store.quarantineTicksFrom(rows[stale].tick, reason);
  } else {
    for (const original of rows.slice(stale)) {
      const row = repaired(store, original, problems);
      const problem = replayRow(world, row);
      if (problem) {
        problems.push(`tick ${row.tick}: ${problem}; it and later ticks were quarantined`);
        quarantinedTicks += store.quarantineTicksFrom(row.tick, problem);
        break;
      }
      replayedTicks += 1;
    }
  }
  if (world.definition.sceneHash !== definition.sceneHash) {
    // Based on a snapshot taken before a live reload, the log stops short of the reload's tick
    // (damaged from there): the state it reaches is of a scene the store no longer names.
    const reason = `the log ends at tick ${world.tick}, before the reload to scene ${definition.sceneHash}`;
    problems.push(`${reason}: started fresh`);
    if (baseId !== undefined) {
      store.quarantineSnapshot(baseId, reason);
      quarantinedSnapshots += 1;
    }
    if (rows[0]) quarantinedTicks += store.quarantineTicksFrom(rows[0].tick, reason);
    world = World.create(definition);
    base = { kind: "fresh", tick: 0 };
  }
  // A store whose write-ahead log lost its tail (a torn disk: SQLite drops every frame from the first
  // bad checksum on, silently) can end before the snapshot copy kept outside it: the copy is newer.
  const newer = storeHadSnapshot ? fallback?.() : undefined;
  if (newer && newer.tick > world.tick) {
    try {
      const storeTick = world.tick;
      world = restoreCopy(definition, newer);
      base = { kind: "snapshot", tick: world.tick, hash: newer.hash };
      problems.push(
        `the store reached only tick ${storeTick}, older than the snapshot copy (tick ${newer.tick}): started from the copy`,
      );
    } catch (error) {
      problems.push(
        `the store reached only tick ${world.tick}; the newer snapshot copy (tick ${newer.tick}) was rejected: ${(error as Error).message}`,
      );
    }
  }
  return {
    world,
    report: { base, replayedTicks, tick: world.tick, problems, quarantinedTicks, quarantinedSnapshots },
  };
}

/** The definition a stored snapshot was taken under: this world's, or the one a live reload replaced
 * after it (the store keeps that with the reload's tick, which the log after the snapshot replays).
 * So a crash after the reload's tick and before the new scene's first snapshot loses nothing. */
function definitionOf(snapshot: WorldSnapshot, definition: WorldDefinition, store: WorldStore) {
  if (snapshot.sceneHash === definition.sceneHash) return definition;
  const body = store.replacedDefinition(snapshot.sceneHash);
  if (body === undefined) return definition;
  let replaced: WorldDefinition | string;
  try {
    replaced = definitionFromWire(JSON.parse(body));
  } catch {
    return definition;
  }
  return typeof replaced === "string" || replaced.name !== definition.name ? definition : replaced;
}

/** The world a snapshot copy holds; throws when it does not check out. */
function restoreCopy(
  definition: WorldDefinition,
  copy: Omit<StoredSnapshot, "id" | "kind" | "label">,
): World {
  const check = checkStoredSnapshot({ ...copy, id: 0, kind: "auto", label: null });
  if (!check.ok) throw new Error(check.reason);
  return World.restore(definition, check.snapshot);
}

/** The row, or when its checksum fails and one flipped bit explains it, the row as it was written
 * (put back in the store; the repair is reported). */
function repaired(store: WorldStore, row: TickRow, problems: string[]): TickRow {
  if (tickChecksum(row.tick, row.body) === row.checksum) return row;
  const bytes = store.tickBytes(row.tick);
  const repair = bytes ? repairFlippedBit(row.tick, bytes, row.checksum) : undefined;
  if (!repair) return row;
  store.repairTick(row.tick, repair.body, repair.checksum);
  problems.push(
    repair.repaired === "body"
      ? `tick ${row.tick}: checksum mismatch; one flipped bit (byte ${repair.byte}, bit ${repair.bit}) was repaired, nothing lost`
      : `tick ${row.tick}: its checksum had one flipped bit; repaired, nothing lost`,
  );
  return { tick: row.tick, body: repair.body, checksum: repair.checksum };
}

export function replayRow(
  world: World,
  row: { tick: number; body: string; checksum: string },
  /** Given the replayed tick's inputs and result, when it matched what was logged (replay.ts). */
  onReplayed?: (inputs: readonly Input[], result: StepResult) => void,
): string | undefined {
  if (row.tick !== world.tick + 1) return `expected tick ${world.tick + 1}, the log has ${row.tick}`;
  if (tickChecksum(row.tick, row.body) !== row.checksum) return "checksum mismatch (torn or damaged record)";
  let body: TickBody;
  try {
    body = JSON.parse(row.body) as TickBody;
  } catch {
    return "record is not JSON";
  }
  if (!Array.isArray(body.inputs) || typeof body.digest !== "string") return "record has no inputs/digest";
  const result = world.step(body.inputs);
  const digest = tickDigest(result);
  if (digest !== body.digest) return `replay diverged (digest ${digest}, logged ${body.digest})`;
  onReplayed?.(body.inputs, result);
  return undefined;
}

/** The stored form of a world snapshot: its JSON, gzipped (a crowd's snapshot is ~8 MB of JSON and
 * ~0.7 MB gzipped; writing the 8 MB to SQLite took 40-50 ms), and the hash of its canonical JSON.
 * The body keeps the snapshot's own key order, not the canonical one: a restored world's objects
 * (stored results, object states, event payloads) must serialize as the live ones did, or a replayed
 * idempotent answer, and with it the tick digest, would differ. */
export interface SnapshotEntry {
  tick: number;
  time: number;
  format: string;
  hash: string;
  body: Uint8Array;
}

/** Level 1: a tenth of the size at a third of level 6's time (gzip is what costs here). */
const GZIP = { level: 1 } as const;

export function snapshotEntry(snapshot: WorldSnapshot): SnapshotEntry {
  return {
    ...entryHead(snapshot),
    hash: canonicalHash(snapshot),
    body: gzipSync(JSON.stringify(snapshot), GZIP),
  };
}

const gzipAsync = promisify(gzip);

/** snapshotEntry without holding the event loop for more than about `sliceMs` at a time: the
 * canonical JSON (hashed) and the JSON (stored) are written in pieces, yielding to the loop (ticks,
 * I/O) between slices, and gzipped on libuv's thread pool. The snapshot must not change meanwhile:
 * World.snapshot() shares only records the world never changes. */
export async function snapshotEntryInSlices(snapshot: WorldSnapshot, sliceMs = 4): Promise<SnapshotEntry> {
  let sliceStart = performance.now();
  const slices = async function* (form: JsonForm) {
    for (const piece of jsonPieces(snapshot, form)) {
      yield piece;
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  };
  const hash = createHash("sha256");
  for await (const piece of slices("canonical")) hash.update(piece, "utf8");
  const parts: Buffer[] = [];
  for await (const piece of slices("plain")) parts.push(Buffer.from(piece, "utf8"));
  const body = await gzipAsync(Buffer.concat(parts), GZIP);
  return { ...entryHead(snapshot), hash: hash.digest("hex"), body };
}

function entryHead(snapshot: WorldSnapshot) {
  return { tick: snapshot.tick, time: snapshot.time, format: snapshot.format };
}

/** Checks a snapshot someone hands in (operator load) before it goes near the world. */
export function parseForeignSnapshot(
  definition: WorldDefinition,
  value: unknown,
): { ok: true; snapshot: WorldSnapshot } | { ok: false; reason: string } {
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { ok: false, reason: "a snapshot is a JSON object" };
  const snap = value as Partial<WorldSnapshot>;
  if (snap.format !== SNAPSHOT_FORMAT)
    return { ok: false, reason: `snapshot format ${JSON.stringify(snap.format)} is not ${SNAPSHOT_FORMAT}` };
  if (snap.world !== definition.name)
    return {
      ok: false,
      reason: `snapshot of world ${JSON.stringify(snap.world)} cannot restore into "${definition.name}"`,
    };
  if (snap.sceneHash !== definition.sceneHash)
    return {
      ok: false,
      reason: `snapshot scene ${JSON.stringify(snap.sceneHash)} does not match this world's scene ${definition.sceneHash}`,
    };
  return { ok: true, snapshot: snap as WorldSnapshot };
}

/** The small durable key-value space an adapter gets for what must survive a restart (e.g. humans'
 * resume tokens). Writes are durable when they return. */
export interface SessionSpace {
  list(): { key: string; value: unknown }[];
  get(key: string): unknown;
  put(key: string, value: unknown): void;
  delete(key: string): void;
}

export function sessionSpace(store: WorldStore, scope: string): SessionSpace {
  return {
    list: () => parseRows(store.sessionList(scope)),
    get: (key) => parseRows(store.sessionList(scope)).find((row) => row.key === key)?.value,
    put: (key, value) => store.sessionPut(scope, key, JSON.stringify(value)),
    delete: (key) => store.sessionDelete(scope, key),
  };
}
