// OpenClawWorld plugin entry: wiring only. Config is parsed once; the world itself lives in the
// service (started by the gateway) behind a process-level singleton that tools and routes share.
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { createToolPolicyHook } from "./src/hooks/tool-policy.ts";
import { OPERATOR_ROUTE, operatorRouteHandler } from "./src/http/operator-routes.ts";
import { aicRouteHandler, worldRouteHandler, worldUpgradeHandler } from "./src/http/routes.ts";
import { attachAdapters } from "./src/runtime/adapters.ts";
import { resolveConfig } from "./src/runtime/config.ts";
import { createWorldService } from "./src/runtime/service.ts";
import { registerWorldTools } from "./src/tools/index.ts";

export default definePluginEntry({
  id: "openclawworld",
  name: "OpenClawWorld",
  description: "A 2D multiplayer world shared by humans and AI agents, hosted inside the gateway.",
  register(api) {
    const config = resolveConfig(api.pluginConfig);
    const logger = api.logger;
    registerWorldTools(api as unknown as Parameters<typeof registerWorldTools>[0], config);
    api.on("before_tool_call", createToolPolicyHook(config.tools), { priority: 100 });
    api.registerService(createWorldService(config, attachAdapters));
    api.registerHttpRoute({
      path: "/aic/v0.1",
      match: "prefix",
      auth: "plugin",
      handler: aicRouteHandler(logger),
    });
    api.registerHttpRoute({
      path: "/world",
      match: "prefix",
      auth: "plugin",
      handler: worldRouteHandler(config, logger),
      handleUpgrade: worldUpgradeHandler(logger),
    });
    // Operator save/load and checkpoints: the gateway checks its own operator token.
    api.registerHttpRoute({
      path: OPERATOR_ROUTE,
      match: "prefix",
      auth: "gateway",
      handler: operatorRouteHandler(logger),
    });
  },
});
