// The one text rule of the contract, applied by every request schema (HTTP bodies, tool arguments,
// WebSocket frames all parse through those schemas): every string in a request, and every object key,
// is well-formed Unicode. A lone UTF-16 surrogate (e.g. "\ud83d", half an emoji) is not text: it cannot
// be encoded as UTF-8 or canonicalized (RFC 8785), so stored in the world it would break every later
// snapshot hash. It is refused as bad_request naming the field, never stored, never retryable.
import type * as z from "zod";

// ES2024 String methods (Node 20+); the project's lib is ES2023.
declare global {
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

export const ILL_FORMED_TEXT_MESSAGE =
  "must be well-formed Unicode text: a lone UTF-16 surrogate (half of a surrogate pair) is not allowed";

/** Nesting bound for free-form JSON (`params`): deeper values are refused, never walked recursively. */
export const MAX_JSON_DEPTH = 32;

export type TextProblem = { path: (string | number)[]; reason: "ill_formed_text" | "too_deep" };

/** The first string or key in `value` that is not well-formed Unicode, or a nesting deeper than
 * MAX_JSON_DEPTH. Iterative, so a hostile depth cannot overflow the stack. */
export function findTextProblem(value: unknown): TextProblem | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return { path: item.path, reason: "ill_formed_text" };
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (item.path.length >= MAX_JSON_DEPTH) return { path: item.path, reason: "too_deep" };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...item.path, i] });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (!key.isWellFormed()) return { path: [...item.path, key], reason: "ill_formed_text" };
      stack.push({ value: (v as Record<string, unknown>)[key], path: [...item.path, key] });
    }
  }
  return undefined;
}

/** The zod refinement every request schema carries (see `requestRule` in schemas.ts). */
export function refineText(value: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  const problem = findTextProblem(value);
  if (!problem) return;
  ctx.addIssue({
    code: "custom",
    path: problem.path,
    message:
      problem.reason === "ill_formed_text"
        ? ILL_FORMED_TEXT_MESSAGE
        : `nested deeper than ${MAX_JSON_DEPTH} levels`,
    params: { reason: problem.reason },
  });
}
