// How the world wakes a resident inside this gateway: one turn of the gateway's own agent loop through
// the plugin SDK runtime (`api.runtime.agent.runEmbeddedAgent`), in the resident's own session, with
// its own model, tools and before_tool_call policy. Why this call and not a system event plus a
// heartbeat request: docs/DECISIONS.md ("Residents are woken by runEmbeddedAgent").
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import type { RunTurn } from "../residents/scheduler.ts";

type PluginRuntime = OpenClawPluginApi["runtime"];

/** The session a resident's turns share, so it remembers its earlier turns. */
export function residentSessionKey(agentId: string): string {
  return `agent:${agentId}:openclawworld`;
}

export function embeddedTurnRunner(runtime: PluginRuntime): RunTurn {
  return async ({ agentId, prompt, runId, timeoutMs, signal }) => {
    // current() is a readonly view of the same config resolveAgentWorkspaceDir takes.
    const config = runtime.config.current() as Parameters<
      PluginRuntime["agent"]["resolveAgentWorkspaceDir"]
    >[0];
    await runtime.agent.runEmbeddedAgent({
      agentId,
      sessionId: `openclawworld-${agentId}`,
      sessionKey: residentSessionKey(agentId),
      runId,
      workspaceDir: runtime.agent.resolveAgentWorkspaceDir(config, agentId),
      prompt,
      timeoutMs,
      abortSignal: signal,
      // The world is not a channel: a text answer goes nowhere, what the resident says it says with
      // ocw_chat_send.
      terminalReplyExpectation: "optional",
    });
  };
}

const modelOf = (entry: unknown): string | undefined => {
  const model = (entry as { model?: unknown } | undefined)?.model;
  if (typeof model === "string") return model || undefined;
  const primary = (model as { primary?: unknown } | undefined)?.primary;
  return typeof primary === "string" && primary ? primary : undefined;
};

/** Why a resident cannot take turns in this gateway's config, or undefined when it can: it needs a
 * model (its own, or the agents' default). */
export function residentAsleepReason(config: unknown, agentId: string): string | undefined {
  const agents = (config as { agents?: { defaults?: unknown; entries?: Record<string, unknown> } }).agents;
  if (modelOf(agents?.entries?.[agentId]) ?? modelOf(agents?.defaults)) return undefined;
  return `no model is configured for agent "${agentId}" (set agents.defaults.model.primary or agents.entries.${agentId}.model in the gateway config)`;
}
