// The follow page under /openclawworld/follow (docs/follow.md), registered with auth "plugin": the
// page itself holds no data (the built client's follow.html); its reads under /api answer for one
// agent only, the one its caller may follow:
//   Authorization: Bearer <the agent's own AIC token>   (the AIC's token directory, asked as is), or
//   x-ocw-follow-key: <a follow link's key>              (follow-link.ts: one agent, expires, revocable)
// `?agentId=` defaults to that agent; another agent's id is 403. No key and no token, or one this
// gateway does not know, is 401.
//   GET /openclawworld/follow/                the page
//   GET /openclawworld/follow/api/view        the agent now: its room as the live page draws it (camera
//                                             on it), its memory and reflections, its budgets
//   GET /openclawworld/follow/api/turns       its turns, newest first (?before=<seq>&limit=)
//   GET /openclawworld/follow/api/events      what it perceived in its room (?cursor=, from `next`)
//   GET /openclawworld/follow/api/stream      SSE: `actors`, `events` and `turn` as they happen
//   GET /openclawworld/follow/api/watch       "watch again": its last minutes (?lastMinutes=, default 5,
//                                             at most 20), what it could perceive of them, in words
//   GET /openclawworld/follow/api/watch/frame the room it was in at a tick (?segment=&tick=), re-simulated
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { AgentTurn } from "../aic/reads.ts";
import { bearerToken } from "./aic/aic-app.ts";
import type { HostRule } from "./host-rule.ts";
import { REVALIDATE, SECURITY_HEADERS, sendFile } from "./humans/static-files.ts";
import { DEFAULT_WEB_DIST } from "./humans/static-routes.ts";
import { refusal } from "./operator-routes.ts";
import { type RouteLogger, sendJson, sendNotRunning } from "./respond.ts";
import { guarded } from "./routes.ts";

export const FOLLOW_ROUTE = "/openclawworld/follow";
export const FOLLOW_KEY_HEADER = "x-ocw-follow-key";
/** The API's reads, by route under /api. */
export const FOLLOW_READS = ["/view", "/turns", "/events", "/watch", "/watch/frame"] as const;
/** An SSE comment this often keeps proxies from closing a quiet stream. */
const STREAM_HEARTBEAT_MS = 15_000;
/** A stream whose reader leaves this much unsent is cut (it reconnects and reads `view` again). */
const STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;

/** An event the agent perceived, in words (`words`) and as the world's payload. */
export interface FollowedEvent {
  seq: number;
  tick: number;
  tsMs: number;
  type: string;
  words: string;
  payload: Record<string, unknown>;
}

/** One of its turns (a request, a blocked tool, a resident's turn), in words; `seq` once it is stored
 * (a turn sent by the stream has none yet). */
export interface FollowedTurn extends AgentTurn {
  seq?: number;
  words: string;
}

/** Where a stream's happenings go; `end` when the world stops. */
export interface FollowSink {
  send(event: string, data: unknown): void;
  end(): void;
}

/** What the page's API reaches: the plugin's follow desk. */
export interface FollowDoor {
  /** The agent an AIC bearer token stands for (the AIC's own token directory). */
  agentOfToken(token: string): string | undefined;
  /** The agent a follow link's key is scoped to, while the link lives. */
  agentOfKey(key: string): string | undefined;
  read(agentId: string, route: (typeof FOLLOW_READS)[number], query: URLSearchParams): unknown;
  /** Starts telling `sink` what the agent perceives and does (from a later event-loop turn on);
   * returns the stop, or undefined when the agent has as many streams open as it may. */
  stream(agentId: string, sink: FollowSink): (() => void) | undefined;
}

type Who = { agentId: string } | { status: 401 | 403; message: string };

/** Who the caller may follow: the token's or the link's agent, and only it. */
export function followerOf(door: FollowDoor, req: IncomingMessage, query: URLSearchParams): Who {
  const authorization = req.headers.authorization;
  const keyHeader = req.headers[FOLLOW_KEY_HEADER];
  const key = typeof keyHeader === "string" ? keyHeader : undefined;
  let agentId: string | undefined;
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    agentId = token ? door.agentOfToken(token) : undefined;
    if (!agentId)
      return { status: 401, message: token ? "unknown bearer token" : "malformed Authorization header" };
  } else if (key) {
    agentId = door.agentOfKey(key);
    if (!agentId) return { status: 401, message: "this follow link is unknown, expired or revoked" };
  } else {
    return {
      status: 401,
      message: "send the agent's AIC token (Authorization: Bearer) or a follow link's key (x-ocw-follow-key)",
    };
  }
  const asked = query.get("agentId");
  if (asked !== null && asked !== agentId)
    return { status: 403, message: `this token or link follows ${agentId} only` };
  return { agentId };
}

export function followRouteHandler(
  live: () => FollowDoor | undefined,
  logger: RouteLogger,
  hostAllowed: HostRule,
  webDist: string = DEFAULT_WEB_DIST,
) {
  return guarded(logger, hostAllowed, async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = url.pathname.slice(FOLLOW_ROUTE.length) || "/";
    if (req.method !== "GET" && req.method !== "HEAD") {
      sendJson(res, 405, { status: "error", error: { code: "bad_request", message: "GET only" } });
      return;
    }
    if (route === "/" || route === "/index.html") {
      if (await sendFile(req, res, path.join(webDist, "follow.html"), REVALIDATE)) return;
      res.writeHead(503, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
      res.end("The web client is not built yet: run `npm run build:web` and reload.");
      return;
    }
    const read = route.startsWith("/api/") ? route.slice("/api".length) : undefined;
    const known = read === "/stream" || FOLLOW_READS.some((r) => r === read);
    if (!read || !known) {
      sendJson(res, 404, { status: "error", error: { code: "not_found", message: `no page ${route}` } });
      return;
    }
    const door = live();
    if (!door) {
      sendNotRunning(res, "the world is not running");
      return;
    }
    const who = followerOf(door, req, url.searchParams);
    if (!("agentId" in who)) {
      sendJson(
        res,
        who.status,
        {
          status: "error",
          error: { code: who.status === 401 ? "unauthorized" : "forbidden", message: who.message },
        },
        who.status === 401 ? { "www-authenticate": 'Bearer realm="follow"' } : {},
      );
      return;
    }
    if (read === "/stream") {
      openStream(door, who.agentId, req, res);
      return;
    }
    try {
      const data = door.read(who.agentId, read as (typeof FOLLOW_READS)[number], url.searchParams);
      sendJson(res, 200, { status: "ok", data });
    } catch (error) {
      const refused = refusal(error);
      if (!refused) throw error;
      sendJson(res, refused.status, {
        status: "error",
        error: { code: refused.code, message: refused.message },
      });
    }
  });
}

/** The SSE stream: one `event:` per happening, its data JSON; a comment now and then. */
function openStream(door: FollowDoor, agentId: string, req: IncomingMessage, res: ServerResponse): void {
  let stop: (() => void) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const end = () => {
    clearInterval(heartbeat);
    stop?.();
    stop = undefined;
    if (!res.writableEnded) res.end();
  };
  stop = door.stream(agentId, {
    send: (event, data) => {
      if (res.writableEnded) return;
      if (res.writableLength > STREAM_MAX_BUFFERED_BYTES) return end();
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end,
  });
  if (!stop) {
    sendJson(
      res,
      429,
      {
        status: "error",
        error: { code: "rate_limited", message: `${agentId} has as many follow streams open as it may` },
      },
      { "retry-after": "5" },
    );
    return;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
  });
  res.write(": following\n\n");
  heartbeat = setInterval(() => res.write(": still here\n\n"), STREAM_HEARTBEAT_MS);
  heartbeat.unref();
  req.on("close", end);
  res.on("close", end);
}
