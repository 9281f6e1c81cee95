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

export function createToolPolicyHook(policy: ToolPolicyConfig) {
  return (
    event: BeforeToolCallEvent,
    ctx: BeforeToolCallContext,
  ): { block: true; blockReason: string } | undefined => {
    const decision = decideToolCallWithParams(policy, event.toolName, event.params, ctx.agentId);
    return decision.allowed ? undefined : { block: true, blockReason: decision.reason };
  };
}
