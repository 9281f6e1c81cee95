// The operator's admin surface under /openclawworld/admin, registered with auth "gateway": only a
// caller holding the gateway's operator token gets here (agents never have it). Save/load and
// checkpoints (seed 001), plus the status agents are not shown (origin, wall-clock health, store).
//   GET  /openclawworld/admin/status                       (also while the service waits for its store)
//   GET  /openclawworld/admin/snapshot                     the live world's snapshot: the saved document
//                                                          itself (format, time, ...), what /load takes back
//   POST /openclawworld/admin/save                         save a snapshot now (compacts the log)
//   GET  /openclawworld/admin/checkpoints                  the manifest: label, tick, time, hash
//   POST /openclawworld/admin/checkpoints  {"label"}       save a named checkpoint
//   POST /openclawworld/admin/checkpoints/<label>/restore  restore one
//   POST /openclawworld/admin/load  <snapshot JSON>        restore a snapshot (same world only)
//   GET  /openclawworld/admin/runs                         run manifests (seed 001 record_run)
//   POST /openclawworld/admin/runs {"label"}               start a bounded run at the current tick
//   GET  /openclawworld/admin/runs/<id>                    one run's manifest
//   POST /openclawworld/admin/runs/<id>/label {"label"}    relabel it
//   POST /openclawworld/admin/runs/<id>/close              end it at the current tick
//   GET  /openclawworld/admin/notes                        every notice board's notes
//   POST /openclawworld/admin/notes/remove {"objectId","noteId"}  take a note down
//   GET  /openclawworld/admin/access[/<agentId>]            seed 001's api_access: base URL, headers,
//                                                          room and endpoints of the AIC agents
//   GET  /openclawworld/admin/wake-targets                  AIC agents the world wakes elsewhere
//   POST /openclawworld/admin/wake-targets/<agentId> {...}  set one (docs/wake-targets.md)
//   POST /openclawworld/admin/wake-targets/<agentId>/remove
//   GET  /openclawworld/admin/replay[/frame|/markers|/stretch|/turns]  the replay desk (the
//                                                          query as replay-routes.ts says)
//   POST /openclawworld/admin/replay/link                  a link to the replay page (its own key)
//   GET  /openclawworld/admin/replay/export?...            a stretch as one file (replay-export.ts)
//   POST /openclawworld/admin/replay/open                  open such a file here (body: the file);
//                                                          its reads then take ?file=<id>
//   POST /openclawworld/admin/follow/link {"agentId","hours"?}  a link to one agent's follow page
//   GET  /openclawworld/admin/follow/links[?agentId=]      the live follow links (never their keys)
//   POST /openclawworld/admin/follow/revoke {"agentId","linkId"?}  revoke an agent's links (or one)
//   POST /openclawworld/admin/world/reload                  load the world directory again into the
//                                                          running world (refused: 409, file and line)
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyError, type BodyErrorKind, readJsonBody } from "./aic/body-reader.ts";
import { describe, type RouteLogger, sendJson, sendNotRunning } from "./respond.ts";

export const OPERATOR_ROUTE = "/openclawworld/admin";

/** What the operator can do to the running world (the plugin supplies it from the runtime). A
 * refusal is thrown as an error carrying `status` (400, 404 or 409) and `code`. */
export interface OperatorActions {
  /** A promise when part of it is read over the network (the cluster directory). */
  status(): unknown;
  snapshot(): unknown;
  save(): unknown;
  listCheckpoints(): unknown;
  createCheckpoint(label: unknown): unknown;
  restoreCheckpoint(label: string): unknown;
  load(snapshot: unknown): unknown;
  notes(): unknown;
  removeNote(body: unknown): Promise<unknown>;
  /** `origin`: where the operator's request came in (http://<Host>), the agents' base URL unless
   * the config names a public one. */
  access(origin: string, agentId?: string): unknown;
  listRuns(): unknown;
  startRun(label: unknown): unknown;
  getRun(id: string): unknown;
  labelRun(id: string, label: unknown): unknown;
  closeRun(id: string): unknown;
  wakeTargets(): unknown;
  setWakeTarget(agentId: string, body: unknown): Promise<unknown>;
  removeWakeTarget(agentId: string): Promise<unknown>;
  /** The replay desk's reads (`/replay`, `/replay/frame`, `/replay/markers`, `/replay/stretch`, `/replay/turns`). */
  replay(route: string, query: URLSearchParams): unknown;
  /** Opens an exported stretch (its document) for replay: its `file` id for the reads. */
  replayOpen(document: unknown, origin: string): Promise<unknown>;
  /** A link to the replay page carrying a key of its own (replay-routes.ts). */
  replayLink(origin: string): unknown;
  /** A link to one agent's follow page (follow-link.ts), for `hours` (default 24). */
  followLink(origin: string, body: unknown): unknown;
  followLinks(agentId: string | undefined): unknown;
  followRevoke(body: unknown): unknown;
  /** Loads the world directory again into the running world; a refusal is thrown (409, details). */
  reloadWorld(): Promise<unknown>;
}

/** A refusal with its HTTP status (the runtime's OperatorError, or this adapter's own). */
class RequestRefused extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function refusal(
  error: unknown,
): { status: number; code: string; message: string; details?: unknown } | undefined {
  if (error instanceof URIError)
    return { status: 400, code: "bad_request", message: "malformed checkpoint label" };
  if (!(error instanceof Error)) return undefined;
  const { status, code, details } = error as Error & { status?: unknown; code?: unknown; details?: unknown };
  if (typeof status === "number" && status >= 400 && status < 500 && typeof code === "string")
    return { status, code, message: error.message, ...(details === undefined ? {} : { details }) };
  return undefined;
}
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** A snapshot of up to 64 MiB must arrive within this; half a body is not held open longer. */
const BODY_DEADLINE_MS = 60_000;

const BODY_REFUSALS: Record<Exclude<BodyErrorKind, "aborted">, [number, string, string]> = {
  too_large: [413, "bad_request", "body too large"],
  malformed: [400, "bad_request", "body is not JSON"],
  not_utf8: [400, "bad_request", "body is not valid UTF-8"],
  timeout: [408, "timeout", `the body did not arrive within ${BODY_DEADLINE_MS / 1000} s`],
};

/** The body as JSON (the AIC reader's rules: size, UTF-8, deadline), its failures as refusals; the
 * replay page's upload reads with it too. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  try {
    return (await readJsonBody(req, { limitBytes: MAX_BODY_BYTES, deadlineMs: BODY_DEADLINE_MS })).value;
  } catch (error) {
    if (!(error instanceof BodyError) || error.kind === "aborted") throw error;
    const [status, code, message] = BODY_REFUSALS[error.kind];
    throw new RequestRefused(status, code, message);
  }
}

/** Where the operator's request came in, as an origin; a Host that is not a plain host[:port] is
 * not put into URLs. */
function requestOrigin(req: IncomingMessage): string {
  const host = req.headers.host ?? "";
  return /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)
    ? `http://${host}`
    : "http://127.0.0.1";
}

/** `notRunning` says why the world is not running (e.g. its store is locked and the service is
 * retrying): the 503 answers carry it, and GET /status answers it as the status. */
export function operatorRouteHandler(
  live: () => OperatorActions | undefined,
  logger: RouteLogger,
  notRunning: () => Record<string, unknown> | undefined = () => undefined,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const method = req.method ?? "GET";
    let route: string;
    let query = new URLSearchParams();
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      route = url.pathname.slice(OPERATOR_ROUTE.length) || "/";
      query = url.searchParams;
    } catch {
      route = "/";
    }
    try {
      const ops = live();
      if (!ops) {
        const why = notRunning();
        if (method === "GET" && route === "/status" && why) {
          sendJson(res, 200, { status: "ok", data: { running: false, ...why } });
          return true;
        }
        sendNotRunning(res, "the world is not running", why);
        return true;
      }
      const restore = /^\/checkpoints\/([^/]+)\/restore$/.exec(route);
      const run = /^\/runs\/([^/]+)(?:\/(label|close))?$/.exec(route);
      const access = /^\/access(?:\/([^/]+))?$/.exec(route);
      const wake = /^\/wake-targets\/([^/]+)(\/remove)?$/.exec(route);
      const replay = /^\/replay(\/[a-z]*)?$/.exec(route);
      let data: unknown;
      if (method === "GET" && route === "/snapshot") {
        // The document itself, not wrapped in {status, data}: seed 001's GET /snapshot, and the
        // bytes POST /load takes back as they are.
        sendJson(res, 200, ops.snapshot());
        return true;
      }
      if (method === "GET" && route === "/status") data = await ops.status();
      else if (method === "GET" && access)
        data = ops.access(
          requestOrigin(req),
          access[1] === undefined ? undefined : decodeURIComponent(access[1]),
        );
      else if (method === "POST" && route === "/save") data = ops.save();
      else if (method === "GET" && route === "/checkpoints") data = { checkpoints: ops.listCheckpoints() };
      else if (method === "POST" && route === "/checkpoints") {
        const body = (await readJson(req)) as { label?: unknown } | undefined;
        data = ops.createCheckpoint(body?.label);
      } else if (method === "POST" && restore) data = ops.restoreCheckpoint(decodeURIComponent(restore[1]!));
      else if (method === "POST" && route === "/load") data = ops.load(await readJson(req));
      else if (method === "GET" && route === "/runs") data = { runs: ops.listRuns() };
      else if (method === "POST" && route === "/runs") {
        const body = (await readJson(req)) as { label?: unknown } | undefined;
        data = ops.startRun(body?.label);
      } else if (method === "GET" && run && !run[2]) data = ops.getRun(decodeURIComponent(run[1]!));
      else if (method === "POST" && run?.[2] === "label") {
        const body = (await readJson(req)) as { label?: unknown } | undefined;
        data = ops.labelRun(decodeURIComponent(run[1]!), body?.label);
      } else if (method === "POST" && run?.[2] === "close") data = ops.closeRun(decodeURIComponent(run[1]!));
      else if (method === "GET" && route === "/notes") data = { boards: ops.notes() };
      else if (method === "GET" && route === "/wake-targets") data = ops.wakeTargets();
      else if (method === "POST" && wake?.[2])
        data = await ops.removeWakeTarget(decodeURIComponent(wake[1]!));
      else if (method === "POST" && wake)
        data = await ops.setWakeTarget(decodeURIComponent(wake[1]!), await readJson(req));
      else if (method === "POST" && route === "/replay/link") data = ops.replayLink(requestOrigin(req));
      else if (method === "POST" && route === "/replay/open")
        data = await ops.replayOpen(await readJson(req), requestOrigin(req));
      else if (method === "GET" && replay) data = ops.replay(replay[1] ?? "/", query);
      else if (method === "POST" && route === "/follow/link")
        data = ops.followLink(requestOrigin(req), await readJson(req));
      else if (method === "GET" && route === "/follow/links")
        data = ops.followLinks(query.get("agentId") ?? undefined);
      else if (method === "POST" && route === "/follow/revoke") data = ops.followRevoke(await readJson(req));
      else if (method === "POST" && route === "/world/reload") data = await ops.reloadWorld();
      else if (method === "POST" && route === "/notes/remove")
        data = await ops.removeNote(await readJson(req));
      else {
        sendJson(res, 404, {
          status: "error",
          error: { code: "not_found", message: `no operator endpoint ${method} ${route}` },
        });
        return true;
      }
      if (method === "POST") logger.info(`openclawworld: operator ${route} done`);
      sendJson(res, 200, { status: "ok", data });
    } catch (error) {
      const refused = refusal(error);
      if (error instanceof BodyError) {
        // The caller went away mid-body: nobody to answer.
        res.destroy();
      } else if (refused) {
        // A body refused before its end leaves the rest unread: the connection cannot carry another request.
        const unread = refused.status === 408 || refused.status === 413;
        sendJson(
          res,
          refused.status,
          {
            status: "error",
            error: {
              code: refused.code,
              message: refused.message,
              ...(refused.details === undefined ? {} : { details: refused.details }),
            },
          },
          unread ? { connection: "close" } : {},
        );
      } else {
        logger.error(`openclawworld: operator ${method} ${route} failed: ${describe(error)}`);
        if (!res.headersSent)
          sendJson(res, 500, { status: "error", error: { code: "internal", message: "internal error" } });
        else res.destroy();
      }
    }
    return true;
  };
}
