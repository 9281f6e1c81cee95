// Builds everything that serves one world: the simulation, its tick host and the adapters in front
// of it. The service creates the host in start() and disposes it in stop().
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { AicService } from "../aic/service.ts";
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import type { ResolvedConfig } from "./config.ts";
import { loadWorldDir } from "./load-world-dir.ts";
import { readSnapshotFile, setAsideSnapshotFile, writeSnapshotFile } from "./persistence.ts";
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
  /** Where the world is saved, when persistence is on. */
  snapshotFile: string | undefined;
  /** How the world came to be: fresh from the directory or restored from a saved snapshot. */
  origin: "fresh" | "restored";
  /** Adapters register their own teardown here (WebSocket clients, SSE streams, parked polls). */
  closers: (() => void | Promise<void>)[];
  aic?: AicService;
  aicHttp?: AicHttpSurface;
  web?: WebSurface;
}

export interface HostOptions {
  config: ResolvedConfig;
  logger: RuntimeLogger;
  /** The service's state directory; persistence is off without it. */
  stateDir?: string;
}

export async function createHost({ config, logger, stateDir }: HostOptions): Promise<WorldHost> {
  const loaded = await loadWorldDir(config.worldDir);
  const definition: WorldDefinition = config.tickRate ? { ...loaded, tickRate: config.tickRate } : loaded;
  if (!definition.rooms[config.defaultRoomId]) {
    throw new Error(
      `openclawworld: defaultRoomId "${config.defaultRoomId}" is not a room of world "${definition.name}" (rooms: ${Object.keys(definition.rooms).join(", ")})`,
    );
  }
  const snapshotFile =
    stateDir && config.snapshot.enabled
      ? path.join(stateDir, "openclawworld", "world-snapshot.json")
      : undefined;
  let world = World.create(definition);
  let origin: WorldHost["origin"] = "fresh";
  if (snapshotFile) {
    const saved = await readSnapshotFile(snapshotFile).catch((error: unknown) => {
      logger.warn(`openclawworld: could not read ${snapshotFile}: ${describe(error)}`);
      return undefined;
    });
    if (saved) {
      try {
        world = World.restore(definition, saved);
        origin = "restored";
        logger.info(`openclawworld: restored world at tick ${world.tick} from ${snapshotFile}`);
      } catch (error) {
        const aside = await setAsideSnapshotFile(snapshotFile, `rejected-${Date.now()}`);
        logger.warn(
          `openclawworld: saved world not restored (${describe(error)}); kept it at ${aside}, starting fresh`,
        );
      }
    }
  }
  const runtime = new WorldRuntime(world, logger);
  return { config, definition, runtime, snapshotFile, origin, closers: [] };
}

export async function saveHost(host: WorldHost): Promise<void> {
  if (!host.snapshotFile) return;
  await writeSnapshotFile(host.snapshotFile, host.runtime.world.snapshot());
}

/** Stops ticking, closes every adapter, then saves: the saved state is the final one. */
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
    await saveHost(host);
  } catch (error) {
    logger.error(`openclawworld: saving the world failed: ${describe(error)}`);
  }
}
