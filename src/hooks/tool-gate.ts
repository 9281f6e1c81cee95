// The before_tool_call gate for the plugin's tools. The gateway's /tools/invoke runs optional tools
// even when they are hidden from the model, so this hook is the gate that holds on every path; what
// it decides is src/config/tool-policy.ts.
import type { ToolPolicyConfig } from "../config/config.ts";
import { decideToolCallWithParams } from "../config/tool-policy.ts";

export interface BeforeToolCallEvent {
  toolName: string;
  params?: unknown;
}
export interface BeforeToolCallContext {
  agentId?: string;
}

/** `onBlocked` is told of each call blocked (the operator's record of an agent's turns). */
export function createToolPolicyHook(
  policy: ToolPolicyConfig,
  onBlocked?: (agentId: string, tool: string, params: unknown, reason: string) => void,
) {
  return (
    event: BeforeToolCallEvent,
    ctx: BeforeToolCallContext,
  ): { block: true; blockReason: string } | undefined => {
    const decision = decideToolCallWithParams(policy, event.toolName, event.params, ctx.agentId);
    if (decision.allowed) return undefined;
    if (ctx.agentId !== undefined) onBlocked?.(ctx.agentId, event.toolName, event.params, decision.reason);
    return { block: true, blockReason: decision.reason };
  };
}
