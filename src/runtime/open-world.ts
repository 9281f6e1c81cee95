// Opens one world for hosting: loads the world directory, rebuilds the last committed state from the
// durable store (newest valid snapshot + the tick log since it; damaged records are reported and set
// aside, never silently dropped) and wraps it in its tick host with the store as its journal, so every
// tick is durable before it is answered. Nothing here knows about adapters or plugin config: the
// plugin passes plain options.
import { existsSync, renameSync } from "node:fs";
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import { loadWorldDir } from "./load-world-dir.ts";
import {
  commitTick,
  type RecoveryReport,
  recoverWorld,
  SideTables,
  snapshotEntry,
  snapshotEntryInSlices,
} from "./persistence.ts";
import { WorldStore } from "./store.ts";
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
}

export async function openWorld(options: OpenWorldOptions): Promise<OpenedWorld> {
  const { storeFile, logger } = options;
  const loaded = await loadWorldDir(options.worldDir);
  const definition: WorldDefinition = options.tickRate ? { ...loaded, tickRate: options.tickRate } : loaded;
  if (!definition.rooms[options.defaultRoomId]) {
    throw new Error(
      `openclawworld: defaultRoomId "${options.defaultRoomId}" is not a room of world "${definition.name}" (rooms: ${Object.keys(definition.rooms).join(", ")})`,
    );
  }
  if (!storeFile) {
    const runtime = new WorldRuntime(World.create(definition), logger);
    return { definition, runtime, origin: "fresh", store: undefined, side: undefined, recovery: undefined };
  }
  const store = openStoreFor(storeFile, definition, logger, options.storeSync ?? "full");
  const { world, report } = recoverWorld(definition, store);
  for (const problem of report.problems) logger.error(`openclawworld: recovery: ${problem}`);
  const origin = report.base.kind === "snapshot" || report.replayedTicks > 0 ? "restored" : "fresh";
  if (origin === "restored") {
    logger.info(
      `openclawworld: restored world at tick ${world.tick} (snapshot at tick ${report.base.tick} + ${report.replayedTicks} logged ticks) from ${store.file}`,
    );
  }
  // A new base snapshot right away: the next recovery starts here, and the replayed log is compacted.
  store.saveAutoSnapshot(snapshotEntry(world.snapshot()));
  const runtime = new WorldRuntime(world, logger);
  const side = new SideTables(store);
  runtime.journal = {
    commit: (inputs, result) => commitTick(store, inputs, result, side),
    recover: () => recoverWorld(definition, store).world,
  };
  return { definition, runtime, origin, store, side, recovery: report };
}

/** Saves a snapshot of the live world (compacting the log behind it), at once: the event loop waits
 * (at 1,000 actors and 20,000 retained events about 0.4 s). For start-up and shutdown; the periodic one is saveWorldInSlices. */
export function saveWorld(opened: Pick<OpenedWorld, "store" | "runtime">): void {
  if (!opened.store?.isOpen) return;
  opened.store.saveAutoSnapshot(snapshotEntry(opened.runtime.world.snapshot()));
}

/** Stores with a saveWorldInSlices under way. */
const saving = new WeakSet<WorldStore>();

/** saveWorld without stalling the ticks: the state is captured now (World.snapshot(): ~10 ms at 1,000 actors), and
 * written, hashed and stored over the next event-loop turns while the world goes on ticking; the
 * store takes it in one transaction at the end, so a crash before then leaves the previous snapshot
 * and the log as they were. Resolves to whether it was stored: not when another one is still under
 * way, nor when meanwhile the store closed, started a new timeline (an operator restore) or got a
 * newer snapshot (a shutdown's): this one would then describe a world that is gone or older. */
export async function saveWorldInSlices(
  opened: Pick<OpenedWorld, "store" | "runtime">,
  options: { sliceMs?: number } = {},
): Promise<boolean> {
  const store = opened.store;
  if (!store?.isOpen || saving.has(store)) return false;
  saving.add(store);
  try {
    const timeline = store.timeline;
    const entry = await snapshotEntryInSlices(opened.runtime.world.snapshot(), options.sliceMs);
    if (!store.isOpen || store.timeline !== timeline) return false;
    const newest = store.newestAutoTick();
    if (newest !== undefined && newest >= entry.tick) return false;
    store.saveAutoSnapshot(entry);
    return true;
  } finally {
    saving.delete(store);
  }
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
}

/** Opens the store of this world. A file that is not a usable database, or the store of another
 * world or scene (the world files changed), is set aside with a reason in the log, never deleted. */
function openStoreFor(
  file: string,
  definition: WorldDefinition,
  logger: RuntimeLogger,
  synchronous: "full" | "normal",
): WorldStore {
  let store: WorldStore;
  try {
    store = WorldStore.open(file, { synchronous });
  } catch (error) {
    const aside = setAside(file, "damaged");
    logger.error(
      `openclawworld: ${file} is not usable (${describe(error)}); kept it at ${aside}, starting fresh`,
    );
    store = WorldStore.open(file, { synchronous });
  }
  const identity = store.identity();
  const mine = { world: definition.name, sceneHash: definition.sceneHash };
  if (identity && (identity.world !== mine.world || identity.sceneHash !== mine.sceneHash)) {
    store.close();
    const aside = setAside(file, "other-world");
    logger.warn(
      `openclawworld: the saved world (${identity.world}, scene ${identity.sceneHash}) is not this world (${mine.world}, scene ${mine.sceneHash}); kept it at ${aside}, starting fresh`,
    );
    store = WorldStore.open(file, { synchronous });
  }
  if (store.identity() === undefined) store.setIdentity(mine);
  return store;
}

function setAside(file: string, label: string): string {
  const aside = `${file}.${label}-${Date.now()}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}
