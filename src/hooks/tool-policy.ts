// The opt-in / denylist gate for the plugin's tools. The gateway's /tools/invoke runs optional
// tools even when they are hidden from the model, so this hook is the gate that holds on every path.
import {
  canonicalToolName,
  OPTIONAL_TOOLS,
  type OptionalToolName,
  REQUIRED_TOOLS,
  type ToolPolicyConfig,
} from "../config/config.ts";

export type ToolDecision = { allowed: true } | { allowed: false; reason: string };

const OPTIONAL = new Set<string>(OPTIONAL_TOOLS);
const OURS = new Set<string>([...REQUIRED_TOOLS, ...OPTIONAL_TOOLS]);

function effectiveLists(policy: ToolPolicyConfig, agentId: string | undefined) {
  const own = agentId ? policy.perAgent[agentId] : undefined;
  return {
    enabled: new Set<string>([...policy.enabled, ...(own?.enabled ?? [])]),
    denied: new Set<string>([...policy.denied, ...(own?.denied ?? [])]),
  };
}

/** Optional tools this agent may call (enabled and not denied). */
export function enabledOptionalTools(
  policy: ToolPolicyConfig,
  agentId: string | undefined,
): OptionalToolName[] {
  const { enabled, denied } = effectiveLists(policy, agentId);
  return OPTIONAL_TOOLS.filter((name) => enabled.has(name) && !denied.has(name));
}

/** Deny wins over enable; required tools run unless denied; optional tools need an explicit enable. */
export function decideToolCall(
  policy: ToolPolicyConfig,
  toolName: string,
  agentId: string | undefined,
): ToolDecision {
  const name = canonicalToolName(toolName);
  if (!OURS.has(name)) return { allowed: true };
  const { enabled, denied } = effectiveLists(policy, agentId);
  const dotted = name.replace(/^ocw_/, "ocw.");
  if (denied.has(name)) {
    return {
      allowed: false,
      reason: `${name} is denied by the openclawworld tool policy (plugins.entries.openclawworld.config.tools.denied${agentId && policy.perAgent[agentId]?.denied.includes(name as never) ? ` or tools.perAgent.${agentId}.denied` : ""} lists ${name} or ${dotted}). Remove it from the denylist to allow it.`,
    };
  }
  if (OPTIONAL.has(name) && !enabled.has(name)) {
    return {
      allowed: false,
      reason: `${name} changes the world and is opt-in. Enable it in plugins.entries.openclawworld.config.tools.enabled (or tools.perAgent.<agentId>.enabled), e.g. "enabled": ["${name}"], and allow it for models with tools.alsoAllow: ["openclawworld"].`,
    };
  }
  return { allowed: true };
}

/** The optional tool each kind of action embedded in ocw_heartbeat stands for: a heartbeat may carry
 * an action only when that tool is allowed, so it never bypasses opt-in or the denylist. */
export const EMBEDDED_ACTION_TOOL: Record<string, OptionalToolName> = {
  moveTo: "ocw_move_to",
  interact: "ocw_interact",
  chatSend: "ocw_chat_send",
};

/** decideToolCall, plus: an ocw_heartbeat carrying an action needs that action's own tool. */
export function decideToolCallWithParams(
  policy: ToolPolicyConfig,
  toolName: string,
  params: unknown,
  agentId: string | undefined,
): ToolDecision {
  const decision = decideToolCall(policy, toolName, agentId);
  if (!decision.allowed || canonicalToolName(toolName) !== "ocw_heartbeat") return decision;
  const action = params && typeof params === "object" ? (params as { action?: unknown }).action : undefined;
  if (action === undefined || action === null) return decision;
  const kind = typeof action === "object" ? (action as { kind?: unknown }).kind : undefined;
  const tool =
    typeof kind === "string" && Object.hasOwn(EMBEDDED_ACTION_TOOL, kind)
      ? EMBEDDED_ACTION_TOOL[kind]
      : undefined;
  if (!tool) {
    return {
      allowed: false,
      reason: `ocw_heartbeat: action.kind must be one of ${Object.keys(EMBEDDED_ACTION_TOOL).join(", ")}`,
    };
  }
  const embedded = decideToolCall(policy, tool, agentId);
  if (embedded.allowed) return embedded;
  return {
    allowed: false,
    reason: `ocw_heartbeat cannot carry a ${kind} action: it counts as ${tool}, and ${embedded.reason} Call ocw_heartbeat without an action to perceive.`,
  };
}

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
