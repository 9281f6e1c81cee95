// Who a tool call acts as: the OpenClaw agent running the tool is the world agent `agt_<agentId>`.
import { createHash } from "node:crypto";
import { AGENT_ID_PATTERN } from "../aic/schemas.ts";

/** OpenClaw agent ids are usually already valid AIC agent ids; anything else is made valid, stably. */
export function worldAgentId(openclawAgentId: string | undefined, fallback = "main"): string {
  const raw = openclawAgentId?.trim() || fallback;
  if (AGENT_ID_PATTERN.test(raw)) return raw;
  const cleaned = raw.replace(/[^a-zA-Z0-9._-]/g, "_").slice(0, 48);
  return `${cleaned}_${createHash("sha256").update(raw).digest("hex").slice(0, 8)}`;
}

/** Which call a tool call is, for its txId. */
export interface ToolCallScope {
  toolName: string;
  /** The gateway session (tool call ids are unique within a conversation at best). */
  session: string;
  /** The turn, when the gateway tells it (a resident's turn does: its run id); "" otherwise. */
  turn: string;
  toolCallId: string;
  /** What the model asked for: the tool's arguments as it sent them. */
  args: unknown;
}

/** JSON with object keys sorted, so the same arguments always read the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A retried tool call (same session, turn, call id and arguments) maps to the same txId, so the
 * world applies it once. Models and local servers reuse call ids (`call_0` in every response), so
 * the id alone never names a call: the turn and the arguments are part of the key, and a reused id
 * with other arguments, or in another turn, is a new transaction instead of a `conflict` that would
 * silence the agent. (Two identical calls under one reused id in one turn are one action: a retry.) */
export function txIdForToolCall(scope: ToolCallScope): string {
  const key = [scope.toolName, scope.session, scope.turn, scope.toolCallId, canonical(scope.args)].join("\0");
  return `tx_${createHash("sha256").update(key).digest("base64url").slice(0, 32)}`;
}
