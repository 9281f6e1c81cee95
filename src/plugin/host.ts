// Everything that serves one world in this gateway: the opened world (runtime layer) and the
// adapters in front of it. The service creates the host in start() and disposes it in stop().
import path from "node:path";
import type { AicService } from "../aic/service.ts";
import type { ResolvedConfig } from "../config/config.ts";
import type { AicHttpSurface, WebSurface } from "../http/routes.ts";
import { type OpenedWorld, openWorld, saveWorld } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";

export interface WorldHost extends OpenedWorld {
  config: ResolvedConfig;
  /** Where the world is saved, when persistence is on. */
  snapshotFile: string | undefined;
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
  const snapshotFile =
    stateDir && config.snapshot.enabled
      ? path.join(stateDir, "openclawworld", "world-snapshot.json")
      : undefined;
  const opened = await openWorld({
    worldDir: config.worldDir,
    ...(config.tickRate ? { tickRate: config.tickRate } : {}),
    defaultRoomId: config.defaultRoomId,
    snapshotFile,
    logger,
  });
  return { ...opened, config, snapshotFile, closers: [] };
}

export async function saveHost(host: WorldHost): Promise<void> {
  await saveWorld(host.runtime, host.snapshotFile);
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
