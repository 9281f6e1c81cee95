// The AIC v0.1 HTTP adapter: express 5 framing around AicService. Auth (per-agent bearer token),
// request ids, body limits, status mapping (one table in src/aic/errors.ts), long-poll abort on
// disconnect, SSE (PRD 9.3) and the generated OpenAPI document. Every answer is the result wrapper.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import { buildOpenApi, serializeDocument } from "../aic/documents.ts";
import { type AicResult, aicError, type HttpFraming, httpStatusFor } from "../aic/errors.ts";
import type { AicService, CallOptions } from "../aic/service.ts";

export interface AicHttpLogger {
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface AicHttpDeps {
  service: AicService;
  /** Bearer token -> agentId, undefined when unknown. */
  tokens: (token: string) => string | undefined;
  logger: AicHttpLogger;
  /** SSE comment heartbeat interval; default 10 s (PRD 9.3). */
  sseHeartbeatMs?: number;
}

export interface AicHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

export const AIC_BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** The longest a stream read parks before looping (keeps each read bounded). */
const SSE_READ_WAIT_MS = 25_000;

type EndpointCall = (
  service: AicService,
  caller: string,
  body: unknown,
  opts: CallOptions,
) => Promise<AicResult<unknown>>;

const ENDPOINT_CALLS: Record<string, EndpointCall> = {
  observe: (s, c, b, o) => s.observe(c, b, o),
  moveTo: (s, c, b, o) => s.moveTo(c, b, o),
  interact: (s, c, b, o) => s.interact(c, b, o),
  chatSend: (s, c, b, o) => s.chatSend(c, b, o),
  chatObserve: (s, c, b, o) => s.chatObserve(c, b, o),
  pollEvents: (s, c, b, o) => s.pollEvents(c, b, o),
  join: (s, c, b, o) => s.join(c, b, o),
  leave: (s, c, b, o) => s.leave(c, b, o),
};

interface Locals {
  requestId: string;
  agentId?: string;
}

function locals(res: Response): Locals {
  return res.locals as Locals;
}

class BodyError extends Error {
  readonly type: string;
  readonly status: number;
  constructor(type: string, status: number, message: string) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

/** A lean JSON body reader (the hot path): 64 KB cap checked on Content-Length and while streaming,
 * UTF-8 only, JSON.parse. Errors carry body-parser's `type` names for the error handler. */
function readJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > AIC_BODY_LIMIT_BYTES) {
    next(new BodyError("entity.too.large", 413, "request entity too large"));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  const fail = (error: BodyError) => {
    if (failed) return;
    failed = true;
    req.off("data", onData);
    req.off("end", onEnd);
    req.resume();
    next(error);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > AIC_BODY_LIMIT_BYTES) fail(new BodyError("entity.too.large", 413, "request entity too large"));
    else chunks.push(chunk);
  };
  const onEnd = () => {
    if (failed) return;
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    if (text.length === 0) {
      req.body = undefined;
      next();
      return;
    }
    try {
      req.body = JSON.parse(text);
    } catch {
      failed = true;
      next(new BodyError("entity.parse.failed", 400, "malformed JSON"));
      return;
    }
    next();
  };
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", () => fail(new BodyError("request.aborted", 400, "request aborted")));
}

export function createAicHttpHandler(deps: AicHttpDeps): AicHttpHandler {
  const { service, tokens, logger } = deps;
  const heartbeatMs = Math.max(10, deps.sseHeartbeatMs ?? 10_000);
  const openApiText = serializeDocument(buildOpenApi());
  /** Parked long-polls and open streams, aborted by close(). */
  const active = new Set<AbortController>();
  let closed = false;

  const send = (
    res: Response,
    result: AicResult<unknown>,
    framing?: HttpFraming,
    headers: Record<string, string> = {},
  ) => {
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
      "x-request-id": locals(res).requestId,
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
    const line = `openclawworld aic: ${res.req.method} ${res.req.originalUrl} -> ${status}${code} agent=${locals(res).agentId ?? "-"} requestId=${locals(res).requestId}`;
    if (status >= 500) logger.error(line);
    else logger.debug?.(line);
  };

  /** An AbortSignal that fires when the client goes away or the handler closes. */
  const abortOnDisconnect = (res: Response): { signal: AbortSignal; release(): void } => {
    const controller = new AbortController();
    active.add(controller);
    const onClose = () => {
      if (!res.writableFinished) controller.abort();
    };
    res.on("close", onClose);
    return {
      signal: controller.signal,
      release: () => {
        active.delete(controller);
        res.off("close", onClose);
      },
    };
  };

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  const router = express.Router({ caseSensitive: true, strict: false });

  router.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.get("x-request-id");
    locals(res).requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    next();
  });

  const authenticate = (req: Request, res: Response, next: NextFunction) => {
    const header = req.get("authorization") ?? "";
    const match = /^Bearer[ ]+([^\s]{1,512})\s*$/i.exec(header);
    const agentId = match?.[1] ? tokens(match[1]) : undefined;
    if (!agentId) {
      send(
        res,
        aicError("unauthorized", match ? "unknown bearer token" : "missing bearer token"),
        undefined,
        {
          "www-authenticate": 'Bearer realm="aic"',
        },
      );
      return;
    }
    locals(res).agentId = agentId;
    next();
  };

  const parseJson = readJsonBody;

  router.get("/openapi.json", (_req: Request, res: Response) => {
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(openApiText),
      "cache-control": "no-cache",
      "x-request-id": locals(res).requestId,
    });
    res.end(openApiText);
  });
  router.all("/openapi.json", methodNotAllowed("GET"));

  // One parameterised route (fewer layers to match than one route per endpoint).
  router.post("/:endpoint", (req: Request, res: Response, next: NextFunction) => {
    if (Object.hasOwn(ENDPOINT_CALLS, req.params.endpoint as string)) authenticate(req, res, next);
    else next();
  });
  router.post("/:endpoint", parseJson, async (req: Request, res: Response, next: NextFunction) => {
    const name = req.params.endpoint as string;
    const call = Object.hasOwn(ENDPOINT_CALLS, name) ? ENDPOINT_CALLS[name] : undefined;
    if (!call) return next();
    if (closed) return send(res, aicError("room_not_ready", "the AIC adapter is closed"));
    const caller = locals(res).agentId!;
    const body: unknown = req.body;
    const abort = name === "pollEvents" ? abortOnDisconnect(res) : undefined;
    try {
      const result = await call(service, caller, body, abort ? { signal: abort.signal } : {});
      if (!res.writableEnded && !res.destroyed) send(res, result);
    } finally {
      abort?.release();
    }
  });
  router.all("/:endpoint", (req: Request, res: Response, next: NextFunction) => {
    if (Object.hasOwn(ENDPOINT_CALLS, req.params.endpoint as string)) methodNotAllowed("POST")(req, res);
    else next();
  });

  router.get("/events/stream", authenticate, async (req: Request, res: Response) => {
    if (closed) return send(res, aicError("room_not_ready", "the AIC adapter is closed"));
    const caller = locals(res).agentId!;
    const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
    const lastEventId = req.get("last-event-id");
    if (lastEventId !== undefined && lastEventId !== "") query.sinceCursor = lastEventId;
    const opened = await service.subscribeEvents(caller, query);
    if (opened.status === "error") return send(res, opened);
    const subscription = opened.data;
    const abort = abortOnDisconnect(res);
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "x-request-id": locals(res).requestId,
    });
    res.write(`retry: 2000\n: stream open at ${subscription.cursor}\n\n`);
    handlerStarted(res);
    const heartbeat = setInterval(() => {
      if (!res.writableEnded) res.write(": heartbeat\n\n");
    }, heartbeatMs);
    heartbeat.unref?.();
    try {
      while (!abort.signal.aborted && !res.writableEnded) {
        const result = await subscription.next(SSE_READ_WAIT_MS, abort.signal);
        if (abort.signal.aborted || res.writableEnded) break;
        if (result.status === "error") {
          res.write(`event: error\ndata: ${JSON.stringify(result)}\n\n`);
          break;
        }
        let chunk = "";
        for (const event of result.data.events)
          chunk += `id: ${event.cursor}\ndata: ${JSON.stringify(event)}\n\n`;
        if (chunk) res.write(chunk);
      }
    } finally {
      clearInterval(heartbeat);
      abort.release();
      if (!res.writableEnded) res.end();
      logger.debug?.(`openclawworld aic: SSE closed agent=${caller} requestId=${locals(res).requestId}`);
    }
  });
  router.all("/events/stream", methodNotAllowed("GET"));

  router.use((req: Request, res: Response) => {
    send(res, aicError("not_found", `no such AIC endpoint: ${req.method} ${req.path}`), "route_not_found");
  });

  function methodNotAllowed(allow: string) {
    return (req: Request, res: Response) => {
      send(
        res,
        aicError("not_found", `${req.method} is not allowed here; use ${allow}`),
        "method_not_allowed",
        {
          allow,
        },
      );
    };
  }

  app.use("/aic/v0.1", router);
  app.use((req: Request, res: Response) => {
    locals(res).requestId ??= randomUUID();
    send(res, aicError("not_found", `no such AIC endpoint: ${req.method} ${req.path}`), "route_not_found");
  });

  // Framing errors from body parsing, and anything unexpected: always the wrapper, never a throw.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    locals(res).requestId ??= randomUUID();
    const type = (error as { type?: unknown })?.type;
    const status = (error as { status?: unknown })?.status;
    if (type === "entity.too.large") {
      return send(
        res,
        aicError("bad_request", `request body exceeds ${AIC_BODY_LIMIT_BYTES} bytes`, {
          limitBytes: AIC_BODY_LIMIT_BYTES,
        }),
        "payload_too_large",
        { connection: "close" },
      );
    }
    if (type === "request.aborted") {
      res.destroy();
      return;
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      const reason = type === "entity.parse.failed" ? "malformed JSON body" : "unreadable request body";
      return send(res, aicError("bad_request", reason));
    }
    logger.error(
      `openclawworld aic: ${req.method} ${req.path} failed requestId=${locals(res).requestId}: ${
        error instanceof Error ? (error.stack ?? error.message) : String(error)
      }`,
    );
    send(res, aicError("internal", "internal error"));
  });

  const started = new WeakMap<ServerResponse, () => void>();
  function handlerStarted(res: ServerResponse): void {
    started.get(res)?.();
  }

  return {
    handle(req, res) {
      return new Promise<void>((resolve) => {
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          res.off("finish", finish);
          res.off("close", finish);
          started.delete(res);
          resolve();
        };
        res.on("finish", finish);
        res.on("close", finish);
        // A stream counts as handled once it is open.
        started.set(res, finish);
        app(req as Request, res as Response, (error?: unknown) => {
          if (error) logger.error(`openclawworld aic: unhandled: ${String(error)}`);
          if (!res.headersSent) {
            res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
            res.end(JSON.stringify(aicError("internal", "internal error")));
          }
          finish();
        });
      });
    },
    close() {
      closed = true;
      for (const controller of active) controller.abort();
      active.clear();
    },
  };
}
