// The replay page under /openclawworld/replay, registered with auth "plugin": the page
// itself holds no data (the built client's replay.html); its reads under /api need the key of an
// operator link (x-ocw-replay-key), which only the gateway-token holder is handed (POST
// /openclawworld/admin/replay/link, `openclaw ocw replay link`). Agents and visitors never get one.
//   GET /openclawworld/replay/                 the page
//   GET /openclawworld/replay/api/             rooms, timelines (keyframes), runs, checkpoints, kept
//   GET /openclawworld/replay/api/frame?...    a room at a tick (segment, tick, room)
//   GET /openclawworld/replay/api/markers?...  a stretch's markers (segment & from/to, lastMinutes,
//                                              run or checkpoint; room)
//   GET /openclawworld/replay/api/turns?...    the agents with turns in a stretch; one's turns (agent)
//   GET /openclawworld/replay/api/export?...   the stretch as one file (replay-export.ts)
//   POST /openclawworld/replay/api/open        open such a file (an upload): every read then takes
//                                              ?file=<id> to read it instead of this world's history
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { BodyError } from "./aic/body-reader.ts";
import type { HostRule } from "./host-rule.ts";
import type { WireEntity, WireObject, WireRoom } from "./humans/protocol.ts";
import { REVALIDATE, SECURITY_HEADERS, sendFile } from "./humans/static-files.ts";
import { DEFAULT_WEB_DIST } from "./humans/static-routes.ts";
import { readJson, refusal } from "./operator-routes.ts";
import { type RouteLogger, sendJson, sendNotRunning } from "./respond.ts";
import { guarded } from "./routes.ts";

export const REPLAY_ROUTE = "/openclawworld/replay";

/** What a timeline marker marks. */
export type MarkerKind = "chat" | "join" | "leave" | "portal" | "object" | "turn" | "error";

export interface Marker {
  tick: number;
  kind: MarkerKind;
  roomId: string;
  /** The entity it is about (who spoke, joined, opened, thought, was refused). */
  who?: string;
  text: string;
  /** The same in words, with names ("Bo opened the Town Hall door", "Mara said ..."). */
  words?: string;
}

export interface Frame {
  segment: number;
  tick: number;
  time: number;
  room: WireRoom;
  entities: WireEntity[];
  objects: WireObject[];
}

export const REPLAY_KEY_HEADER = "x-ocw-replay-key";

/** What the page's API reaches: the plugin's replay desk behind an operator link's key. */
export interface ReplayDoor {
  validKey(key: string | undefined): boolean;
  read(route: string, query: URLSearchParams): unknown;
  /** Opens an exported stretch (an upload): its `file` id for the reads. */
  open(document: unknown): Promise<unknown>;
}

export function replayRouteHandler(
  live: () => ReplayDoor | undefined,
  logger: RouteLogger,
  hostAllowed: HostRule,
  webDist: string = DEFAULT_WEB_DIST,
) {
  return guarded(logger, hostAllowed, async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = url.pathname.slice(REPLAY_ROUTE.length) || "/";
    const upload = req.method === "POST" && route === "/api/open";
    if (req.method !== "GET" && req.method !== "HEAD" && !upload) {
      sendJson(res, 405, {
        status: "error",
        error: { code: "bad_request", message: "GET only (and POST /api/open)" },
      });
      return;
    }
    if (route === "/" || route === "/index.html") {
      if (await sendFile(req, res, path.join(webDist, "replay.html"), REVALIDATE)) return;
      res.writeHead(503, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
      res.end("The web client is not built yet: run `npm run build:web` and reload.");
      return;
    }
    if (!route.startsWith("/api")) {
      sendJson(res, 404, { status: "error", error: { code: "not_found", message: `no page ${route}` } });
      return;
    }
    const door = live();
    if (!door) {
      sendNotRunning(res, "the world is not running");
      return;
    }
    const key = req.headers[REPLAY_KEY_HEADER];
    if (!door.validKey(typeof key === "string" ? key : undefined)) {
      sendJson(res, 401, {
        status: "error",
        error: {
          code: "unauthorized",
          message: "the replay is for the operator: open the link `openclaw ocw replay link` gives",
        },
      });
      return;
    }
    try {
      const data = upload
        ? await door.open(await readJson(req))
        : door.read(route.slice("/api".length) || "/", url.searchParams);
      sendJson(res, 200, { status: "ok", data });
    } catch (error) {
      if (error instanceof BodyError) {
        res.destroy();
        return;
      }
      const refused = refusal(error);
      if (!refused) throw error;
      sendJson(res, refused.status, {
        status: "error",
        error: { code: refused.code, message: refused.message },
      });
    }
  });
}
