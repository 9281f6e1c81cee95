// Registers every ocw_* tool. Factories, so each call knows which OpenClaw agent it acts for.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { aicError } from "../aic/errors.ts";
import type { OwnerLookup } from "../aic/owner-elsewhere.ts";
import type { AicService } from "../aic/service.ts";
import { OPTIONAL_TOOLS, type ResolvedConfig } from "../config/config.ts";
import { allowedEmbeddedKinds } from "../config/tool-policy.ts";
import type { AicBackend } from "./backend.ts";
import { worldAgentId } from "./identity.ts";
import { inProcessBackend } from "./in-process-backend.ts";
import { RemoteAicClient } from "./remote-client.ts";
import { type StatusSource, statusTool } from "./status-tool.ts";
import type { AgentToolLike } from "./tool-kit.ts";
import { turnBindingOf } from "./turn-binding.ts";
import { WORLD_TOOL_FACTORIES } from "./world-tools.ts";

/** The tools that tell an agent about the world. In the gateway's Tool Search mode a catalog tool
 * reaches the model as a name, and its result as JSON with the whole `details` (ids, timestamps,
 * tokens: several times the text). These are sent as definitions instead (`catalogMode:
 * "direct-only"`), so a wake-up needs no search and each answer is the tool's short text, as in
 * direct mode. The tools that change the world stay in the catalog: their answers are short. */
export const DIRECT_TOOLS: ReadonlySet<string> = new Set([
  "ocw_heartbeat",
  "ocw_observe",
  "ocw_poll_events",
  "ocw_chat_observe",
  "ocw_status",
]);

/** In a resident's turn every tool it is given is direct: the turn offers only what its policy allows
 * (a few tools), and the wake prompt tells it to call ocw_chat_send by name, which a model cannot do
 * with a catalog tool ("Tool ocw_chat_send not found"). */
const asCatalogued = (tool: AgentToolLike, residentTurn: boolean): AgentToolLike =>
  residentTurn || DIRECT_TOOLS.has(tool.name) ? { ...tool, catalogMode: "direct-only" } : tool;

/** What the gateway tells a tool factory about the call (OpenClawPluginToolContext, the part used). */
interface ToolContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  /** Out-of-band bindings of the run (a resident's turn carries a TurnBinding). */
  toolBindings?: Readonly<Record<string, unknown>>;
}

/** The part of the SDK's plugin api the tools need. */
export type ToolRegistrar = Pick<OpenClawPluginApi, "registerTool">;

/** What the tools need from the running world: its AIC service and its status, both looked up live. */
export interface ToolWorld {
  aic: () => AicService | undefined;
  status: StatusSource;
  /** A cluster standby: the gateway serving the world (the tools' answers name it). */
  elsewhere?: OwnerLookup;
}

export function backendFor(config: ResolvedConfig, world: ToolWorld): AicBackend {
  return config.remote
    ? new RemoteAicClient(config.remote)
    : apartFromAicAgents(config, inProcessBackend(world.aic, world.elsewhere));
}

/** Gateway agents and external (AIC) agents never share a body: a gateway agent whose world id is
 * an AIC agent's in this plugin's config is refused, and the AIC agent, who holds a token for that
 * id, keeps it. (In remote mode the key belongs to one AIC agent on purpose.) */
function apartFromAicAgents(config: ResolvedConfig, backend: AicBackend): AicBackend {
  const taken = aicError(
    "forbidden",
    "your name belongs to another agent in this world, so you cannot act here; ask your operator",
  );
  return {
    ...backend,
    call: async (endpoint, agentId, body, signal) =>
      Object.hasOwn(config.agents, agentId) ? taken : backend.call(endpoint, agentId, body, signal),
    currentRoom: (agentId) => backend.currentRoom(agentId),
  };
}

export function registerWorldTools(api: ToolRegistrar, config: ResolvedConfig, world: ToolWorld): void {
  const timeoutMs = config.tools.timeoutMs;
  const backend = backendFor(config, world);
  // In remote mode the remote key belongs to one agent; locally each OpenClaw agent is its own.
  const agentFor = (ctx: { agentId?: string }) => worldAgentId(config.remote?.defaultAgentId ?? ctx.agentId);
  api.registerTool(
    (ctx: ToolContext) =>
      asCatalogued(
        statusTool(config, agentFor(ctx), timeoutMs, world.status),
        !!turnBindingOf(ctx.toolBindings),
      ),
    { name: "ocw_status" },
  );
  for (const [name, factory] of Object.entries(WORLD_TOOL_FACTORIES)) {
    const build = (ctx: ToolContext) => {
      const turn = turnBindingOf(ctx.toolBindings);
      return asCatalogued(
        factory({
          config,
          backend,
          agentId: agentFor(ctx),
          timeoutMs,
          session: ctx.sessionId ?? ctx.sessionKey ?? "",
          ...(turn ? { turn: turn.turnId, replyChannel: turn.replyChannel } : {}),
          // The policy is keyed by the gateway's agent id, as the hook sees it.
          allowedActionKinds: allowedEmbeddedKinds(config.tools, ctx.agentId),
        }),
        !!turn,
      );
    };
    api.registerTool(build, {
      name,
      ...((OPTIONAL_TOOLS as readonly string[]).includes(name) ? { optional: true } : {}),
    });
  }
}
