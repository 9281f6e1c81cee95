// Everything that serves one world in this gateway: the opened world (runtime layer: tick host and
// durable store) and the adapters in front of it. The service creates the host in start() and
// disposes it in stop().
import path from "node:path";
import type { AicService } from "../aic/service.ts";
import type { ResolvedConfig } from "../config/config.ts";
import type { AicHttpSurface, MetricsSurface, WebSurface } from "../http/routes.ts";
import type { RemoteResidents } from "../residents/remote/remote-residents.ts";
import type { ResidentScheduler } from "../residents/scheduler.ts";
import { closeWorld, type OpenedWorld, openWorld, saveWorldInSlices } from "../runtime/open-world.ts";
import type { ReloadOutcome } from "../runtime/world-reload.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import type { WorldDefinition } from "../world/types.ts";
import { type ClusterHostPart, closeClusterPart, openClusterWorld } from "./cluster-host.ts";

export interface WorldHost extends OpenedWorld {
  config: ResolvedConfig;
  /** Adapters register their own teardown here (WebSocket clients, SSE streams, parked polls). */
  closers: (() => void | Promise<void>)[];
  aic?: AicService;
  /** Bearer token -> agentId: the AIC agents' tokens (`tokenDirectory`), asked by the AIC routes and
   * the follow page's. */
  tokens?: (token: string) => string | undefined;
  aicHttp?: AicHttpSurface;
  web?: WebSurface;
  /** Prometheus metrics of this world (served at /world/metrics to loopback callers). */
  metrics?: MetricsSurface;
  /** The residents' scheduler, when the config names residents (started once the world ticks). */
  residents?: ResidentScheduler;
  /** AIC agents outside this gateway the world wakes (wake targets, src/residents/remote). */
  remoteResidents?: RemoteResidents;
  /** The cluster room this gateway serves (config `cluster`); its journal is the shared log. */
  cluster?: ClusterHostPart;
  /** Reloads of the world's definition while it runs (operator route, CLI, the directory watch). */
  reloads?: {
    reload(cause: "operator" | "watch"): Promise<ReloadOutcome>;
    status(): unknown;
  };
  /** Where the world keeps files of its own beside its store (follow links); none: memory only. */
  filesDir?: string;
}

export interface HostOptions {
  config: ResolvedConfig;
  logger: RuntimeLogger;
  /** The service's state directory; persistence is off without it. */
  stateDir?: string;
  /** Open with this definition, not the world directory's files (openWorld's `definition`). */
  definition?: WorldDefinition;
}

/** Where the world's store lives under the service's state directory. */
export function storeFile(stateDir: string): string {
  return path.join(stateDir, "openclawworld", "world.db");
}

export async function createHost({ config, logger, stateDir, definition }: HostOptions): Promise<WorldHost> {
  const files = stateDir ? { filesDir: path.join(stateDir, "openclawworld") } : {};
  if (config.cluster) {
    const opened = await openClusterWorld(config, config.cluster, logger);
    const part = opened.cluster;
    // First in, so it runs last: the lease is released once every adapter is closed.
    return { ...opened, config, closers: [() => closeClusterPart(part, logger)], ...files };
  }
  const opened = await openWorld({
    worldDir: config.worldDir,
    ...(config.tickRate ? { tickRate: config.tickRate } : {}),
    defaultRoomId: config.defaultRoomId,
    storeFile: stateDir && config.snapshot.enabled ? storeFile(stateDir) : undefined,
    storeSync: config.snapshot.fsync ? "full" : "normal",
    history: config.replay.enabled && {
      maxAgeMs: config.replay.keepHours * 3_600_000,
      maxBytes: config.replay.maxMegabytes * 1024 * 1024,
      maxTurnBytes: config.replay.agentTurnsMegabytes * 1024 * 1024,
    },
    ...(definition ? { definition } : {}),
    logger,
  });
  const unreachable = portalsToOtherWorlds(opened.definition);
  if (unreachable.length > 0) {
    // A traveller would leave this world for one nobody can hand it to (docs/cluster.md).
    const problem = `portals to other worlds need the cluster config, and this gateway has none: whoever steps on ${unreachable.join(", ")} leaves the world`;
    logger.warn(`openclawworld: ${problem}`);
    opened.problems.push(problem);
  }
  return { ...opened, config, closers: [], ...files };
}

/** The portals of a world that lead to another world (prop `targetWorld`). */
function portalsToOtherWorlds(definition: WorldDefinition): string[] {
  return Object.values(definition.rooms).flatMap((room) =>
    room.objects
      .filter((o) => o.objectType === "portal" && typeof o.props.targetWorld === "string")
      .map((o) => `${o.id} (to ${String(o.props.targetWorld)})`),
  );
}

/** Saves a snapshot (every tick is already durable in the log; this compacts it), spread over the
 * next event-loop turns so the ticks go on meanwhile. */
export function saveHost(host: WorldHost): Promise<boolean> {
  return saveWorldInSlices(host);
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
  closeWorld(host, logger);
}
