// What every route of this adapter shares: the JSON answer, the logger it reports failures to, and
// how a failure is described in that log.
import type { ServerResponse } from "node:http";
import { aicError } from "../aic/errors.ts";

export interface RouteLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A thrown value as log text. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...headers,
  });
  res.end(text);
}

/** Seconds a caller waits before trying again while the world is not running (a reload, a locked store). */
const NOT_RUNNING_RETRY_SEC = 1;

/** No world to answer (it is stopping, reloading or not yet open): a typed, retryable 503 with
 * `Retry-After`, the same from every route. */
export function sendNotRunning(
  res: ServerResponse,
  message: string,
  details?: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  sendJson(res, 503, aicError("room_not_ready", message, details), {
    "retry-after": String(NOT_RUNNING_RETRY_SEC),
    ...headers,
  });
}
