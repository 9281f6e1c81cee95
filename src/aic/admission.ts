// Who may ask what: a request is valid for its schema, names the caller's own agentId, comes from a
// provisioned agent and is within its rate class. The contract's part of every check; the world's
// rules (rooms an action acts in, reach, paths, txId replay) are the world's.
import type * as z from "zod";
import { agentEntityId } from "../world/ids.ts";
import type { Actor } from "./actions.ts";
import { type AicResult, aicError } from "./errors.ts";
import type { RateLimiter } from "./rate-limit.ts";

/** Provisioned agents (PRD 14: pre-provisioned agentIds). */
export type AgentDirectory = (agentId: string) => { name: string } | undefined;

export type Admission<R> = { ok: true; request: R; actor: Actor } | { ok: false; result: AicResult<never> };

export function agentRateKey(agentId: string): string {
  return `agent:${agentId}`;
}

/** A valid request, for the caller's own agentId, by a provisioned agent: who acts, and what. */
export function admit<S extends z.ZodType<{ agentId: string; roomId: string }>>(
  agents: AgentDirectory,
  caller: string,
  body: unknown,
  schema: S,
): Admission<z.output<S>> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) return { ok: false, result: badRequest(parsed.error, body) };
  const request = parsed.data;
  if (request.agentId !== caller) {
    return {
      ok: false,
      result: aicError("forbidden", "this credential may only act for its own agentId", {
        agentId: request.agentId,
      }),
    };
  }
  const agent = agents(request.agentId);
  if (!agent) {
    return { ok: false, result: aicError("forbidden", `agent "${request.agentId}" is not provisioned`) };
  }
  const actor: Actor = {
    entityId: agentEntityId(request.agentId),
    kind: "agent",
    name: agent.name,
    rateKey: agentRateKey(request.agentId),
  };
  return { ok: true, request, actor };
}

/** The one limiter as the contract uses it: a refusal is an answer, and an answer that does not come
 * with a tick waits until the grants so far are durable. */
export class RateGate {
  readonly limiter: RateLimiter;
  constructor(limiter: RateLimiter) {
    this.limiter = limiter;
  }

  /** A refusal when `rateKey` has no token left in `rateClass`. */
  take(rateKey: string, rateClass: string): AicResult<never> | undefined {
    const decision = this.limiter.take(rateKey, rateClass);
    if (decision.allowed) return undefined;
    return aicError("rate_limited", `rate limit exceeded for ${rateClass}`, {
      retryAfterMs: decision.retryAfterMs,
      rateClass,
    });
  }

  /** The rate limit of a read: answered now, not after a tick, so its grant is saved before the answer. */
  async read(rateKey: string, rateClass: string): Promise<AicResult<never> | undefined> {
    return this.take(rateKey, rateClass) ?? (await this.settled());
  }

  /** Waits until the limiter's grants so far are durable (a store is wired in; one write for all the
   * requests of an event-loop turn); an error answer if they cannot be saved. */
  async settled(): Promise<AicResult<never> | undefined> {
    try {
      await this.limiter.settled();
      return undefined;
    } catch {
      return aicError("internal", "the world could not save this request's rate-limit state; retry");
    }
  }
}

export function noSuchRoom(roomId: string): AicResult<never> {
  return aicError("not_found", `room "${roomId}" does not exist`);
}

export function notInRoom(agentId: string, roomId: string): AicResult<never> {
  return aicError("agent_not_in_room", `agent "${agentId}" is not in room "${roomId}"; call join first`, {
    agentId,
    roomId,
  });
}

const MAX_ISSUES = 10;

/** The bad_request answer for a failed parse. `input` (what was parsed) lets a missing required field
 * say so, instead of reading like a wrong value ("expected one of ..." for an absent `detail`). */
export function badRequest(error: z.ZodError, input?: unknown): AicResult<never> {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const text = issue.message.slice(0, 200);
    return {
      // An offending key may itself be ill-formed text: the answer never echoes a lone surrogate.
      path: path.join(".").toWellFormed(),
      code: issue.code,
      message: isMissing(input, path) ? `required field is missing (${text})` : text,
    };
  });
  const first = issues[0];
  const message = first ? `invalid request: ${first.path || "(body)"}: ${first.message}` : "invalid request";
  return aicError("bad_request", message, { issues });
}

/** Whether `path` names a key absent from an object that is present in `input`. */
function isMissing(input: unknown, path: (string | number)[]): boolean {
  if (path.length === 0) return false;
  let node: unknown = input;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return typeof node === "object" && node !== null && !Object.hasOwn(node, path[path.length - 1]!);
}
