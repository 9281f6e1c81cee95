// Opens one world for hosting: loads the world directory, rebuilds the last committed state from the
// durable store (newest valid snapshot + the tick log since it; damaged records are reported and set
// aside, never silently dropped) and wraps it in its tick host with the store as its journal, so every
// tick is durable before it is answered. Nothing here knows about adapters or plugin config: the
// plugin passes plain options.
import { existsSync, renameSync, rmSync } from "node:fs";
import { definitionToWire } from "../world/definition-wire.ts";
import { tickToMs } from "../world/time.ts";
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import { type HistoryRetention, historyFile, WorldHistory } from "./history.ts";
import { loadWorldDir } from "./load-world-dir.ts";
import {
  commitTick,
  type RecoveryReport,
  recoverWorld,
  SideTables,
  type SnapshotEntry,
  sessionSpace,
  snapshotEntry,
  snapshotEntryInSlices,
} from "./persistence.ts";
import { salvageStore } from "./salvage.ts";
import {
  readSnapshotCopy,
  snapshotCopyFile,
  writeSnapshotCopy,
  writeSnapshotCopySync,
} from "./snapshot-copy.ts";
import { type SceneChange, WorldStore } from "./store.ts";
import { catchUpFromMirror, readTickMirror, TickMirror, tickMirrorFile } from "./tick-mirror.ts";
import { describe, type RuntimeLogger, WorldRuntime } from "./world-runtime.ts";

export interface OpenWorldOptions {
  worldDir: string;
  /** Overrides the world's own tick rate. */
  tickRate?: number;
  /** Must be a room of the world: where newcomers join. */
  defaultRoomId: string;
  /** The store's database file; persistence is off without it. */
  storeFile: string | undefined;
  /** "full" (default): every tick's commit is fsynced, so an acknowledgement survives even a power
   * loss. "normal": written to the OS before the answer (survives a killed process, not a power
   * loss), without waiting for the disk. */
  storeSync?: "full" | "normal";
  /** The replay history beside the store (history.ts): off when false; its retention otherwise. */
  history?: HistoryRetention | false;
  /** The definition to open with instead of reading `worldDir`: a world reopened in the process
   * that ran it, whose directory may be gone (a retired plugin generation's copy is deleted). */
  definition?: WorldDefinition;
  logger: RuntimeLogger;
}

export interface OpenedWorld {
  definition: WorldDefinition;
  runtime: WorldRuntime;
  /** How the world came to be: fresh from the directory or restored from the store. Operator-only. */
  origin: "fresh" | "restored";
  /** The durable store, when persistence is on (every tick is logged in it before it is answered). */
  store: WorldStore | undefined;
  /** Adapter state written with the tick commits (rate-limit buckets); with the store only. */
  side: SideTables | undefined;
  /** What the start-up recovery found (operator status; never shown to agents). */
  recovery: RecoveryReport | undefined;
  /** Every problem with the store since start, recovery's first (operator status only). */
  problems: string[];
  /** The tick log's second copy outside the database (tick-mirror.ts), with the store only. */
  mirror?: TickMirror;
  /** What replay reads (history.ts): every committed tick and keyframes, within its retention. */
  history?: WorldHistory;
}

/** The world directory as this gateway hosts it: its tick rate overridden, its default room checked. */
export async function loadDefinition(
  options: Pick<OpenWorldOptions, "worldDir" | "tickRate" | "defaultRoomId">,
): Promise<WorldDefinition> {
  const loaded = await loadWorldDir(options.worldDir);
  const definition: WorldDefinition = options.tickRate ? { ...loaded, tickRate: options.tickRate } : loaded;
  if (!definition.rooms[options.defaultRoomId]) {
    throw new Error(
      `openclawworld: defaultRoomId "${options.defaultRoomId}" is not a room of world "${definition.name}" (rooms: ${Object.keys(definition.rooms).join(", ")})`,
    );
  }
  return definition;
}

export async function openWorld(options: OpenWorldOptions): Promise<OpenedWorld> {
  const { storeFile, logger } = options;
  const definition = options.definition ?? (await loadDefinition(options));
  if (!storeFile) {
    const runtime = new WorldRuntime(World.create(definition), logger);
    return {
      definition,
      runtime,
      origin: "fresh",
      store: undefined,
      side: undefined,
      recovery: undefined,
      problems: [],
    };
  }
  const opened = openStoreFor(storeFile, definition, logger, options.storeSync ?? "full");
  const store = opened.store;
  const copy = snapshotCopyFile(storeFile);
  const mirrorFile = tickMirrorFile(storeFile);
  // Read before anything is written: the start's own snapshot starts the mirror afresh.
  const mirrored = readTickMirror(mirrorFile);
  const recovered = recoverWorld(definition, store, () => snapshotCopyOf(copy, definition));
  const { world } = recovered;
  const caughtUp = catchUpFromMirror(world, identityOf(definition), mirrorFile, mirrored);
  const recoveryProblems = [...recovered.report.problems, ...caughtUp.problems];
  const report: RecoveryReport = {
    ...recovered.report,
    tick: world.tick,
    problems: [...opened.problems, ...recoveryProblems],
    ...(caughtUp.loss ? { logLoss: caughtUp.loss } : {}),
  };
  for (const problem of recoveryProblems) logger.error(`openclawworld: recovery: ${problem}`);
  const restored = report.base.kind === "snapshot" || report.replayedTicks > 0;
  const origin = restored || (caughtUp.loss?.replayedFromMirror ?? 0) > 0 ? "restored" : "fresh";
  if (origin === "restored") {
    logger.info(
      `openclawworld: restored world at tick ${world.tick} (snapshot at tick ${report.base.tick} + ${report.replayedTicks} logged ticks) from ${store.file}`,
    );
  }
  const runtime = new WorldRuntime(world, logger);
  const side = new SideTables(store);
  const host: OpenedWorld = {
    definition,
    runtime,
    origin,
    store,
    side,
    recovery: report,
    problems: keepProblems(store, report.problems),
  };
  if (options.history !== false) {
    host.history = WorldHistory.open(historyFile(storeFile), identityOf(definition), {
      ...(options.history ? { retention: options.history } : {}),
      onProblem: (problem) => reportProblem(host, problem),
    });
    // Read before the start's snapshot compacts the store's log: what the history missed (a crash
    // between the two commits) is still there.
    const epoch = world.serverTsMs - Math.floor((world.tick * 1000) / definition.tickRate);
    host.history.catchUp(world.tick, store.ticksAfter(-1), (tick) =>
      tickToMs(epoch, definition.tickRate, tick),
    );
  }
  // A new base snapshot right away: the next recovery starts here, and the replayed log is compacted.
  storeAutoSnapshot(host, snapshotEntry(world.snapshot()), "save", "start");
  host.mirror = TickMirror.start(mirrorFile, identityOf(definition), world.tick, {
    fsyncEach: (options.storeSync ?? "full") === "full",
    onProblem: (problem) => reportProblem(host, problem),
  });
  runtime.journal = {
    commit: (inputs, result) => {
      const live = runtime.world.definition;
      const scene = live.sceneHash === host.definition.sceneHash ? undefined : sceneChange(host, live);
      const { row, flushed } = commitTick(store, inputs, result, side, scene);
      if (scene) adoptDefinition(host, live);
      host.mirror?.append(row, flushed);
      host.history?.append(row, result.serverTsMs);
    },
    // The definition in force, which a live reload (world-reload.ts) may have replaced.
    recover: () => recoverWorld(host.definition, store).world,
  };
  return host;
}

/** The tick just stepped gave the world a new definition (a live reload, world-reload.ts): the store
 * names the new scene and keeps the replaced definition in the transaction that logs the tick, so
 * there is no moment at which the log holds the change and the store another scene's name, and a
 * recovery based on a snapshot from before the change can replay through it (recoverWorld). */
function sceneChange(host: OpenedWorld, live: WorldDefinition): SceneChange {
  return {
    identity: identityOf(live),
    replaced: {
      sceneHash: host.definition.sceneHash,
      body: JSON.stringify(definitionToWire(host.definition)),
    },
  };
}

/** Once the tick that changed the definition is durable: the host, the replay history and the
 * mirror go on under the new scene (the history keeps both definitions for its keyframes). */
function adoptDefinition(host: OpenedWorld, live: WorldDefinition): void {
  host.history?.keepDefinition(host.definition);
  host.history?.keepDefinition(live);
  host.history?.setIdentity(identityOf(live));
  host.mirror?.reidentify(identityOf(live));
  host.definition = live;
}

/** Recovery problems are kept in the store (the newest 50), so the operator status still shows them
 * after the service restarted (a config reload, another start) on the repaired store. */
function keepProblems(store: WorldStore, problems: readonly string[]): string[] {
  const space = sessionSpace(store, PROBLEMS_SCOPE);
  const at = `${Date.now()}`.padStart(16, "0");
  for (const [i, problem] of problems.entries()) space.put(`${at}-${String(i).padStart(4, "0")}`, problem);
  const kept = space.list();
  for (const { key } of kept.slice(0, Math.max(0, kept.length - 50))) space.delete(key);
  return kept.slice(-50).map(({ value }) => String(value));
}
const PROBLEMS_SCOPE = "recovery-problems";

/** The copy of the store's last snapshot, if it is of this world. */
function snapshotCopyOf(file: string, definition: WorldDefinition) {
  const read = readSnapshotCopy(file);
  if (!read.ok) return undefined;
  const mine = read.identity.world === definition.name && read.identity.sceneHash === definition.sceneHash;
  return mine ? read.snapshot : undefined;
}

/** Saves an auto snapshot (compacting the log) and then its copy outside the database. A copy that
 * cannot be written leaves the store's snapshot standing: it is reported, not thrown. */
export function storeAutoSnapshot(
  host: Pick<OpenedWorld, "store" | "definition" | "problems" | "mirror" | "history">,
  entry: SnapshotEntry,
  how: "save" | "new-timeline" = "save",
  cause: "start" | "auto" = "auto",
): void {
  const store = host.store;
  if (!store) return;
  host.history?.keyframe(entry, how === "new-timeline" ? "restore" : cause);
  // Taken with the entry (made from the live world just before): the mirror's rows after it follow it.
  const mark = host.mirror?.mark();
  if (how === "save") store.saveAutoSnapshot(entry);
  else store.resetTimeline(entry);
  const copyFile = snapshotCopyFile(store.file);
  try {
    writeSnapshotCopySync(copyFile, identityOf(host.definition), entry);
    host.mirror?.restart(entry.tick, mark);
  } catch (error) {
    reportCopyFailure(host, error);
    if (how === "new-timeline") {
      // The old copy and the mirror's rows belong to the abandoned timeline: a recovery must not
      // take them for newer than the store.
      rmSync(copyFile, { force: true });
      host.mirror?.restart(entry.tick);
    }
  }
}

export function identityOf(definition: WorldDefinition) {
  return { world: definition.name, sceneHash: definition.sceneHash };
}

function reportCopyFailure(host: Pick<OpenedWorld, "problems">, error: unknown): void {
  reportProblem(host, `the snapshot copy could not be written: ${describe(error)}`);
}

function reportProblem(host: Pick<OpenedWorld, "problems">, problem: string): void {
  host.problems.push(problem);
  // Bounded: a disk that stays full must not grow the status without end.
  if (host.problems.length > 50) host.problems.splice(0, host.problems.length - 50);
}

/** Saves a snapshot of the live world (compacting the log behind it), at once: the event loop waits
 * (at 1,000 actors and 20,000 retained events about 0.4 s). For start-up and shutdown; the periodic one is saveWorldInSlices. */
export function saveWorld(
  opened: Pick<OpenedWorld, "store" | "runtime" | "definition" | "problems" | "mirror" | "history">,
): void {
  if (!opened.store?.isOpen) return;
  storeAutoSnapshot(opened, snapshotEntry(opened.runtime.world.snapshot()));
}

/** Stores with a saveWorldInSlices under way, and its promise. */
const saving = new WeakMap<WorldStore, Promise<boolean>>();

/** saveWorld without stalling the ticks: the state is captured now (World.snapshot(): ~10 ms at 1,000 actors), and
 * written, hashed and stored over the next event-loop turns while the world goes on ticking; the
 * store takes it in one transaction at the end, so a crash before then leaves the previous snapshot
 * and the log as they were. Resolves to whether it was stored: not when another one is still under
 * way (unless `afterOneUnderWay`: then it waits for that one and captures the state after it), nor
 * when meanwhile the store closed, started a new timeline (an operator restore) or got a newer
 * snapshot (a shutdown's): this one would then describe a world that is gone or older. */
export async function saveWorldInSlices(
  opened: Pick<OpenedWorld, "store" | "runtime" | "definition" | "problems" | "mirror" | "history">,
  options: { sliceMs?: number; afterOneUnderWay?: boolean } = {},
): Promise<boolean> {
  const store = opened.store;
  if (options.afterOneUnderWay) while (store && saving.has(store)) await saving.get(store);
  if (!store?.isOpen || saving.has(store)) return false;
  const saved = storeInSlices(opened, store, options.sliceMs);
  saving.set(store, saved);
  try {
    return await saved;
  } finally {
    saving.delete(store);
  }
}

async function storeInSlices(
  opened: Pick<OpenedWorld, "runtime" | "problems" | "mirror" | "history">,
  store: WorldStore,
  sliceMs: number | undefined,
): Promise<boolean> {
  const timeline = store.timeline;
  const snapshot = opened.runtime.world.snapshot();
  const mark = opened.mirror?.mark();
  const entry = await snapshotEntryInSlices(snapshot, sliceMs);
  if (!store.isOpen || store.timeline !== timeline) return false;
  const newest = store.newestAutoTick();
  if (newest !== undefined && newest >= entry.tick) return false;
  store.saveAutoSnapshot(entry);
  opened.history?.keyframe(entry, "auto");
  // Named by the snapshot's own scene: a live reload may have changed the world's since it was taken.
  const identity = { world: snapshot.world, sceneHash: snapshot.sceneHash };
  await writeSnapshotCopy(snapshotCopyFile(store.file), identity, entry).then(
    () => opened.mirror?.restart(entry.tick, mark),
    (error: unknown) => reportCopyFailure(opened, error),
  );
  return true;
}

/** Saves and closes the store; call after the runtime stopped. */
export function closeWorld(opened: OpenedWorld, logger: RuntimeLogger): void {
  try {
    saveWorld(opened);
  } catch (error) {
    logger.error(`openclawworld: saving the world failed: ${describe(error)}`);
  }
  try {
    opened.store?.close();
  } catch (error) {
    logger.warn(`openclawworld: closing the store failed: ${describe(error)}`);
  }
  opened.mirror?.close();
  opened.history?.close();
}

/** Opens the store of this world. A file that is not a usable database is set aside (never deleted)
 * and what is still readable of it (salvage.ts) is taken into a new one; the store of another world
 * or scene (the world files changed) is set aside. Every such step is a problem for the status. */
function openStoreFor(
  file: string,
  definition: WorldDefinition,
  logger: RuntimeLogger,
  synchronous: "full" | "normal",
): { store: WorldStore; problems: string[] } {
  const problems: string[] = [];
  let store: WorldStore;
  try {
    store = WorldStore.open(file, { synchronous });
  } catch (error) {
    if (isLocked(error)) throw new StoreLockedError(file, error);
    const aside = setAside(file, "damaged");
    const problem = `${file} is not usable (${describe(error)}); kept it at ${aside}`;
    logger.error(`openclawworld: ${problem}`);
    problems.push(problem);
    store = WorldStore.open(file, { synchronous });
    problems.push(...takeInSalvage(store, aside, definition));
  }
  const identity = store.identity();
  const mine = identityOf(definition);
  if (identity && (identity.world !== mine.world || identity.sceneHash !== mine.sceneHash)) {
    store.close();
    const aside = setAside(file, "other-world");
    logger.warn(
      `openclawworld: the saved world (${identity.world}, scene ${identity.sceneHash}) is not this world (${mine.world}, scene ${mine.sceneHash}); kept it at ${aside}, starting fresh`,
    );
    store = WorldStore.open(file, { synchronous });
  }
  if (store.identity() === undefined) store.setIdentity(mine);
  return { store, problems };
}

/** Reads what it can of the damaged file set aside at `aside` into the new `store`. */
function takeInSalvage(store: WorldStore, aside: string, definition: WorldDefinition): string[] {
  const salvaged = salvageStore(aside);
  const problems = salvaged.problems.map((p) => `salvage of ${aside}: ${p}`);
  if (!salvaged.readAs) return problems;
  const world = salvaged.meta.find((m) => m.key === "world")?.value;
  const scene = salvaged.meta.find((m) => m.key === "sceneHash")?.value;
  if (
    (world !== undefined && world !== definition.name) ||
    (scene !== undefined && scene !== definition.sceneHash)
  )
    return [...problems, `salvage of ${aside}: it is the store of another world or scene; not taken in`];
  try {
    store.importRows(salvaged);
    problems.push(
      `salvaged ${salvaged.ticks.length} log rows, ${salvaged.autoSnapshots.length} snapshots, ${salvaged.checkpoints.length} checkpoints and ${salvaged.side.length} side rows from it${salvaged.readAs === "rebuilt-header" ? " (its header was rebuilt)" : ""}`,
    );
  } catch (error) {
    problems.push(`salvage of ${aside}: the rows read could not be stored: ${describe(error)}`);
  }
  return problems;
}

/** The store is held by another process (SQLITE_BUSY): nothing is wrong with it, so it is not set
 * aside; the service retries (service.ts). */
export class StoreLockedError extends Error {
  constructor(file: string, cause: unknown) {
    super(`${file} is locked by another process (${describe(cause)})`);
    this.name = "StoreLockedError";
  }
}

function isLocked(error: unknown): boolean {
  const { errcode, message } = error as { errcode?: unknown; message?: unknown };
  // SQLITE_BUSY is 5; an extended code keeps it in its low byte.
  return (
    (typeof errcode === "number" && (errcode & 0xff) === 5) || /database is locked/i.test(String(message))
  );
}

function setAside(file: string, label: string): string {
  const aside = `${file}.${label}-${Date.now()}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}
