// Puts the adapters around a freshly created host: the AIC service (one rate limiter, one path into
// the world for agents and humans), its HTTP framing, and the web client + WebSocket.

import { createHash, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { ContextTokens } from "../aic/context-token.ts";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { createAicHttpHandler } from "../http/aic/aic-app.ts";
import { keptLooks } from "../http/humans/session.ts";
import { createWebSurface } from "../http/humans/web-surface.ts";
import type { RuntimeLogger } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";
import { agentTurnHooks, only } from "./agent-turns.ts";
import { travelledVia } from "./cluster-host.ts";
import { contextTokenKey, humanSessions, persistRateLimits } from "./durable-state.ts";
import { createFanoutProcess } from "./fanout/fanout-process.ts";
import type { FanoutWebOptions } from "./fanout/ipc-protocol.ts";
import type { WorldHost } from "./host.ts";
import { createWorldMetrics } from "./metrics.ts";
import { QUIET_AGENTS_FILE, QuietAgents } from "./quiet-agents.ts";
import { followTravellers } from "./travellers.ts";
import { WorldReloads } from "./world-reloads.ts";

/** Bearer token -> agentId. A token is found by its SHA-256 digest, then compared in constant
 * time: one hash per request whatever the number of agents (a scan of 300 agents' tokens with
 * timingSafeEqual was ~3 % of the gateway's time at 1,000 participants), and a lookup's timing can
 * tell only a digest, not how much of a token was right. */
export function tokenDirectory(agents: WorldHost["config"]["agents"]): (token: string) => string | undefined {
  const digest = (token: string) => createHash("sha256").update(token, "utf8").digest("base64");
  const byDigest = new Map<string, { token: Buffer; agentId: string }>();
  for (const [agentId, a] of Object.entries(agents))
    if (a.token) byDigest.set(digest(a.token), { token: Buffer.from(a.token), agentId });
  return (token) => {
    const entry = byDigest.get(digest(token));
    if (!entry) return undefined;
    const given = Buffer.from(token);
    return entry.token.length === given.length && timingSafeEqual(entry.token, given)
      ? entry.agentId
      : undefined;
  };
}

/** Residents' configured avatar looks, by entity id (the web client draws them as people). */
export function residentLooks(config: WorldHost["config"]): Record<string, number> {
  return Object.fromEntries(
    Object.entries(config.residents).flatMap(([agentId, r]) =>
      r.look === undefined ? [] : [[agentEntityId(agentId), r.look]],
    ),
  );
}

/** Everyone's avatar look as the live page draws it: residents' configured ones, people's kept with
 * their sessions (live or departed). Read anew on each call: people come and pick looks. */
export function drawnLooks(host: WorldHost): () => ReadonlyMap<string, number> {
  const residents = Object.entries(residentLooks(host.config));
  return () => {
    const durable = humanSessions(host);
    const looks = durable ? keptLooks(durable) : new Map<string, number>();
    for (const [entityId, look] of residents) looks.set(entityId, look);
    return looks;
  };
}

/** The web surface's options as plain data: the same whether it runs inline or in the fan-out
 * process (which gets them over IPC). */
function webOptions(host: WorldHost): Omit<FanoutWebOptions, "persistSessions"> {
  const { config } = host;
  return {
    worldDir: config.worldDir,
    ...(config.tickRate ? { tickRate: config.tickRate } : {}),
    resumeGraceMs: config.web.resumeGraceSec * 1000,
    ...(config.web.joinCode ? { joinCode: config.web.joinCode } : {}),
    looks: residentLooks(config),
    maxVisible: config.web.maxVisible,
    ...(config.web.patchRate
      ? { patchEveryTicks: Math.max(1, Math.round(host.definition.tickRate / config.web.patchRate)) }
      : {}),
    admission: {
      maxConnections: config.web.maxConnections,
      maxConnectionsPerAddress: config.web.maxConnectionsPerAddress,
      maxHumans: config.web.maxHumans,
      maxHumansPerAddress: config.web.maxHumansPerAddress,
      allowedOrigins: config.web.allowedOrigins,
    },
  };
}

export function attachAdapters(host: WorldHost, logger: RuntimeLogger): void {
  const { config } = host;
  const limiter = new RateLimiter({
    disabled: config.rateLimits.disabled,
    classes: config.rateLimits.classes,
  });
  // Buckets and heartbeat tokens outlive a restart: both are kept in the world's store.
  persistRateLimits(host, limiter);
  const tokenKey = contextTokenKey(host);
  let quiet: QuietAgents | undefined;
  // Whoever reaches the service is already authenticated (HTTP token) or in-process (a tool of this
  // gateway), so every agent id gets a name: the configured one or the id itself.
  const aic = new AicService({
    runtime: host.runtime,
    agents: (agentId) => ({
      name: config.agents[agentId]?.name ?? config.residents[agentId]?.name ?? agentId,
    }),
    limiter,
    ...(tokenKey ? { contextTokens: new ContextTokens(tokenKey) } : {}),
    eventFeedLimits: config.events,
    ...only(agentTurnHooks(host), "onCall"),
    beforeCall: (caller, endpoint) => quiet?.heard(caller, endpoint),
  });
  quiet = watchQuietAgents(host, aic, logger);
  const tokens = tokenDirectory(config.agents);
  const aicHttp = createAicHttpHandler({
    service: aic,
    tokens,
    ...(host.cluster ? { travelled: travelledVia(host.runtime, host.cluster) } : {}),
    logger,
    sseSlowReader: {
      maxBufferedBytes: config.events.streamMaxBufferedKiB * 1024,
      slowReaderMs: config.events.streamSlowReaderSec * 1000,
    },
  });
  const options = webOptions(host);
  const inlineSurface = (inProcessOnly: boolean) =>
    createWebSurface({
      ...options,
      service: aic,
      logger,
      // Beside the fan-out process, which owns the humans already in the world, an inline surface
      // (TLS browsers) serves only its own, and keeps no sessions across a restart.
      ...(inProcessOnly ? { adoptHumans: false } : host.store ? { savedSessions: humanSessions(host) } : {}),
    });
  const fanout =
    config.web.fanout === "process"
      ? createFanoutProcess({
          runtime: host.runtime,
          aic,
          options: { ...options, persistSessions: host.store !== undefined },
          sessions: humanSessions(host),
          logger,
          inlineSurface: () => inlineSurface(true),
        })
      : undefined;
  const web = fanout ?? inlineSurface(false);
  const stopFollowing = host.cluster ? followTravellers(host.cluster, web, logger) : undefined;
  const metrics = createWorldMetrics({
    runtime: host.runtime,
    limiter,
    web: () => web.stats(),
    onPatchDelivered: (listener) => web.onPatchDelivered(listener),
    ...(fanout ? { fanout: () => fanout.fanoutStats() } : {}),
  });
  host.aic = aic;
  host.tokens = tokens;
  host.aicHttp = aicHttp;
  host.web = web;
  host.metrics = metrics;
  host.closers.push(
    () => metrics.close(),
    () => aicHttp.close(),
    () => web.close(),
    () => stopFollowing?.(),
    // Closers run last first: parked reads (HTTP long-polls, SSE reads, tools' long-polls) end
    // before anything else closes, so no call outlives the world it waits on.
    () => aic.close(),
  );
  const reloads = new WorldReloads(host, logger);
  host.reloads = reloads;
  if (config.watchWorld) reloads.watch();
  host.closers.push(() => reloads.unwatch());
}

/** Agents that stop calling are shown away, then leave until their next call (quiet-agents.ts). */
function watchQuietAgents(host: WorldHost, aic: AicService, logger: RuntimeLogger): QuietAgents {
  const { config } = host;
  const quiet = new QuietAgents({
    service: aic,
    awayAfterMs: config.quietAgents.awayAfterSec * 1000,
    leaveAfterMs: config.quietAgents.leaveAfterSec * 1000,
    exempt: (agentId) => agentId in config.residents || agentId in config.wakeTargets,
    nameOf: (agentId) => config.agents[agentId]?.name ?? agentId,
    now: Date.now,
    ...(host.filesDir ? { file: path.join(host.filesDir, QUIET_AGENTS_FILE) } : {}),
    logger,
  });
  const every = quiet.sweepEveryMs();
  // Turned off, agents that left before still come back on their next call.
  if (every === 0) return quiet;
  const timer = setInterval(() => {
    if (!aic.running) return;
    quiet.sweep().catch((error: unknown) => logger.warn(`openclawworld: quiet agents: ${String(error)}`));
  }, every);
  timer.unref();
  host.closers.push(() => clearInterval(timer));
  return quiet;
}
