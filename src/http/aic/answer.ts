// Writes one AIC answer: the result wrapper as JSON, its HTTP status from the one mapping in
// src/aic/errors.ts, the request id, Retry-After for every retryable error, and a log line for failures.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AicResult, type HttpFraming, httpStatusFor } from "../../aic/errors.ts";
import { resultJson } from "../../aic/event-envelope.ts";

export interface AicHttpLogger {
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What the AIC router knows about a request once it has read its head. */
export interface AicLocals {
  requestId: string;
  agentId?: string;
}

/** The request's id and caller, kept beside its response (set by the router, read by writers). */
export function aicLocals(res: ServerResponse): AicLocals {
  const carrier = res as ServerResponse & { aicLocals?: AicLocals };
  carrier.aicLocals ??= { requestId: "" };
  return carrier.aicLocals;
}

export function createAnswer(logger: AicHttpLogger) {
  return (
    res: ServerResponse,
    result: AicResult<unknown>,
    framing?: HttpFraming,
    headers: Record<string, string> = {},
  ): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const status = httpStatusFor(result, framing);
    const text = resultJson(result);
    const out: Record<string, string | number> = {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
      "cache-control": "no-store",
      "x-request-id": aicLocals(res).requestId,
      ...headers,
    };
    // Every retryable refusal says when to retry (a rate limit its own wait, others a second): a world
    // that is stopping for a reload or not running yet is back within seconds.
    if (result.status === "error" && result.error.retryable && out["retry-after"] === undefined) {
      const retryAfterMs = Number(result.error.details?.retryAfterMs ?? 1000);
      out["retry-after"] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    }
    res.writeHead(status, out);
    res.end(text);
    if (status < 500 && !logger.debug) return;
    const req = (res as ServerResponse & { req?: IncomingMessage }).req;
    const code = result.status === "error" ? ` ${result.error.code}` : "";
    const line = `openclawworld aic: ${req?.method} ${req?.url} -> ${status}${code} agent=${aicLocals(res).agentId ?? "-"} requestId=${aicLocals(res).requestId}`;
    if (status >= 500) logger.error(line);
    else logger.debug?.(line);
  };
}

export type Answer = ReturnType<typeof createAnswer>;
