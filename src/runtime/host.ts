// Builds everything that serves one world: the simulation, its tick host and the adapters in front
// of it. The service creates the host in start() and disposes it in stop().

import { existsSync, renameSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { AicService } from "../aic/service.ts";
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import type { ResolvedConfig } from "./config.ts";
import { loadWorldDir } from "./load-world-dir.ts";
import { commitTick, type RecoveryReport, recoverWorld, snapshotEntry } from "./persistence.ts";
import { WorldStore } from "./store.ts";
import { describe, type RuntimeLogger, WorldRuntime } from "./world-runtime.ts";

/** The AIC HTTP adapter as the routes see it. */
export interface AicHttpSurface {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** The web client + WebSocket adapter as the routes see it. */
export interface WebSurface {
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface WorldHost {
  config: ResolvedConfig;
  definition: WorldDefinition;
  runtime: WorldRuntime;
  /** The durable store, when persistence is on (every tick is logged in it before it is answered). */
  store: WorldStore | undefined;
  /** What the start-up recovery found (operator status; never shown to agents). */
  recovery: RecoveryReport | undefined;
  /** How the world came to be: fresh from the directory or restored from the store. Operator-only. */
  origin: "fresh" | "restored";
  /** Adapters register their own teardown here (WebSocket clients, SSE streams, parked polls). */
  closers: (() => void | Promise<void>)[];
  aic?: AicService;
  aicHttp?: AicHttpSurface;
  web?: WebSurface;
}

/** The small durable key-value space an adapter gets for what must survive a restart (e.g. humans'
 * resume tokens). Writes are durable when they return. */
export interface SessionStore {
  list(): { key: string; value: unknown }[];
  put(key: string, value: unknown): void;
  delete(key: string): void;
}

export interface HostOptions {
  config: ResolvedConfig;
  logger: RuntimeLogger;
  /** The service's state directory; persistence is off without it. */
  stateDir?: string;
}

export function storeFile(stateDir: string): string {
  return path.join(stateDir, "openclawworld", "world.db");
}

export async function createHost({ config, logger, stateDir }: HostOptions): Promise<WorldHost> {
  const loaded = await loadWorldDir(config.worldDir);
  const definition: WorldDefinition = config.tickRate ? { ...loaded, tickRate: config.tickRate } : loaded;
  if (!definition.rooms[config.defaultRoomId]) {
    throw new Error(
      `openclawworld: defaultRoomId "${config.defaultRoomId}" is not a room of world "${definition.name}" (rooms: ${Object.keys(definition.rooms).join(", ")})`,
    );
  }
  if (!stateDir || !config.snapshot.enabled) {
    const runtime = new WorldRuntime(World.create(definition), logger);
    return {
      config,
      definition,
      runtime,
      store: undefined,
      recovery: undefined,
      origin: "fresh",
      closers: [],
    };
  }
  const store = openStoreFor(storeFile(stateDir), definition, logger);
  const { world, report } = recoverWorld(definition, store);
  for (const problem of report.problems) logger.error(`openclawworld: recovery: ${problem}`);
  const origin: WorldHost["origin"] =
    report.base.kind === "snapshot" || report.replayedTicks > 0 ? "restored" : "fresh";
  if (origin === "restored") {
    logger.info(
      `openclawworld: restored world at tick ${world.tick} (snapshot at tick ${report.base.tick} + ${report.replayedTicks} logged ticks) from ${store.file}`,
    );
  }
  // A new base snapshot right away: the next recovery starts here, and the replayed log is compacted.
  store.saveAutoSnapshot(snapshotEntry(world.snapshot()));
  const runtime = new WorldRuntime(world, logger);
  runtime.journal = {
    commit: (inputs, result) => commitTick(store, inputs, result),
    recover: () => recoverWorld(definition, store).world,
  };
  return { config, definition, runtime, store, recovery: report, origin, closers: [] };
}

/** Opens the store of this world. A file that is not a usable database, or the store of another
 * world or scene (the world files changed), is set aside with a reason in the log, never deleted. */
function openStoreFor(file: string, definition: WorldDefinition, logger: RuntimeLogger): WorldStore {
  let store: WorldStore;
  try {
    store = WorldStore.open(file);
  } catch (error) {
    const aside = setAside(file, "damaged");
    logger.error(
      `openclawworld: ${file} is not usable (${describe(error)}); kept it at ${aside}, starting fresh`,
    );
    store = WorldStore.open(file);
  }
  const identity = store.identity();
  const mine = { world: definition.name, sceneHash: definition.sceneHash };
  if (identity && (identity.world !== mine.world || identity.sceneHash !== mine.sceneHash)) {
    store.close();
    const aside = setAside(file, "other-world");
    logger.warn(
      `openclawworld: the saved world (${identity.world}, scene ${identity.sceneHash}) is not this world (${mine.world}, scene ${mine.sceneHash}); kept it at ${aside}, starting fresh`,
    );
    store = WorldStore.open(file);
  }
  if (!identity || store.identity() === undefined) store.setIdentity(mine);
  return store;
}

function setAside(file: string, label: string): string {
  const aside = `${file}.${label}-${Date.now()}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

/** A durable session space for one adapter, or undefined when persistence is off. */
export function sessionStore(host: WorldHost, scope: string): SessionStore | undefined {
  const store = host.store;
  if (!store) return undefined;
  return {
    list: () =>
      store.sessionList(scope).flatMap(({ key, value }) => {
        try {
          return [{ key, value: JSON.parse(value) as unknown }];
        } catch {
          return [];
        }
      }),
    put: (key, value) => store.sessionPut(scope, key, JSON.stringify(value)),
    delete: (key) => store.sessionDelete(scope, key),
  };
}

/** Saves a snapshot of the live world and compacts the log behind it. */
export function saveHost(host: WorldHost): void {
  if (!host.store?.isOpen) return;
  host.store.saveAutoSnapshot(snapshotEntry(host.runtime.world.snapshot()));
}

/** Stops ticking, closes every adapter, then saves and closes the store: the saved state is the final one. */
export async function disposeHost(host: WorldHost, logger: RuntimeLogger): Promise<void> {
  host.runtime.stop();
  for (const close of host.closers.splice(0).reverse()) {
    try {
      await close();
    } catch (error) {
      logger.warn(`openclawworld: closing an adapter failed: ${describe(error)}`);
    }
  }
  try {
    saveHost(host);
  } catch (error) {
    logger.error(`openclawworld: saving the world failed: ${describe(error)}`);
  }
  try {
    host.store?.close();
  } catch (error) {
    logger.warn(`openclawworld: closing the store failed: ${describe(error)}`);
  }
}
