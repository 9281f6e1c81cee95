// The plugin's two HTTP route handlers. Both answer from whatever surfaces are live when a request
// arrives (the plugin passes a lookup of the process-level host), so they work in whichever plugin
// instance the gateway routes to, and both turn every failure into a JSON answer: a throw escaping
// a handler must never reach the gateway.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { aicError } from "../aic/errors.ts";
import { type HostRule, hostnameOf, isLoopbackName } from "./host-rule.ts";
import { type OwnerLookup, redirectToOwner, redirectUpgradeToOwner } from "./owner-redirect.ts";
import { describe, type RouteLogger, sendJson, sendNotRunning } from "./respond.ts";

/** The AIC HTTP adapter as the routes see it. */
export interface AicHttpSurface {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** The web client + WebSocket adapter as the routes see it. */
export interface WebSurface {
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** The world's Prometheus metrics as the routes see them. */
export interface MetricsSurface {
  readonly contentType: string;
  render(): Promise<string>;
}

/** The surfaces of the running world, or undefined while the world service is not running. */
export type LiveSurfaces = () =>
  | { aicHttp?: AicHttpSurface; web?: WebSurface; metrics?: MetricsSurface }
  | undefined;

export const METRICS_PATH = "/world/metrics";

/**
 * Metrics are for the operator's own scraper on this machine: answered only to a caller connected
 * from a loopback address that did not come through a proxy. They reveal load and who is around
 * (connections, actors per room), which agents and the public are not shown, and the /world prefix
 * is authenticated by the plugin, not by the gateway's operator token (a Prometheus scrape config
 * has no way to present that token only to this path without exposing it to every job). A reverse
 * proxy on the same machine connects from loopback too, so any forwarding header means "not local".
 */
export function isLocalCaller(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers.forwarded || headers["x-forwarded-for"] || headers["x-real-ip"]) return false;
  // A rebound page connects from loopback too; only its Host gives it away.
  if (headers.host !== undefined && !isLoopbackName(hostnameOf(headers.host) ?? "")) return false;
  const address = req.socket?.remoteAddress ?? "";
  return address === "::1" || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

const NOT_RUNNING = "the world service is not running";

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? "/", "http://localhost").pathname;
  } catch {
    return "/";
  }
}

/** A Host this gateway does not answer to (host-rule.ts), in the AIC error shape. */
function misdirected(req: IncomingMessage) {
  return aicError(
    "forbidden",
    `this gateway does not answer to the host "${hostnameOf(req.headers.host ?? "") ?? "(malformed)"}"; an operator may list it in web.allowedHosts`,
  );
}

export function guarded(
  logger: RouteLogger,
  hostAllowed: HostRule,
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    // Agents and browsers see simulation time only: no `Date` header with the host's clock.
    res.sendDate = false;
    try {
      if (!hostAllowed(req)) sendJson(res, 403, misdirected(req));
      else await handler(req, res);
    } catch (error) {
      logger.error(`openclawworld: ${req.method} ${pathOf(req)} failed: ${describe(error)}`);
      if (!res.headersSent) {
        sendJson(res, 500, aicError("internal", "internal error"));
      } else {
        res.destroy();
      }
    }
    return true;
  };
}

const NO_OWNER_ELSEWHERE: OwnerLookup = () => undefined;

/** No world here: sent to the owner when another gateway serves it, else "not running" (retry). */
function notServedHere(req: IncomingMessage, res: ServerResponse, elsewhere: OwnerLookup): void {
  const owner = elsewhere();
  if (owner) redirectToOwner(req, res, owner);
  else sendNotRunning(res, NOT_RUNNING);
}

/** `/aic/v0.1/...`: the Agent Interface Contract (the AIC adapter authenticates agents itself). A
 * cluster standby sends callers to the owner (`elsewhere`, owner-redirect.ts). */
export function aicRouteHandler(
  live: LiveSurfaces,
  logger: RouteLogger,
  hostAllowed: HostRule,
  elsewhere: OwnerLookup = NO_OWNER_ELSEWHERE,
) {
  return guarded(logger, hostAllowed, async (req, res) => {
    const host = live();
    if (!host?.aicHttp) return notServedHere(req, res, elsewhere);
    await host.aicHttp.handle(req, res);
  });
}

/** `/world/...`: the status API (`status` answers it), the web client and its WebSocket. The status
 * and metrics are this gateway's own; the page and its files come from the owner on a standby. */
export function worldRouteHandler(
  live: LiveSurfaces,
  status: () => unknown,
  logger: RouteLogger,
  hostAllowed: HostRule,
  elsewhere: OwnerLookup = NO_OWNER_ELSEWHERE,
) {
  return guarded(logger, hostAllowed, async (req, res) => {
    const path = pathOf(req);
    if (path === "/world/api/status") {
      if (req.method !== "GET" && req.method !== "HEAD") {
        return sendJson(res, 405, { error: "method not allowed" }, { allow: "GET, HEAD" });
      }
      return sendJson(res, 200, status());
    }
    if (path.startsWith("/world/api/")) return sendJson(res, 404, { error: `no such endpoint: ${path}` });
    const host = live();
    if (path === METRICS_PATH) return serveMetrics(req, res, host?.metrics);
    if (!host?.web) return notServedHere(req, res, elsewhere);
    if (!(await host.web.handleHttp(req, res))) sendJson(res, 404, { error: `not found: ${path}` });
  });
}

async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: MetricsSurface | undefined,
): Promise<void> {
  if (!isLocalCaller(req)) {
    return sendJson(res, 403, {
      error: "metrics are served to loopback callers only (not through a proxy)",
    });
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendJson(res, 405, { error: "method not allowed" }, { allow: "GET, HEAD" });
  }
  if (!metrics) return sendNotRunning(res, NOT_RUNNING);
  const body = await metrics.render();
  res.writeHead(200, {
    "content-type": metrics.contentType,
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

export function worldUpgradeHandler(
  live: LiveSurfaces,
  logger: RouteLogger,
  hostAllowed: HostRule,
  elsewhere: OwnerLookup = NO_OWNER_ELSEWHERE,
) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    try {
      if (!hostAllowed(req)) {
        socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      const host = live();
      if (!host?.web) {
        const owner = elsewhere();
        if (owner) redirectUpgradeToOwner(req, socket, owner);
        else
          socket.end(
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
          );
        return;
      }
      host.web.handleUpgrade(req, socket, head);
    } catch (error) {
      logger.error(`openclawworld: WebSocket upgrade failed: ${describe(error)}`);
      socket.destroy();
    }
  };
}
