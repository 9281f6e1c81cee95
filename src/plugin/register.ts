// The plugin's wiring: read config once, register the tools, the policy hook, the world service and
// the HTTP routes (AIC, world, operator). Everything that needs the running world finds it through the process slot.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { allowedHosts, resolveConfig } from "../config/config.ts";
import { createToolPolicyHook } from "../hooks/tool-gate.ts";
import { FOLLOW_ROUTE, followRouteHandler } from "../http/follow-routes.ts";
import { createHostRule } from "../http/host-rule.ts";
import { OPERATOR_ROUTE, operatorRouteHandler } from "../http/operator-routes.ts";
import { REPLAY_ROUTE, replayRouteHandler } from "../http/replay-routes.ts";
import {
  aicRouteHandler,
  type LiveSurfaces,
  worldRouteHandler,
  worldUpgradeHandler,
} from "../http/routes.ts";
import { registerWorldTools } from "../tools/register-tools.ts";
import { attachAdapters } from "./adapters.ts";
import { ownerElsewhere } from "./cluster-host.ts";
import { followDeskOf } from "./follow-desk.ts";
import { requestGatewayReload } from "./gateway-reload-request.ts";
import { deskFor, deskOf, linksOf, openReplayFile, operatorActions } from "./operator-actions.ts";
import { registerWorldCli } from "./operator-cli.ts";
import { replayRead } from "./replay-desk.ts";
import { attachResidents } from "./residents.ts";
import { activeHost, processSlot } from "./singleton.ts";
import { worldStatus } from "./status.ts";
import { createWorldService } from "./world-service.ts";

/** A stop that no start follows within this long reopens the world (`Revival` in service.ts). */
const REVIVE_AFTER_MS = 25_000;
/** How long the gateway gets to load the plugin again when the plugin asks it to: the gateway copies
 * the plugin's folder on that path, which on a busy machine took tens of seconds. */
const GATEWAY_RELOAD_TIMEOUT_MS = 180_000;

/** Why the gateway's config keeps this plugin off (then its world stays stopped), if it does. The
 * config is read as the gateway holds it now; one that cannot be read keeps the world stopped too. */
export function turnedOff(id: string, current: () => unknown): string | undefined {
  let plugins: {
    enabled?: unknown;
    deny?: unknown;
    allow?: unknown;
    entries?: Record<string, { enabled?: unknown }>;
  };
  try {
    plugins = ((current() as { plugins?: typeof plugins } | undefined)?.plugins ?? {}) as typeof plugins;
  } catch (error) {
    return `the gateway config could not be read (${String(error)})`;
  }
  if (plugins.enabled === false) return "plugins are disabled in the gateway config";
  if (plugins.entries?.[id]?.enabled === false) return `plugins.entries.${id}.enabled is false`;
  if (Array.isArray(plugins.deny) && plugins.deny.includes(id)) return `plugins.deny lists ${id}`;
  if (Array.isArray(plugins.allow) && !plugins.allow.includes(id)) return `plugins.allow leaves ${id} out`;
  return undefined;
}

export function registerPlugin(api: OpenClawPluginApi): void {
  // The CLI commands run in the CLI process and reach the world through the operator route.
  registerWorldCli(api);
  const config = resolveConfig(api.pluginConfig);
  const logger = api.logger;
  const live: LiveSurfaces = activeHost;
  const hostAllowed = createHostRule(allowedHosts(config.web));
  // A cluster standby sends every door's callers to the gateway serving the world (docs/cluster.md).
  const elsewhere = () => ownerElsewhere(processSlot().waiting?.cluster);
  registerWorldTools(api, config, {
    aic: () => activeHost()?.aic,
    status: (agentId) => worldStatus(activeHost(), config, agentId),
    elsewhere,
  });
  api.on(
    "before_tool_call",
    createToolPolicyHook(config.tools, (agentId, tool, params, reason) =>
      activeHost()?.aic?.noteBlocked(agentId, tool, params, reason),
    ),
    { priority: 100 },
  );
  // Each model request of a run: a resident's turn past its cap on requests is cancelled there.
  api.on("model_call_started", (event) => {
    activeHost()?.residents?.onModelCall(event.runId, event.callId);
  });
  // A failed model request of a resident's turn shows in its status (a model that is down or refuses).
  api.on("model_call_ended", (event) => {
    activeHost()?.residents?.onModelCallEnded(event.runId, event);
  });
  api.registerService(
    createWorldService(
      config,
      (host, runtimeLogger) => {
        attachAdapters(host, runtimeLogger);
        attachResidents(host, runtimeLogger, api.runtime);
      },
      undefined,
      {
        afterMs: REVIVE_AFTER_MS,
        staysStopped: () => turnedOff(api.id, () => api.runtime.config.current()),
        gatewayReload: {
          pluginId: api.id,
          ask: () => requestGatewayReload(api.id, { timeoutMs: GATEWAY_RELOAD_TIMEOUT_MS }),
        },
      },
    ),
  );
  api.registerHttpRoute({
    path: "/aic/v0.1",
    match: "prefix",
    auth: "plugin",
    handler: answeredInBackground(aicRouteHandler(live, logger, hostAllowed, elsewhere), logger),
  });
  api.registerHttpRoute({
    path: "/world",
    match: "prefix",
    auth: "plugin",
    handler: answeredInBackground(
      worldRouteHandler(live, () => worldStatus(activeHost(), config), logger, hostAllowed, elsewhere),
      logger,
    ),
    handleUpgrade: worldUpgradeHandler(live, logger, hostAllowed, elsewhere),
  });
  // The replay page: its reads need an operator link's key (replay-link.ts), checked here.
  api.registerHttpRoute({
    path: REPLAY_ROUTE,
    match: "prefix",
    auth: "plugin",
    handler: answeredInBackground(
      replayRouteHandler(
        () => {
          const host = activeHost();
          if (!host) return undefined;
          return {
            validKey: (key) => linksOf(host).valid(key),
            read: (route, query) => replayRead(deskFor(host, query), route, query),
            open: (document) => openReplayFile(host, document),
          };
        },
        logger,
        hostAllowed,
      ),
      logger,
    ),
  });
  // The follow page: its reads need the agent's own AIC token or a follow link (follow-link.ts), one
  // agent each, checked in follow-routes.ts.
  api.registerHttpRoute({
    path: FOLLOW_ROUTE,
    match: "prefix",
    auth: "plugin",
    handler: answeredInBackground(
      followRouteHandler(
        () => {
          const host = activeHost();
          return host?.aic ? followDeskOf(host, () => deskOf(host)) : undefined;
        },
        logger,
        hostAllowed,
      ),
      logger,
    ),
  });
  // Operator save/load and checkpoints: the gateway checks its own operator token.
  api.registerHttpRoute({
    path: OPERATOR_ROUTE,
    match: "prefix",
    auth: "gateway",
    handler: answeredInBackground(
      operatorRouteHandler(
        () => {
          const host = activeHost();
          return host ? operatorActions(host) : undefined;
        },
        logger,
        () => {
          const waiting = processSlot().waiting;
          return waiting ? { waitingForStore: waiting } : undefined;
        },
      ),
      logger,
    ),
  });
}

/** The gateway counts a route call as running until its handler settles, and a plugin reload waits
 * for running calls before it replaces the plugin (its tools and routes are refused meanwhile); one
 * that has not settled in 60 s fails the reload and leaves the old plugin in place. How
 * long a request lasts is the caller's to decide (a long-poll waits 25 s, a browser that stops reading
 * a file or sends half a body holds it as long as it keeps the connection open), so every route takes
 * the request on and returns at once; the answer is written when it is ready, as an SSE stream's
 * events are. The handler answers every failure itself; the catch is for what escapes it. */
function answeredInBackground(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
  logger: OpenClawPluginApi["logger"],
) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    handler(req, res).catch((error: unknown) => {
      logger.error(`openclawworld: ${req.method} ${req.url} failed: ${String(error)}`);
      if (!res.writableEnded) res.destroy();
    });
    return true;
  };
}
