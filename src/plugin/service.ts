// The plugin service: owns the world's lifetime in this gateway process. start() loads (or restores)
// the world and starts ticking; stop() closes every adapter and saves. Every timer here catches its
// own errors: an uncaught throw from a timer would take the whole gateway down.
import type { ResolvedConfig } from "../config/config.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import { createHost, disposeHost, saveHost, type WorldHost } from "./host.ts";
import { processSlot } from "./singleton.ts";

export interface ServiceContextLike {
  stateDir: string;
  logger: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  serviceHealth?: { reportFailure(error: unknown): void; clearFailure(): void };
}

/** Builds the adapters (AIC, web) around a freshly created host; supplied by the plugin entry. */
export type AttachAdapters = (host: WorldHost, logger: RuntimeLogger) => void;

export function createWorldService(config: ResolvedConfig, attach: AttachAdapters) {
  let saveTimer: ReturnType<typeof setInterval> | undefined;
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
      const host = await createHost({ config, logger, stateDir: ctx.stateDir });
      attach(host, logger);
      slot.host = host;
      host.runtime.start();
      // Residents join once the world ticks (a join is an action, applied on a tick).
      await host.residents?.start().catch((error: unknown) => {
        logger.error(`openclawworld: residents failed to start: ${describe(error)}`);
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
    },
    async stop(ctx: ServiceContextLike): Promise<void> {
      if (saveTimer) clearInterval(saveTimer);
      saveTimer = undefined;
      const slot = processSlot();
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
