// The plugin service: owns the world's lifetime in this gateway process. start() loads (or restores)
// the world and starts ticking; stop() closes every adapter and saves. Every timer here catches its
// own errors: an uncaught throw from a timer would take the whole gateway down.
import type { ResolvedConfig } from "../config/config.ts";
import { StoreLockedError } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import type { WorldDefinition } from "../world/types.ts";
import { RoomHeldElsewhereError } from "./cluster-host.ts";
import type { ReloadRequestOutcome } from "./gateway-reload-request.ts";
import { createHost, disposeHost, saveHost, type WorldHost } from "./host.ts";
import { processSlot, type Revived } from "./singleton.ts";
import { startRemoteResidents } from "./wake-targets.ts";

export interface ServiceContextLike {
  stateDir: string;
  logger: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  serviceHealth?: { reportFailure(error: unknown): void; clearFailure(): void };
}

/** Builds the adapters (AIC, web) around a freshly created host; supplied by the plugin entry. */
export type AttachAdapters = (host: WorldHost, logger: RuntimeLogger) => void;

/** How a start waits for a store locked by another process: the first retry after `firstMs`, each
 * next one twice as late, at most `maxMs` apart; it goes on until the lock is released or the
 * service is stopped. */
export interface StartRetry {
  firstMs: number;
  maxMs: number;
}
const DEFAULT_RETRY: StartRetry = { firstMs: 1_000, maxMs: 30_000 };

/** How long a start waits for the world to open before it returns and lets the opening end on its
 * own. A gateway gives a reloaded plugin's service start 5 s (openclaw 2026.9.6) and past it fails
 * the reload ("plugin service startup timed out": the new generation stopped, the old one put back,
 * the new config not applied); on a busy machine opening the store and joining the residents took 5 s
 * and more. A world that fails at once (a map that does not load) still fails its start. */
export const START_WAIT_MS = 2_500;

/** When the world reopens itself after a stop that no start followed. The gateway stops the service
 * for a reload and starts the next generation's; a reload that fails after the stop (the old
 * generation retired with work pending, "automatic recovery could not safely start") starts none,
 * and nothing else would bring the world back until a restart (docs/operating.md). */
export interface Revival {
  /** How long a stop waits for the next start: longer than a reload takes to start the new
   * generation on a loaded machine (22 s seen at load 12), short enough that the world is back within
   * 30 s. A start that comes later still takes the world over. */
  afterMs: number;
  /** Why the world must stay stopped (the gateway shutting down, the plugin disabled), if it must. */
  staysStopped(): string | undefined;
  /** Asks the gateway to load the plugin again: a reopened world is out of reach of the doors of a
   * generation the gateway retired (gateway-reload-request.ts). */
  gatewayReload?: { pluginId: string; ask(): Promise<ReloadRequestOutcome>; retryMs?: number };
}

/** How often, and how far apart, a revived world asks the gateway to load the plugin again. */
const GATEWAY_RELOAD_TRIES = 3;
const GATEWAY_RELOAD_RETRY_MS = 20_000;

export function createWorldService(
  config: ResolvedConfig,
  attach: AttachAdapters,
  retry: StartRetry = DEFAULT_RETRY,
  revival?: Revival,
  startWaitMs = START_WAIT_MS,
) {
  let saveTimer: ReturnType<typeof setInterval> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** What the world ran when this generation stopped it: a revival opens with it, since the files it
   * came from may be gone (the bundled world lies in the generation's copy of the plugin, which the
   * gateway deletes when it retires the generation). */
  let lastDefinition: WorldDefinition | undefined;

  async function open(
    ctx: ServiceContextLike,
    logger: RuntimeLogger,
    attempts: number,
    definition?: WorldDefinition,
  ): Promise<void> {
    const slot = processSlot();
    const mine = slot.generation;
    const current = () => mine === slot.generation;
    let host: WorldHost;
    try {
      host = await createHost({
        config,
        logger,
        stateDir: ctx.stateDir,
        ...(definition ? { definition } : {}),
      });
    } catch (error) {
      const held = error instanceof RoomHeldElsewhereError;
      if (!(error instanceof StoreLockedError || held) || !current()) throw error;
      // Nothing is wrong with a locked store: wait for it (never set it aside, never start fresh).
      // A cluster room held elsewhere is waited for at its own pace (a quarter of its lease).
      const nextRetryInMs = held
        ? error.retryInMs
        : Math.min(retry.maxMs, retry.firstMs * 2 ** Math.min(attempts, 20));
      slot.waiting = {
        reason: error.message,
        attempts: attempts + 1,
        nextRetryInMs,
        ...(held && error.standby ? { cluster: error.standby } : {}),
      };
      if (!held) logger.error(`openclawworld: ${error.message}; retrying in ${nextRetryInMs} ms`);
      else if (attempts === 0) logger.info(`openclawworld: ${error.message}`);
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        open(ctx, logger, attempts + 1, definition).catch((failure: unknown) => {
          slot.waiting = undefined;
          logger.error(`openclawworld: the world service could not start: ${describe(failure)}`);
        });
      }, nextRetryInMs);
      retryTimer.unref();
      return;
    }
    if (!current()) {
      await disposeHost(host, logger);
      return;
    }
    if (attempts > 0)
      host.problems.unshift(
        `the store was locked by another process at start; opened at try ${attempts + 1} (${slot.waiting?.reason ?? ""})`,
      );
    slot.waiting = undefined;
    // A cluster room lost (deposed, lease lapsed) is served no more: back to standing by for it.
    host.cluster?.room.onLost(() => {
      if (slot.host !== host || !current()) return;
      slot.host = undefined;
      disposeHost(host, logger)
        .then(() => (current() ? open(ctx, logger, 0) : undefined))
        .catch((error: unknown) =>
          logger.error(`openclawworld: standing by again failed: ${describe(error)}`),
        );
    });
    attach(host, logger);
    slot.host = host;
    host.runtime.start();
    // Residents join once the world ticks (a join is an action, applied on a tick).
    await host.residents?.start().catch((error: unknown) => {
      logger.error(`openclawworld: residents failed to start: ${describe(error)}`);
    });
    await startRemoteResidents(host).catch((error: unknown) => {
      logger.error(`openclawworld: remote residents failed to start: ${describe(error)}`);
    });
    ctx.serviceHealth?.clearFailure();
    if (host.store) {
      // Every tick is already durable in the log; the periodic snapshot only compacts it, which
      // keeps recovery short.
      const timer = setInterval(() => {
        // A host another generation took over (or disposed) is saved by its new owner, if at all.
        if (slot.host !== host) {
          clearInterval(timer);
          return;
        }
        saveHost(host).catch((error: unknown) => {
          logger.error(`openclawworld: periodic snapshot failed: ${describe(error)}`);
        });
      }, config.snapshot.intervalSec * 1000);
      timer.unref();
      saveTimer = timer;
    }
  }

  /** After a stop: unless a start (of any generation) comes within `revival.afterMs`, the world is
   * opened again from its store with this generation's config, the last one it ran. */
  function armRevival(ctx: ServiceContextLike): void {
    if (!revival) return;
    const slot = processSlot();
    slot.revival?.cancel();
    const timer = setTimeout(() => {
      slot.revival = undefined;
      revive(ctx);
    }, revival.afterMs);
    timer.unref();
    slot.revival = { cancel: () => clearTimeout(timer) };
  }

  function revive(ctx: ServiceContextLike): void {
    const slot = processSlot();
    if (!revival || slot.host || slot.waiting) return;
    // The stopped generation's lease on service health is gone: its reporter is not called again.
    const quiet: ServiceContextLike = { stateDir: ctx.stateDir, logger: ctx.logger };
    const logger = healthReportingLogger(quiet);
    const signal = slot.shutdown?.signal;
    const stays = signal ? `the gateway is shutting down (${signal})` : revival.staysStopped();
    if (stays) {
      logger.info(`openclawworld: the world stays stopped: ${stays}`);
      return;
    }
    const reason = `the gateway stopped the world service and started none again within ${revival.afterMs / 1000} s (a reload that failed or retired the plugin with work pending); the world was reopened from its store with the config it last ran (${config.fingerprint})`;
    logger.error(`openclawworld: ${reason}`);
    slot.generation += 1;
    slot.revived = { reason, at: new Date().toISOString() };
    const revived = slot.revived;
    open(quiet, logger, 0, lastDefinition).catch((error: unknown) => {
      if (slot.revived === revived) slot.revived = undefined;
      logger.error(`openclawworld: reopening the world failed: ${describe(error)}`);
    });
    const reload = revival.gatewayReload;
    if (reload) askGateway(reload, revived, logger, 1);
  }

  /** Asks the gateway to load the plugin again, `GATEWAY_RELOAD_TRIES` times at most while no start
   * has come meanwhile (a gateway still busy with the reload it gave up on may refuse the first). */
  function askGateway(
    reload: NonNullable<Revival["gatewayReload"]>,
    revived: Revived,
    logger: RuntimeLogger,
    attempt: number,
  ): void {
    revived.gatewayReload = { state: "asked", at: new Date().toISOString() };
    logger.info(
      `openclawworld: asking the gateway to load the plugin again (openclaw plugins reload, try ${attempt} of ${GATEWAY_RELOAD_TRIES})`,
    );
    reload.ask().then((outcome) => {
      revived.gatewayReload = {
        state: outcome.ok ? "done" : "failed",
        at: new Date().toISOString(),
        detail: outcome.detail,
      };
      if (outcome.ok) {
        logger.info(`openclawworld: the gateway loaded the plugin again in ${outcome.tookMs} ms`);
        return;
      }
      const slot = processSlot();
      const retryMs = reload.retryMs ?? GATEWAY_RELOAD_RETRY_MS;
      const again = attempt < GATEWAY_RELOAD_TRIES && slot.revived === revived && !slot.shutdown?.signal;
      logger.error(
        `openclawworld: the gateway did not load the plugin again (${outcome.detail}); ${again ? `asking again in ${retryMs / 1000} s` : `its doors stay refused until \`openclaw plugins reload ${reload.pluginId}\` or a restart`}`,
      );
      if (!again) return;
      const timer = setTimeout(() => {
        if (processSlot().revived === revived) askGateway(reload, revived, logger, attempt + 1);
      }, retryMs);
      timer.unref();
    });
  }

  return {
    id: "openclawworld-world",
    reload: { configPrefixes: ["plugins.entries.openclawworld"] },
    async start(ctx: ServiceContextLike): Promise<void> {
      const logger = healthReportingLogger(ctx);
      const slot = processSlot();
      slot.revival?.cancel();
      slot.revival = undefined;
      slot.generation += 1;
      if (revival) watchShutdown();
      if (slot.host) {
        // A previous instance (hot reload) did not stop cleanly, or the world was reopened after a
        // stop no start followed: release it before taking over.
        const stale = slot.host;
        slot.host = undefined;
        await disposeHost(stale, logger);
      }
      if (slot.revived) logger.info("openclawworld: the gateway started the world service again");
      slot.revived = undefined;
      const opening = open(ctx, logger, 0);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), startWaitMs);
      });
      try {
        if (await Promise.race([opening.then(() => true), waited])) return;
      } finally {
        clearTimeout(timer);
      }
      logger.info(`openclawworld: the world is still opening after ${startWaitMs} ms; it opens on its own`);
      opening.catch((error: unknown) => {
        logger.error(`openclawworld: the world service could not start: ${describe(error)}`);
      });
    },
    async stop(ctx: ServiceContextLike): Promise<void> {
      if (saveTimer) clearInterval(saveTimer);
      saveTimer = undefined;
      const slot = processSlot();
      slot.generation += 1;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      slot.waiting = undefined;
      slot.revived = undefined;
      const host = slot.host;
      slot.host = undefined;
      if (host) {
        lastDefinition = host.definition;
        const began = performance.now();
        await disposeHost(host, healthReportingLogger(ctx));
        const tookMs = Math.round(performance.now() - began);
        // A reload gives a service's stop 5 s; past it the reload fails (docs/operating.md).
        if (tookMs > 4_000)
          ctx.logger.warn(`openclawworld: world stopped in ${tookMs} ms, near the gateway's 5 s for a stop`);
        else ctx.logger.info(`openclawworld: world stopped in ${tookMs} ms`);
      }
      armRevival(ctx);
    },
  };
}

/** Notes on the process slot when the gateway gets a signal to stop: its drain (minutes) can outlast
 * a revival's wait, and a world reopened then would hold the store until the process dies. Listens
 * only where the process already handles the signal (the gateway does): where nothing does, the
 * signal ends the process, and a listener would keep it alive. Once per process. */
function watchShutdown(): void {
  const slot = processSlot();
  if (slot.shutdown) return;
  const shutdown: { signal?: string } = {};
  slot.shutdown = shutdown;
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    if (process.listenerCount(signal) > 0)
      process.once(signal, () => {
        shutdown.signal = signal;
      });
}

function healthReportingLogger(ctx: ServiceContextLike): RuntimeLogger {
  return {
    info: (msg) => ctx.logger.info(msg),
    warn: (msg) => ctx.logger.warn(msg),
    error: (msg) => {
      ctx.logger.error(msg);
      ctx.serviceHealth?.reportFailure(new Error(msg));
    },
  };
}
