// The AIC v0.1 HTTP adapter around AicService. This file is the router — request ids, per-agent
// bearer auth, the endpoint table, method/route framing and the error handling — and the handler the
// gateway route calls. The body reader (body-reader.ts), the SSE stream (sse.ts) and the answer writer
// (answer.ts) are beside it. Every answer is the AIC result wrapper.
// The routing is a few string comparisons on node:http objects, not a framework: every agent request
// crosses it, and through the gateway a framework's router and request decoration cost a sixth of an
// observe (profiled). What a request may be is the table below.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import { buildOpenApi, serializeDocument } from "../../aic/documents.ts";
import { type EndpointName, endpointAt, requestFromQuery, servedByGet } from "../../aic/endpoints.ts";
import { aicError } from "../../aic/errors.ts";
import { type OwnerRef, travelledResult } from "../../aic/owner-elsewhere.ts";
import type { AicService, CallOptions } from "../../aic/service.ts";
import { AIC_BASE_PATH } from "../../aic/version.ts";
import { redirectToOwner } from "../owner-redirect.ts";
import { type AicHttpLogger, aicLocals, createAnswer } from "./answer.ts";
import { AIC_BODY_DEADLINE_MS, AIC_BODY_LIMIT_BYTES, BodyError, readJsonBody } from "./body-reader.ts";
import { createEventStream } from "./sse.ts";

/** Where the routes below are mounted (the plugin registers this prefix with the gateway). */
export { AIC_BASE_PATH } from "../../aic/version.ts";
export { AIC_BODY_LIMIT_BYTES, type AicHttpLogger };

export interface AicHttpDeps {
  service: AicService;
  /** Bearer token -> agentId, undefined when unknown. */
  tokens: (token: string) => string | undefined;
  /** Where an agent went through a portal to another world (a cluster room), while it has not come
   * back: its requests are sent to that world's gateway (`owner`; undefined while none serves it). */
  travelled?: (agentId: string) => { world: string; owner: OwnerRef | undefined } | undefined;
  logger: AicHttpLogger;
  /** SSE comment heartbeat interval; default 10 s (PRD 9.3). */
  sseHeartbeatMs?: number;
  /** An SSE stream whose unsent bytes stay over `maxBufferedBytes` for `slowReaderMs` is closed;
   * defaults 1 MiB and 10 s (the WebSocket's rule). */
  sseSlowReader?: { maxBufferedBytes: number; slowReaderMs: number };
}

export interface AicHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

/** The token of an `Authorization: Bearer <token>` header, if it is one (the one reading of it: the
 * follow page's routes read it here too, and ask the same token directory). */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer[ ]+([^\s]{1,512})\s*$/i.exec(header ?? "")?.[1];
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function createAicHttpHandler(deps: AicHttpDeps): AicHttpHandler {
  const { service, tokens, logger } = deps;
  const answer = createAnswer(logger);
  const openApiText = serializeDocument(buildOpenApi());
  /** Parked long-polls and open streams, aborted by close(). */
  const active = new Set<AbortController>();
  let closed = false;

  /** An AbortSignal that fires when the client goes away or the handler closes. */
  const abortOnDisconnect = (res: ServerResponse): { signal: AbortSignal; release(): void } => {
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
    maxBufferedBytes: deps.sseSlowReader?.maxBufferedBytes ?? 1024 * 1024,
    slowReaderMs: deps.sseSlowReader?.slowReaderMs ?? 10_000,
  });

  const methodNotAllowed = (req: IncomingMessage, res: ServerResponse, allow: string) =>
    answer(
      res,
      aicError("not_found", `${req.method} is not allowed here; use ${allow}`),
      "method_not_allowed",
      { allow },
    );
  const routeNotFound = (req: IncomingMessage, res: ServerResponse, path: string) =>
    answer(res, aicError("not_found", `no such AIC endpoint: ${req.method} ${path}`), "route_not_found");
  const adapterClosed = () => aicError("room_not_ready", "the AIC adapter is closed");

  /** The agent a bearer token stands for, or answers 401 and returns undefined. */
  const authenticate = (req: IncomingMessage, res: ServerResponse): string | undefined => {
    const token = bearerToken(req.headers.authorization);
    const agentId = token ? tokens(token) : undefined;
    if (!agentId) {
      answer(
        res,
        aicError("unauthorized", token ? "unknown bearer token" : "missing bearer token"),
        undefined,
        { "www-authenticate": 'Bearer realm="aic"' },
      );
      return undefined;
    }
    aicLocals(res).agentId = agentId;
    const moved = deps.travelled?.(agentId);
    if (moved) {
      const { world, owner } = moved;
      // The same typed redirect a standby gives (owner-redirect.ts), so the tools' remote mode follows it.
      if (owner)
        redirectToOwner(req, res, owner, (location) => travelledResult(agentId, world, owner, location));
      else answer(res, travelledResult(agentId, world, undefined), undefined, { "retry-after": "1" });
      return undefined;
    }
    return agentId;
  };

  /** Body-reading failures and anything unexpected: always the wrapper, never a throw. */
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const kind = error instanceof BodyError ? error.kind : undefined;
    if (kind === "too_large") {
      answer(
        res,
        aicError("bad_request", `request body exceeds ${AIC_BODY_LIMIT_BYTES} bytes`, {
          limitBytes: AIC_BODY_LIMIT_BYTES,
        }),
        "payload_too_large",
        { connection: "close" },
      );
      return;
    }
    if (kind === "aborted") {
      res.destroy();
      return;
    }
    if (kind === "timeout") {
      answer(
        res,
        aicError("timeout", `the request body did not arrive within ${AIC_BODY_DEADLINE_MS / 1000} s`),
        "request_timeout",
        { connection: "close" },
      );
      return;
    }
    if (kind === "malformed" || kind === "not_utf8") {
      const what = kind === "malformed" ? "malformed JSON body" : "request body is not valid UTF-8";
      answer(res, aicError("bad_request", what));
      return;
    }
    logger.error(
      `openclawworld aic: ${req.method} ${req.url} failed requestId=${aicLocals(res).requestId}: ${
        error instanceof Error ? (error.stack ?? error.message) : String(error)
      }`,
    );
    if (!res.headersSent) answer(res, aicError("internal", "internal error"));
    else res.destroy();
  };

  /** POST /<endpoint>: authenticate before reading the body, so an unknown caller costs no read. */
  const endpoint = async (req: IncomingMessage, res: ServerResponse, name: EndpointName): Promise<void> => {
    const caller = authenticate(req, res);
    if (!caller) return;
    const body = await readJsonBody(req);
    if (closed) return answer(res, adapterClosed());
    const abort = name === "pollEvents" ? abortOnDisconnect(res) : undefined;
    try {
      const opts: CallOptions = { requestText: body.text };
      if (abort) opts.signal = abort.signal;
      const result = await service.call(name, caller, body.value, opts);
      if (!res.writableEnded && !res.destroyed) answer(res, result);
    } finally {
      abort?.release();
    }
  };

  /** GET /<read>?...: the same read, its request from the query string (no body). */
  const endpointByQuery = async (
    req: IncomingMessage,
    res: ServerResponse,
    name: EndpointName,
    queryText: string,
  ): Promise<void> => {
    const caller = authenticate(req, res);
    if (!caller) return;
    if (closed) return answer(res, adapterClosed());
    const request = requestFromQuery(name, caller, { ...parseQuery(queryText) });
    if (!request) return methodNotAllowed(req, res, "POST");
    if (!request.ok) return answer(res, request.error);
    const result = await service.call(name, caller, request.body);
    if (!res.writableEnded && !res.destroyed) answer(res, result);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    if (!path.startsWith(`${AIC_BASE_PATH}/`)) return routeNotFound(req, res, path);
    // One trailing slash is tolerated (`/observe/`), as it always was.
    let rest = path.slice(AIC_BASE_PATH.length + 1);
    if (rest.endsWith("/")) rest = rest.slice(0, -1);
    const method = req.method ?? "GET";
    const readMethod = method === "GET" || method === "HEAD";

    const name = endpointAt(rest);
    if (name) {
      const byGet = servedByGet(name);
      if (readMethod && byGet)
        return endpointByQuery(req, res, name, queryAt < 0 ? "" : url.slice(queryAt + 1));
      if (method !== "POST") return methodNotAllowed(req, res, byGet ? "GET, POST" : "POST");
      return endpoint(req, res, name);
    }
    switch (rest) {
      case "openapi.json":
        if (!readMethod) return methodNotAllowed(req, res, "GET");
        res.writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(openApiText),
          "cache-control": "no-cache",
          "x-request-id": aicLocals(res).requestId,
        });
        res.end(openApiText);
        return;
      // Liveness for health checks (the PRD's reference client probes it): public, no credentials.
      case "status":
        if (!readMethod) return methodNotAllowed(req, res, "GET");
        return answer(res, closed ? adapterClosed() : service.status());
      case "events/stream": {
        if (!readMethod) return methodNotAllowed(req, res, "GET");
        if (!authenticate(req, res)) return;
        if (closed) return answer(res, adapterClosed());
        const query = queryAt < 0 ? {} : { ...parseQuery(url.slice(queryAt + 1)) };
        return eventStream(req, res, query);
      }
      default:
        return routeNotFound(req, res, path);
    }
  };

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
        const given = req.headers["x-request-id"];
        aicLocals(res).requestId =
          typeof given === "string" && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
        route(req, res).catch((error: unknown) => {
          try {
            failed(req, res, error);
          } catch (unexpected) {
            logger.error(`openclawworld aic: unhandled: ${String(unexpected)}`);
            res.destroy();
          }
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
