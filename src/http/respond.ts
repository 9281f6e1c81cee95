// What every route of this adapter shares: the JSON answer, the logger it reports failures to, and
// how a failure is described in that log.
import type { ServerResponse } from "node:http";

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
