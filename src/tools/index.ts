// Registers every ocw_* tool. Factories, so each call knows which OpenClaw agent it acts for.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import type { AicService } from "../aic/service.ts";
import { OPTIONAL_TOOLS, type ResolvedConfig } from "../config/config.ts";
import type { AicBackend } from "./backend.ts";
import { worldAgentId } from "./identity.ts";
import { inProcessBackend } from "./in-process-backend.ts";
import { RemoteAicClient } from "./remote-client.ts";
import { type StatusSource, statusTool } from "./status.ts";
import { WORLD_TOOL_FACTORIES } from "./world-tools.ts";

/** The part of the SDK's plugin api the tools need. */
export type ToolRegistrar = Pick<OpenClawPluginApi, "registerTool">;

/** What the tools need from the running world: its AIC service and its status, both looked up live. */
export interface ToolWorld {
  aic: () => AicService | undefined;
  status: StatusSource;
}

export function backendFor(config: ResolvedConfig, world: ToolWorld): AicBackend {
  return config.remote ? new RemoteAicClient(config.remote) : inProcessBackend(world.aic);
}

export function registerWorldTools(api: ToolRegistrar, config: ResolvedConfig, world: ToolWorld): void {
  const timeoutMs = config.tools.timeoutMs;
  const backend = backendFor(config, world);
  // In remote mode the remote key belongs to one agent; locally each OpenClaw agent is its own.
  const agentFor = (ctx: { agentId?: string }) => worldAgentId(config.remote?.defaultAgentId ?? ctx.agentId);
  api.registerTool((ctx) => statusTool(config, agentFor(ctx), timeoutMs, world.status), {
    name: "ocw_status",
  });
  for (const [name, factory] of Object.entries(WORLD_TOOL_FACTORIES)) {
    api.registerTool((ctx) => factory({ config, backend, agentId: agentFor(ctx), timeoutMs }), {
      name,
      ...((OPTIONAL_TOOLS as readonly string[]).includes(name) ? { optional: true } : {}),
    });
  }
}
