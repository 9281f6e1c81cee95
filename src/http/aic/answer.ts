// Writes one AIC answer: the result wrapper as JSON, its HTTP status from the one mapping in
// src/aic/errors.ts, the request id, Retry-After for rate limits, and a log line for failures.
import type { Response } from "express";
import { type AicResult, type HttpFraming, httpStatusFor } from "../../aic/errors.ts";

export interface AicHttpLogger {
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What the AIC routes keep on `res.locals`. */
export interface AicLocals {
  requestId: string;
  agentId?: string;
}

export function aicLocals(res: Response): AicLocals {
  return res.locals as AicLocals;
}

export function createAnswer(logger: AicHttpLogger) {
  return (
    res: Response,
    result: AicResult<unknown>,
    framing?: HttpFraming,
    headers: Record<string, string> = {},
  ): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const status = httpStatusFor(result, framing);
    const text = JSON.stringify(result);
    const out: Record<string, string | number> = {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
      "cache-control": "no-store",
      "x-request-id": aicLocals(res).requestId,
      ...headers,
    };
    if (result.status === "error" && result.error.code === "rate_limited") {
      const retryAfterMs = Number(result.error.details?.retryAfterMs ?? 1000);
      out["retry-after"] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    }
    res.writeHead(status, out);
    res.end(text);
    if (status < 500 && !logger.debug) return;
    const code = result.status === "error" ? ` ${result.error.code}` : "";
    const line = `openclawworld aic: ${res.req.method} ${res.req.originalUrl} -> ${status}${code} agent=${aicLocals(res).agentId ?? "-"} requestId=${aicLocals(res).requestId}`;
    if (status >= 500) logger.error(line);
    else logger.debug?.(line);
  };
}

export type Answer = ReturnType<typeof createAnswer>;
