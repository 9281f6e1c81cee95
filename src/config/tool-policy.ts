// Which ocw_* tools an agent may call: opt-in for the tools that change the world, a denylist over
// everything, both global and per agent. The hook (src/hooks) enforces it on every door; the tools
// read it to offer only what the agent may do (heartbeat suggestions). A refusal speaks to the agent
// that was refused: the model cannot edit the config and must not be told which keys would let it.
import {
  ALL_TOOLS,
  canonicalToolName,
  OPTIONAL_TOOLS,
  type OptionalToolName,
  REQUIRED_TOOLS,
  type ToolPolicyConfig,
} from "./config.ts";

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

/** Every ocw_* tool this agent may call: what a resident's turn is given, and nothing else. */
export function allowedWorldTools(policy: ToolPolicyConfig, agentId: string | undefined): string[] {
  return ALL_TOOLS.filter((name) => decideToolCall(policy, name, agentId).allowed);
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
  if (denied.has(name) || (OPTIONAL.has(name) && !enabled.has(name))) {
    return {
      allowed: false,
      reason: `${name} is not enabled for you in this world; ask your operator if you need it. Do not retry it.`,
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

/** The embedded action kinds this agent may send with ocw_heartbeat. */
export function allowedEmbeddedKinds(policy: ToolPolicyConfig, agentId: string | undefined): Set<string> {
  return new Set(
    Object.entries(EMBEDDED_ACTION_TOOL)
      .filter(([, tool]) => decideToolCall(policy, tool, agentId).allowed)
      .map(([kind]) => kind),
  );
}

/** The action as the tool will read it: the tool's argument coercion accepts a JSON-encoded object,
 * so the policy must judge that object, not the string. */
function embeddedAction(params: unknown): unknown {
  const action = params && typeof params === "object" ? (params as { action?: unknown }).action : undefined;
  if (typeof action !== "string" || !action.trim().startsWith("{")) return action;
  try {
    return JSON.parse(action);
  } catch {
    return action;
  }
}

/** decideToolCall, plus: an ocw_heartbeat carrying an action needs that action's own tool. */
export function decideToolCallWithParams(
  policy: ToolPolicyConfig,
  toolName: string,
  params: unknown,
  agentId: string | undefined,
): ToolDecision {
  const decision = decideToolCall(policy, toolName, agentId);
  if (!decision.allowed || canonicalToolName(toolName) !== "ocw_heartbeat") return decision;
  const action = embeddedAction(params);
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
  if (decideToolCall(policy, tool, agentId).allowed) return decision;
  return {
    allowed: false,
    reason: `You may not ${kind} here: a ${kind} action counts as ${tool}, which is not enabled for you in this world (ask your operator if you need it). Call ocw_heartbeat without an action to perceive.`,
  };
}
