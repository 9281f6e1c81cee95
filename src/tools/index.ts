// Registers every ocw_* tool. Factories, so each call knows which OpenClaw agent it acts for.
import { OPTIONAL_TOOLS, type ResolvedConfig } from "../runtime/config.ts";
import { backendFor } from "./backend.ts";
import { worldAgentId } from "./identity.ts";
import { statusTool } from "./status.ts";
import type { AgentToolLike } from "./tool-kit.ts";
import { WORLD_TOOL_FACTORIES } from "./world-tools.ts";

export interface ToolRegistrar {
  registerTool(
    factory: (ctx: { agentId?: string }) => AgentToolLike,
    opts: { name: string; optional?: boolean },
  ): void;
}

export function registerWorldTools(api: ToolRegistrar, config: ResolvedConfig): void {
  const timeoutMs = config.tools.timeoutMs;
  const backend = backendFor(config);
  // In remote mode the remote key belongs to one agent; locally each OpenClaw agent is its own.
  const agentFor = (ctx: { agentId?: string }) => worldAgentId(config.remote?.defaultAgentId ?? ctx.agentId);
  api.registerTool((ctx) => statusTool(config, agentFor(ctx), timeoutMs), { name: "ocw_status" });
  for (const [name, factory] of Object.entries(WORLD_TOOL_FACTORIES)) {
    api.registerTool((ctx) => factory({ config, backend, agentId: agentFor(ctx), timeoutMs }), {
      name,
      ...((OPTIONAL_TOOLS as readonly string[]).includes(name) ? { optional: true } : {}),
    });
  }
}
