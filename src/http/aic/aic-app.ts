// The AIC v0.1 HTTP adapter: express 5 framing around AicService. This file is the router — request
// ids, per-agent bearer auth, the endpoint table, method/route framing and the error handler — and
// the handler the gateway route calls. The body reader (body-reader.ts), the SSE stream (sse.ts) and
// the answer writer (answer.ts) are beside it. Every answer is the AIC result wrapper.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import { buildOpenApi, serializeDocument } from "../../aic/documents.ts";
import { type AicResult, aicError } from "../../aic/errors.ts";
import { type EndpointName, endpointAt } from "../../aic/schemas.ts";
import type { AicService, CallOptions } from "../../aic/service.ts";
import { type AicHttpLogger, aicLocals, createAnswer } from "./answer.ts";
import { AIC_BODY_LIMIT_BYTES, BodyError, readJsonBody } from "./body-reader.ts";
import { createEventStream } from "./sse.ts";

export { AIC_BODY_LIMIT_BYTES, type AicHttpLogger };

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

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

type EndpointCall = (
  service: AicService,
  caller: string,
  body: unknown,
  opts: CallOptions,
) => Promise<AicResult<unknown>>;

const ENDPOINT_CALLS: Record<EndpointName, EndpointCall> = {
  observe: (s, c, b, o) => s.observe(c, b, o),
  moveTo: (s, c, b, o) => s.moveTo(c, b, o),
  interact: (s, c, b, o) => s.interact(c, b, o),
  chatSend: (s, c, b, o) => s.chatSend(c, b, o),
  chatObserve: (s, c, b, o) => s.chatObserve(c, b, o),
  pollEvents: (s, c, b, o) => s.pollEvents(c, b, o),
  join: (s, c, b, o) => s.join(c, b, o),
  leave: (s, c, b, o) => s.leave(c, b, o),
  heartbeat: (s, c, b, o) => s.heartbeat(c, b, o),
  reflect: (s, c, b, o) => s.reflect(c, b, o),
};

/** The endpoint at a router path (`/moveTo`, `/memory/reflect`, a trailing slash allowed). */
function endpointFor(path: string): { name: EndpointName; call: EndpointCall } | undefined {
  const name = endpointAt(path.replace(/^\/+|\/+$/g, ""));
  return name ? { name, call: ENDPOINT_CALLS[name] } : undefined;
}

/** The router paths of the endpoints: one segment, or `memory/<name>` (ENDPOINTS[...].path). */
const ENDPOINT_ROUTES = ["/:endpoint", "/memory/:endpoint"];

export function createAicHttpHandler(deps: AicHttpDeps): AicHttpHandler {
  const { service, tokens, logger } = deps;
  const answer = createAnswer(logger);
  const openApiText = serializeDocument(buildOpenApi());
  /** Parked long-polls and open streams, aborted by close(). */
  const active = new Set<AbortController>();
  let closed = false;

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

  // A stream counts as handled once it is open: handle() resolves then, not when it ends.
  const started = new WeakMap<ServerResponse, () => void>();
  const eventStream = createEventStream({
    service,
    logger,
    answer,
    heartbeatMs: Math.max(10, deps.sseHeartbeatMs ?? 10_000),
    abortOnDisconnect,
    opened: (res) => started.get(res)?.(),
  });

  const methodNotAllowed = (allow: string) => (req: Request, res: Response) =>
    answer(
      res,
      aicError("not_found", `${req.method} is not allowed here; use ${allow}`),
      "method_not_allowed",
      {
        allow,
      },
    );
  const routeNotFound = (req: Request, res: Response) =>
    answer(res, aicError("not_found", `no such AIC endpoint: ${req.method} ${req.path}`), "route_not_found");
  const adapterClosed = () => aicError("room_not_ready", "the AIC adapter is closed");

  const authenticate = (req: Request, res: Response, next: NextFunction) => {
    const header = req.get("authorization") ?? "";
    const match = /^Bearer[ ]+([^\s]{1,512})\s*$/i.exec(header);
    const agentId = match?.[1] ? tokens(match[1]) : undefined;
    if (!agentId) {
      answer(
        res,
        aicError("unauthorized", match ? "unknown bearer token" : "missing bearer token"),
        undefined,
        {
          "www-authenticate": 'Bearer realm="aic"',
        },
      );
      return;
    }
    aicLocals(res).agentId = agentId;
    next();
  };

  const router = express.Router({ caseSensitive: true, strict: false });

  router.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.get("x-request-id");
    aicLocals(res).requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    next();
  });

  router.get("/openapi.json", (_req: Request, res: Response) => {
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(openApiText),
      "cache-control": "no-cache",
      "x-request-id": aicLocals(res).requestId,
    });
    res.end(openApiText);
  });
  router.all("/openapi.json", methodNotAllowed("GET"));

  // Liveness for health checks (the PRD's reference client probes it): public, no credentials.
  router.get("/status", (_req: Request, res: Response) => {
    if (closed) return answer(res, adapterClosed());
    answer(res, service.status());
  });
  router.all("/status", methodNotAllowed("GET"));

  // One parameterised route (fewer layers to match than one route per endpoint): authenticate
  // before reading the body, so an unknown caller costs no body read.
  router.post(ENDPOINT_ROUTES, (req: Request, res: Response, next: NextFunction) => {
    if (endpointFor(req.path)) authenticate(req, res, next);
    else next();
  });
  router.post(ENDPOINT_ROUTES, readJsonBody, async (req: Request, res: Response, next: NextFunction) => {
    const endpoint = endpointFor(req.path);
    if (!endpoint) return next();
    const { name, call } = endpoint;
    if (closed) return answer(res, adapterClosed());
    const abort = name === "pollEvents" ? abortOnDisconnect(res) : undefined;
    try {
      const result = await call(
        service,
        aicLocals(res).agentId!,
        req.body,
        abort ? { signal: abort.signal } : {},
      );
      if (!res.writableEnded && !res.destroyed) answer(res, result);
    } finally {
      abort?.release();
    }
  });
  router.all(ENDPOINT_ROUTES, (req: Request, res: Response, next: NextFunction) => {
    if (endpointFor(req.path)) methodNotAllowed("POST")(req, res);
    else next();
  });

  router.get("/events/stream", authenticate, (req: Request, res: Response) => {
    if (closed) return answer(res, adapterClosed());
    return eventStream(req, res);
  });
  router.all("/events/stream", methodNotAllowed("GET"));
  router.use(routeNotFound);

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  app.use("/aic/v0.1", router);
  app.use((req: Request, res: Response) => {
    aicLocals(res).requestId ??= randomUUID();
    routeNotFound(req, res);
  });

  // Framing errors from body reading, and anything unexpected: always the wrapper, never a throw.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    aicLocals(res).requestId ??= randomUUID();
    const kind = error instanceof BodyError ? error.kind : undefined;
    const status = (error as { status?: unknown })?.status;
    if (kind === "too_large") {
      return answer(
        res,
        aicError("bad_request", `request body exceeds ${AIC_BODY_LIMIT_BYTES} bytes`, {
          limitBytes: AIC_BODY_LIMIT_BYTES,
        }),
        "payload_too_large",
        { connection: "close" },
      );
    }
    if (kind === "aborted") {
      res.destroy();
      return;
    }
    if (kind === "malformed") return answer(res, aicError("bad_request", "malformed JSON body"));
    if (kind === "not_utf8") return answer(res, aicError("bad_request", "request body is not valid UTF-8"));
    if (typeof status === "number" && status >= 400 && status < 500) {
      return answer(res, aicError("bad_request", "unreadable request body"));
    }
    logger.error(
      `openclawworld aic: ${req.method} ${req.path} failed requestId=${aicLocals(res).requestId}: ${
        error instanceof Error ? (error.stack ?? error.message) : String(error)
      }`,
    );
    answer(res, aicError("internal", "internal error"));
  });

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
