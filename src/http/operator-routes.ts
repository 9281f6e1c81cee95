// The operator's admin surface under /openclawworld/admin, registered with auth "gateway": only a
// caller holding the gateway's operator token gets here (agents never have it). Save/load and
// checkpoints (seed 001), plus the status agents are not shown (origin, wall-clock health, store).
//   GET  /openclawworld/admin/status
//   GET  /openclawworld/admin/snapshot                     the live world's snapshot (JSON)
//   POST /openclawworld/admin/save                         save a snapshot now (compacts the log)
//   GET  /openclawworld/admin/checkpoints                  the manifest: label, tick, time, hash
//   POST /openclawworld/admin/checkpoints  {"label"}       save a named checkpoint
//   POST /openclawworld/admin/checkpoints/<label>/restore  restore one
//   POST /openclawworld/admin/load  <snapshot JSON>        restore a snapshot (same world only)
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createCheckpoint,
  currentSnapshot,
  listCheckpoints,
  loadSnapshot,
  OperatorError,
  operatorStatus,
  restoreCheckpoint,
  saveNow,
} from "../runtime/operator.ts";
import { activeHost } from "../runtime/singleton.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import { sendJson } from "./respond.ts";

export const OPERATOR_ROUTE = "/openclawworld/admin";
const MAX_BODY_BYTES = 64 * 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new OperatorError(400, "bad_request", "body too large");
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OperatorError(400, "bad_request", "body is not JSON");
  }
}

export function operatorRouteHandler(logger: RuntimeLogger) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const method = req.method ?? "GET";
    let route: string;
    try {
      route = new URL(req.url ?? "/", "http://localhost").pathname.slice(OPERATOR_ROUTE.length) || "/";
    } catch {
      route = "/";
    }
    try {
      const host = activeHost();
      if (!host) {
        sendJson(res, 503, {
          status: "error",
          error: { code: "room_not_ready", message: "the world is not running" },
        });
        return true;
      }
      const restore = /^\/checkpoints\/([^/]+)\/restore$/.exec(route);
      let data: unknown;
      if (method === "GET" && route === "/status") data = operatorStatus(host);
      else if (method === "GET" && route === "/snapshot") data = currentSnapshot(host);
      else if (method === "POST" && route === "/save") data = saveNow(host);
      else if (method === "GET" && route === "/checkpoints") data = { checkpoints: listCheckpoints(host) };
      else if (method === "POST" && route === "/checkpoints") {
        const body = (await readJson(req)) as { label?: unknown } | undefined;
        data = createCheckpoint(host, body?.label);
      } else if (method === "POST" && restore)
        data = restoreCheckpoint(host, decodeURIComponent(restore[1]!));
      else if (method === "POST" && route === "/load") data = loadSnapshot(host, await readJson(req));
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
      if (error instanceof OperatorError) {
        sendJson(res, error.status, { status: "error", error: { code: error.code, message: error.message } });
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
