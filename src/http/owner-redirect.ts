// Reaching a cluster room's owner (docs/cluster.md): a gateway standing by answers every door with a
// redirect to the gateway that serves the world now, never a proxy (clients go to the room's
// process, as in Colyseus, Nakama and Agones: one hop, no second copy of every frame, and a standby
// that dies takes nobody's connection with it). The answer is HTTP 307 to the owner's same path and
// query (307 keeps the method and body: a POST stays a POST), and for AIC an ordinary contract
// error: `room_not_ready` (retryable) with the owner in `details`, so a client that does not follow
// redirects still gets a valid Result and knows where to go (src/aic/owner-elsewhere.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { AicResult } from "../aic/errors.ts";
import { type OwnerRef, ownerElsewhereResult } from "../aic/owner-elsewhere.ts";
import { sendJson } from "./respond.ts";

export type { OwnerLookup, OwnerRef } from "../aic/owner-elsewhere.ts";

/** The owner's URL for the same path and query. */
export function ownerLocation(owner: OwnerRef, requestUrl: string | undefined): string {
  let pathAndQuery = "/";
  try {
    const url = new URL(requestUrl ?? "/", "http://localhost");
    pathAndQuery = `${url.pathname}${url.search}`;
  } catch {
    // A malformed request line: send the caller to the owner's root of the same door.
  }
  return `${owner.baseUrl.replace(/\/+$/, "")}${pathAndQuery}`;
}

/** HTTP 307 to the owner's same path, with the AIC error as the body (`result`: why the caller is
 * sent there; by default, this gateway stands by for the owner). */
export function redirectToOwner(
  req: IncomingMessage,
  res: ServerResponse,
  owner: OwnerRef,
  result: (location: string) => AicResult<never> = (location) => ownerElsewhereResult(owner, location),
): void {
  const location = ownerLocation(owner, req.url);
  // sendJson says no-store: where the world is changes at every failover.
  sendJson(res, 307, result(location), { location });
}

/** A WebSocket upgrade answered with the same 307 (a browser's WebSocket does not follow it and
 * fails; the web client then reloads its page, which the page route redirects). */
export function redirectUpgradeToOwner(req: IncomingMessage, socket: Duplex, owner: OwnerRef): void {
  const location = ownerLocation(owner, req.url);
  socket.end(
    `HTTP/1.1 307 Temporary Redirect\r\nLocation: ${location}\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
  );
}
