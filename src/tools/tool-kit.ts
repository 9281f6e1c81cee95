// The shape every ocw_* tool shares (OpenClaw 004 checklist): typebox parameters, argument
// coercion (camelCase or snake_case keys, JSON-encoded objects, numeric and boolean strings),
// validation inside execute (the gateway's /tools/invoke path does not validate), an AbortSignal,
// a timeout, a short text for the model plus the AIC data in `details`, and a thrown error carrying
// the AIC error code on failure.
import type { TSchema } from "typebox";
import { Value } from "typebox/value";

export interface ToolResult {
  content: { type: "text"; text: string }[];
  details: unknown;
}

export interface AgentToolLike {
  name: string;
  label: string;
  description: string;
  parameters: TSchema;
  /** Sent to the model as a definition even in the gateway's Tool Search mode. */
  catalogMode?: "direct-only";
  execute(toolCallId: string, params: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

/** A tool failure; `code` is the AIC error code when the world refused. */
export class ToolError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** HTTP status the gateway's /tools/invoke answers with (it reads `name` and `status`). */
  readonly status: number;
  constructor(code: string, message: string, retryable = false, details?: Record<string, unknown>) {
    super(`${code}: ${message}`);
    // The gateway passes an error's message through /tools/invoke only for input errors, which it
    // recognises by name; a refusal the caller can act on (bad arguments, a wall, a missing object)
    // is one. Retryable failures stay opaque 500s there and reach the model's transcript as usual.
    this.name = retryable ? "ToolError" : code === "forbidden" ? "ToolAuthorizationError" : "ToolInputError";
    this.status = retryable ? 500 : code === "forbidden" ? 403 : 400;
    this.code = code;
    this.retryable = retryable;
    this.details = details;
  }
}

export interface ToolCall {
  toolCallId: string;
  signal: AbortSignal;
}

export interface ToolSpec<Args> {
  name: string;
  label: string;
  description: string;
  parameters: TSchema;
  run(args: Args, call: ToolCall): Promise<{ text: string; details: unknown }>;
}

const snakeToCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** Brings model-produced arguments to the schema's shape without guessing beyond it. */
export function coerceArgs(schema: SchemaNode, value: unknown): unknown {
  let current = value;
  if (typeof current === "string" && (schema.type === "object" || schema.type === "array")) {
    const trimmed = current.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      try {
        current = JSON.parse(trimmed);
      } catch {
        return value;
      }
    }
  }
  if (schema.type === "object" && current && typeof current === "object" && !Array.isArray(current)) {
    const props = schema.properties ?? {};
    const out: Record<string, unknown> = {};
    for (const [rawKey, v] of Object.entries(current)) {
      const key = rawKey in props ? rawKey : snakeToCamel(rawKey);
      // A camelCase key wins over its snake_case twin when a model sends both.
      if (key !== rawKey && key in (current as Record<string, unknown>)) continue;
      const child = props[key];
      out[key] = child ? coerceArgs(child, v) : v;
    }
    return out;
  }
  if (schema.type === "array" && Array.isArray(current) && schema.items) {
    const items = schema.items;
    return current.map((item) => coerceArgs(items, item));
  }
  if (
    (schema.type === "number" || schema.type === "integer") &&
    typeof current === "string" &&
    current.trim()
  ) {
    const n = Number(current.trim());
    return Number.isFinite(n) ? n : current;
  }
  if (schema.type === "boolean" && typeof current === "string") {
    const s = current.trim().toLowerCase();
    if (s === "true") return true;
    if (s === "false") return false;
  }
  return current;
}

/** Validates coerced arguments; the message names each bad field. */
export function validateArgs<Args>(schema: TSchema, args: unknown): Args {
  if (Value.Check(schema, args)) return args as Args;
  const problems = [...Value.Errors(schema, args)]
    .filter((e) => e.keyword !== "boolean")
    .slice(0, 5)
    .map((e) => {
      const extra =
        e.keyword === "additionalProperties"
          ? ` (${(e.params as { additionalProperties?: string[] }).additionalProperties?.join(", ")})`
          : "";
      return `${e.instancePath || "arguments"} ${e.message}${extra}`;
    });
  throw new ToolError("bad_request", `invalid arguments: ${problems.join("; ")}`);
}

/** A rate limit is a normal outcome, not a failure: the model reads what was limited and when to try
 * again (a thrown error reaches /tools/invoke callers as an opaque 500). Anything else rethrows. */
function rateLimitedResult(error: unknown): { text: string; details: unknown } {
  if (!(error instanceof ToolError) || error.code !== "rate_limited") throw error;
  const retryAfterMs = Number(error.details?.retryAfterMs) || 1000;
  const rateClass = typeof error.details?.rateClass === "string" ? error.details.rateClass : "this call";
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    text: `Not done: too many ${rateClass} calls just now. Nothing changed; try again in ${seconds} s.`,
    details: { rateLimited: { rateClass, retryAfterMs } },
  };
}

function abortError(signal: AbortSignal): ToolError {
  const reason = signal.reason;
  if (reason instanceof ToolError) return reason;
  return new ToolError("timeout", "the tool call was cancelled", true);
}

export function defineTool<Args>(spec: ToolSpec<Args>, timeoutMs: number): AgentToolLike {
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    async execute(toolCallId, params, signal) {
      const args = validateArgs<Args>(
        spec.parameters,
        coerceArgs(spec.parameters as SchemaNode, params ?? {}),
      );
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      if (combined.aborted) throw abortError(combined);
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () =>
          reject(
            timeout.aborted && !signal?.aborted
              ? new ToolError("timeout", `${spec.name} did not finish within ${timeoutMs} ms`, true)
              : abortError(combined),
          );
        combined.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const { text, details } = await Promise.race([
          spec.run(args, { toolCallId, signal: combined }),
          aborted,
        ]).catch(rateLimitedResult);
        return { content: [{ type: "text", text }], details };
      } finally {
        if (onAbort) combined.removeEventListener("abort", onAbort);
      }
    },
  };
}
