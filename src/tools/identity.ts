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

/** A retried tool call (same session, same tool call id) maps to the same txId, so the world applies
 * it once. The session is part of it: tool call ids are unique only within a conversation (a provider
 * may number them per session), and a txId shared across sessions would replay another call's answer. */
export function txIdForToolCall(toolName: string, session: string, toolCallId: string): string {
  const key = `${toolName}\0${session}\0${toolCallId}`;
  return `tx_${createHash("sha256").update(key).digest("base64url").slice(0, 32)}`;
}
