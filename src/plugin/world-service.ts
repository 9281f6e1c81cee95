// The plugin service: owns the world's lifetime in this gateway process. start() loads (or restores)
// the world and starts ticking; stop() closes every adapter and saves. Every timer here catches its
// own errors: an uncaught throw from a timer would take the whole gateway down.
import type { ResolvedConfig } from "../config/config.ts";
import { StoreLockedError } from "../runtime/open-world.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import { RoomHeldElsewhereError } from "./cluster-host.ts";
import { createHost, disposeHost, saveHost, type WorldHost } from "./host.ts";
import { processSlot } from "./singleton.ts";
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

export function createWorldService(
  config: ResolvedConfig,
  attach: AttachAdapters,
  retry: StartRetry = DEFAULT_RETRY,
) {
  let saveTimer: ReturnType<typeof setInterval> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Counts starts and stops: an open that finishes after a stop (or a newer start) is let go. */
  let generation = 0;

  async function open(ctx: ServiceContextLike, logger: RuntimeLogger, attempts: number): Promise<void> {
    const slot = processSlot();
    const mine = generation;
    let host: WorldHost;
    try {
      host = await createHost({ config, logger, stateDir: ctx.stateDir });
    } catch (error) {
      const held = error instanceof RoomHeldElsewhereError;
      if (!(error instanceof StoreLockedError || held) || mine !== generation) throw error;
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
        open(ctx, logger, attempts + 1).catch((failure: unknown) => {
          slot.waiting = undefined;
          logger.error(`openclawworld: the world service could not start: ${describe(failure)}`);
        });
      }, nextRetryInMs);
      retryTimer.unref();
      return;
    }
    if (mine !== generation) {
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
      if (slot.host !== host || mine !== generation) return;
      slot.host = undefined;
      disposeHost(host, logger)
        .then(() => (mine === generation ? open(ctx, logger, 0) : undefined))
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
      saveTimer = setInterval(() => {
        saveHost(host).catch((error: unknown) => {
          logger.error(`openclawworld: periodic snapshot failed: ${describe(error)}`);
        });
      }, config.snapshot.intervalSec * 1000);
      saveTimer.unref();
    }
  }

  return {
    id: "openclawworld-world",
    reload: { configPrefixes: ["plugins.entries.openclawworld"] },
    async start(ctx: ServiceContextLike): Promise<void> {
      const logger = healthReportingLogger(ctx);
      const slot = processSlot();
      if (slot.host) {
        // A previous instance (hot reload) did not stop cleanly: release it before taking over.
        const stale = slot.host;
        slot.host = undefined;
        await disposeHost(stale, logger);
      }
      generation += 1;
      await open(ctx, logger, 0);
    },
    async stop(ctx: ServiceContextLike): Promise<void> {
      if (saveTimer) clearInterval(saveTimer);
      saveTimer = undefined;
      generation += 1;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      const slot = processSlot();
      slot.waiting = undefined;
      const host = slot.host;
      if (!host) return;
      slot.host = undefined;
      await disposeHost(host, healthReportingLogger(ctx));
      ctx.logger.info("openclawworld: world stopped");
    },
  };
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
