// The plugin's wiring: read config once, register the tools, the policy hook, the world service and
// the HTTP routes (AIC, world, operator). Everything that needs the running world finds it through the process slot.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { resolveConfig } from "../config/config.ts";
import { createToolPolicyHook } from "../hooks/tool-policy.ts";
import { OPERATOR_ROUTE, operatorRouteHandler } from "../http/operator-routes.ts";
import {
  aicRouteHandler,
  type LiveSurfaces,
  worldRouteHandler,
  worldUpgradeHandler,
} from "../http/routes.ts";
import { registerWorldTools } from "../tools/index.ts";
import { attachAdapters } from "./adapters.ts";
import { registerWorldCli } from "./cli.ts";
import { operatorActions } from "./operator.ts";
import { attachResidents } from "./residents.ts";
import { createWorldService } from "./service.ts";
import { activeHost } from "./singleton.ts";
import { worldStatus } from "./status.ts";

export function registerPlugin(api: OpenClawPluginApi): void {
  // The CLI commands run in the CLI process and reach the world through the operator route.
  registerWorldCli(api);
  const config = resolveConfig(api.pluginConfig);
  const logger = api.logger;
  const live: LiveSurfaces = activeHost;
  registerWorldTools(api, config, {
    aic: () => activeHost()?.aic,
    status: (agentId) => worldStatus(activeHost(), config, agentId),
  });
  api.on("before_tool_call", createToolPolicyHook(config.tools), { priority: 100 });
  api.registerService(
    createWorldService(config, (host, runtimeLogger) => {
      attachAdapters(host, runtimeLogger);
      attachResidents(host, runtimeLogger, api.runtime);
    }),
  );
  api.registerHttpRoute({
    path: "/aic/v0.1",
    match: "prefix",
    auth: "plugin",
    handler: aicRouteHandler(live, logger),
  });
  api.registerHttpRoute({
    path: "/world",
    match: "prefix",
    auth: "plugin",
    handler: worldRouteHandler(live, () => worldStatus(activeHost(), config), logger),
    handleUpgrade: worldUpgradeHandler(live, logger),
  });
  // Operator save/load and checkpoints: the gateway checks its own operator token.
  api.registerHttpRoute({
    path: OPERATOR_ROUTE,
    match: "prefix",
    auth: "gateway",
    handler: operatorRouteHandler(() => {
      const host = activeHost();
      return host ? operatorActions(host) : undefined;
    }, logger),
  });
}
