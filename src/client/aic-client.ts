// The one AIC client: a program talking to an AIC v0.1 server over HTTP (a user's own agent, this
// plugin's remote tools, the conformance suite). Every endpoint is typed from the contract's zod
// schemas (src/aic/endpoints.ts); an action's txId is made for the caller and kept across its
// retries, so a retry is the same request and the server's idempotency answers it once. Only errors
// the server marks `retryable` are retried (exponential backoff with jitter, `Retry-After` honoured
// when longer). A cluster standby answers 307 to the gateway serving the room (docs/cluster.md):
// fetch would drop the Authorization header on a cross-origin redirect, so the client follows it
// itself with the same method, body and token, and sends later calls straight to that owner until it
// fails them retryably. Events come as async iterators, by long-poll or SSE, resuming from the last
// cursor they delivered. Exported by the package as `openclawworld/client` (docs/client.md).
import { randomUUID } from "node:crypto";
import type * as z from "zod";
import { ENDPOINTS, type EndpointName, endpointPath } from "../aic/endpoints.ts";
import { type AicErrorObject, type AicResult, aicError } from "../aic/errors.ts";
import type { EventEnvelope } from "../aic/schemas.ts";

export type { AicErrorObject, AicResult, EndpointName };
/** What an endpoint takes (the request schema's input). */
export type AicRequest<N extends EndpointName> = z.input<(typeof ENDPOINTS)[N]["request"]>;
/** What an endpoint answers with `status: ok`. */
export type AicData<N extends EndpointName> = z.output<(typeof ENDPOINTS)[N]["response"]>;
/** An event as pollEvents and the SSE stream deliver it. */
export type AicEvent = z.output<typeof EventEnvelope>;

/** Endpoints whose request carries a txId (the actions): the client makes one when none is given. */
type WithTx<N extends EndpointName> =
  AicRequest<N> extends { txId: string } ? Omit<AicRequest<N>, "txId"> & { txId?: string } : AicRequest<N>;

export interface RetryPolicy {
  /** Retries after the first attempt (0: never retry). */
  maxRetries: number;
  baseDelayMs: number;
  /** Whether an error answer is worth another attempt; default: the server's `retryable` flag. */
  retryWhen?: (error: AicErrorObject) => boolean;
}

export interface AicClientOptions {
  /** The AIC base URL, e.g. http://127.0.0.1:18789/aic/v0.1 */
  baseUrl: string;
  /** The agent's bearer token. */
  token?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
  /** Injectable for tests: waits `ms` unless the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Makes txIds (default: tx_ and a random UUID's hex). */
  newTxId?: () => string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** What one HTTP exchange returned: the answer, and what the transport saw of it. */
export interface Exchange<T = unknown> {
  result: AicResult<T>;
  /** The HTTP status of the last response (0 when there was none). */
  httpStatus: number;
  retryAfterMs?: number;
  /** The body as the server sent it (parsed JSON), when it was JSON: `result` is this when it is
   * the AIC wrapper, and an error of the client's making otherwise. */
  body?: unknown;
}

const MAX_DELAY_MS = 30_000;
/** Redirects followed for one attempt: standby -> owner, and one more if the owner moved meanwhile. */
const MAX_REDIRECTS = 3;
/** How long a long-poll in `events()` parks on the server per request. */
const LONG_POLL_WAIT_MS = 25_000;
/** The wait before reconnecting an SSE stream that ended. */
const SSE_RECONNECT_MS = 1000;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An answer outside the AIC wrapper: a refusal (4xx) or the server's fault (anything else). */
function offContract(status: number, message: string): AicResult<never> {
  const refused = status >= 400 && status < 500;
  return aicError(refused ? "bad_request" : "internal", message, { httpStatus: status });
}

/** Where a 307/308 sends the request (absolute, http or https only), if it is one. */
function redirectTarget(res: Response, from: string): string | undefined {
  if (res.status !== 307 && res.status !== 308) return undefined;
  const location = res.headers.get("location");
  if (!location) return undefined;
  try {
    const target = new URL(location, from);
    return target.protocol === "http:" || target.protocol === "https:" ? target.href : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterOf(res: Response): number | undefined {
  const seconds = Number(res.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** Whether an endpoint's request carries a txId (the idempotent actions; join and leave do not). */
function takesTxId(endpoint: EndpointName): boolean {
  const request = ENDPOINTS[endpoint].request as unknown as { shape?: Record<string, unknown> };
  return request.shape?.txId !== undefined;
}

/** Whether `value` is the AIC result wrapper (ok with data, or an error with a code). */
function isWrapper(value: unknown): value is AicResult<unknown> {
  const w = value as { status?: unknown; error?: { code?: unknown } } | null;
  return !!w && (w.status === "ok" || (w.status === "error" && typeof w.error?.code === "string"));
}

export class AicClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly makeTxId: () => string;
  /** The owner's base URL learned from a redirect, used until a call there fails retryably. */
  private ownerBase: string | undefined;

  constructor(options: AicClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.retry = { maxRetries: 3, baseDelayMs: 250, ...options.retry };
    this.fetchImpl = options.fetch ?? ((...args) => fetch(...args));
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.makeTxId = options.newTxId ?? (() => `tx_${randomUUID().replaceAll("-", "")}`);
  }

  /** A fresh txId (`tx_` + 32 hex characters). */
  newTxId(): string {
    return this.makeTxId();
  }

  /** One endpoint, typed from the contract; the answer is the AIC result wrapper, never a throw
   * (a network failure is a retryable `timeout`). An action without a txId gets one. */
  async call<N extends EndpointName>(
    endpoint: N,
    request: WithTx<N>,
    options: CallOptions = {},
  ): Promise<AicResult<AicData<N>>> {
    return (await this.exchange(endpoint, request as Record<string, unknown>, options)).result as AicResult<
      AicData<N>
    >;
  }

  /** As `call`, with what the transport saw (the HTTP status, Retry-After): for callers that judge
   * a server, not only use it. The body is sent as given (no txId added, no schema applied). */
  async exchange(
    endpoint: EndpointName | string,
    body: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<Exchange> {
    const named = endpoint in ENDPOINTS ? (endpoint as EndpointName) : undefined;
    const sent =
      named && takesTxId(named) && body.txId === undefined ? { ...body, txId: this.newTxId() } : body;
    const path = named ? endpointPath(named) : endpoint;
    let last: Exchange = { result: aicError("internal", "no attempt made"), httpStatus: 0 };
    for (let attempt = 0; attempt <= this.retry.maxRetries; attempt++) {
      last = await this.once(`/${path}`, sent, options.signal);
      const { result } = last;
      if (result.status === "ok") return last;
      const again = this.retry.retryWhen ? this.retry.retryWhen(result.error) : result.error.retryable;
      if (!again || attempt === this.retry.maxRetries) break;
      const backoff = Math.min(MAX_DELAY_MS, this.retry.baseDelayMs * 2 ** attempt);
      const jitter = this.random() * this.retry.baseDelayMs;
      await this.sleep(Math.max(last.retryAfterMs ?? 0, backoff + jitter), options.signal);
    }
    return last;
  }

  observe(request: AicRequest<"observe">, options?: CallOptions) {
    return this.call("observe", request, options);
  }
  moveTo(request: WithTx<"moveTo">, options?: CallOptions) {
    return this.call("moveTo", request, options);
  }
  interact(request: WithTx<"interact">, options?: CallOptions) {
    return this.call("interact", request, options);
  }
  chatSend(request: WithTx<"chatSend">, options?: CallOptions) {
    return this.call("chatSend", request, options);
  }
  chatObserve(request: AicRequest<"chatObserve">, options?: CallOptions) {
    return this.call("chatObserve", request, options);
  }
  pollEvents(request: AicRequest<"pollEvents">, options?: CallOptions) {
    return this.call("pollEvents", request, options);
  }
  join(request: WithTx<"join">, options?: CallOptions) {
    return this.call("join", request, options);
  }
  leave(request: WithTx<"leave">, options?: CallOptions) {
    return this.call("leave", request, options);
  }
  heartbeat(request: AicRequest<"heartbeat">, options?: CallOptions) {
    return this.call("heartbeat", request, options);
  }
  reflect(request: WithTx<"reflect">, options?: CallOptions) {
    return this.call("reflect", request, options);
  }
  approach(request: WithTx<"approach">, options?: CallOptions) {
    return this.call("approach", request, options);
  }

  /** Events by long-poll, for as long as the caller reads (or until `signal` aborts). Each event's
   * cursor resumes after it: pass the last one seen as `sinceCursor` to continue where you stopped.
   * An error answer that is not retryable ends the iteration with an AicClientError. */
  async *events(
    request: Omit<AicRequest<"pollEvents">, "sinceCursor" | "waitMs"> & {
      sinceCursor?: string;
      waitMs?: number;
    },
    options: CallOptions = {},
  ): AsyncGenerator<AicEvent, void, undefined> {
    let cursor = request.sinceCursor ?? "c_0";
    while (!options.signal?.aborted) {
      const page = await this.pollEvents(
        { ...request, sinceCursor: cursor, waitMs: request.waitMs ?? LONG_POLL_WAIT_MS },
        options,
      );
      if (page.status === "error") throw new AicClientError(page.error);
      for (const event of page.data.events) {
        cursor = event.cursor;
        yield event;
      }
      cursor = page.data.nextCursor;
    }
  }

  /** Events over Server-Sent Events (GET /events/stream). A stream that ends or breaks is reopened
   * with Last-Event-ID, the cursor of the last event delivered, so nothing is missed or repeated. */
  async *stream(
    request: { agentId: string; roomId: string; sinceCursor?: string },
    options: CallOptions = {},
  ): AsyncGenerator<AicEvent, void, undefined> {
    let cursor = request.sinceCursor;
    while (!options.signal?.aborted) {
      const query = new URLSearchParams({ agentId: request.agentId, roomId: request.roomId });
      let res: Response;
      try {
        res = await this.fetchImpl(`${this.ownerBase ?? this.baseUrl}/events/stream?${query}`, {
          headers: {
            accept: "text/event-stream",
            ...this.auth(),
            ...(cursor ? { "last-event-id": cursor } : {}),
          },
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        if (options.signal?.aborted) return;
        await this.sleep(SSE_RECONNECT_MS, options.signal).catch(() => undefined);
        if (!(error instanceof Error)) throw error;
        continue;
      }
      if (!res.ok || !res.body) {
        const read = await this.read(res);
        if (read.result.status === "error" && !read.result.error.retryable)
          throw new AicClientError(read.result.error);
        await this.sleep(read.retryAfterMs ?? SSE_RECONNECT_MS, options.signal).catch(() => undefined);
        continue;
      }
      try {
        for await (const frame of sseFrames(res.body)) {
          if (frame.event === "error") {
            const failure = JSON.parse(frame.data) as AicResult<never>;
            if (failure.status === "error" && !failure.error.retryable)
              throw new AicClientError(failure.error);
            break;
          }
          if (frame.event !== "message" && frame.event !== "") continue;
          const event = JSON.parse(frame.data) as AicEvent;
          cursor = frame.id || event.cursor;
          yield event;
        }
      } catch (error) {
        if (error instanceof AicClientError) throw error;
        if (options.signal?.aborted) return;
      }
      await this.sleep(SSE_RECONNECT_MS, options.signal).catch(() => undefined);
    }
  }

  private auth(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  private async once(
    requestPath: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Exchange> {
    const answer = await this.sendFollowing(
      `${this.ownerBase ?? this.baseUrl}${requestPath}`,
      requestPath,
      body,
      signal,
    );
    // The remembered owner failed us (gone, or standing by without a successor): start over at the
    // configured base URL, which knows the directory.
    if (this.ownerBase && answer.result.status === "error" && answer.result.error.retryable) {
      this.ownerBase = undefined;
    }
    return answer;
  }

  /** One POST, following the owner's redirects explicitly (same body, same token). */
  private async sendFollowing(
    firstUrl: string,
    requestPath: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Exchange> {
    let url = firstUrl;
    let res: Response;
    for (let hop = 0; ; hop++) {
      try {
        res = await this.fetchImpl(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...this.auth() },
          body: JSON.stringify(body),
          redirect: "manual",
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        return {
          result: aicError("timeout", `AIC server unreachable: ${(error as Error).message}`),
          httpStatus: 0,
        };
      }
      const next = redirectTarget(res, url);
      if (!next || hop === MAX_REDIRECTS) break;
      await res.body?.cancel().catch(() => undefined);
      url = next;
      // The owner serves the same paths: remember its base for the next calls.
      if (next.endsWith(requestPath)) this.ownerBase = next.slice(0, -requestPath.length);
    }
    return this.read(res);
  }

  private async read(res: Response): Promise<Exchange> {
    const retryAfterMs = retryAfterOf(res);
    const facts = { httpStatus: res.status, ...(retryAfterMs ? { retryAfterMs } : {}) };
    let parsed: unknown;
    try {
      parsed = await res.json();
    } catch {
      return { result: offContract(res.status, `AIC server answered ${res.status} without JSON`), ...facts };
    }
    if (isWrapper(parsed)) return { result: parsed, body: parsed, ...facts };
    return {
      result: offContract(res.status, `AIC server answered ${res.status} outside the AIC wrapper`),
      body: parsed,
      ...facts,
    };
  }
}

/** A non-retryable AIC error that ended an event iterator. */
export class AicClientError extends Error {
  readonly error: AicErrorObject;
  constructor(error: AicErrorObject) {
    super(`${error.code}: ${error.message}`);
    this.name = "AicClientError";
    this.error = error;
  }
}

/** The frames of an SSE body (WHATWG event-stream parsing: id, event, data; comments skipped). */
async function* sseFrames(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ id: string; event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let frame = { id: "", event: "", data: [] as string[] };
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += decoder.decode(read.value, { stream: true });
      for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
        const line = buffer.slice(0, at).replace(/\r$/, "");
        buffer = buffer.slice(at + 1);
        if (line === "") {
          if (frame.data.length > 0)
            yield { id: frame.id, event: frame.event || "message", data: frame.data.join("\n") };
          frame = { id: "", event: "", data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") frame.data.push(value);
        else if (field === "id") frame.id = value;
        else if (field === "event") frame.event = value;
      }
    }
  } finally {
    // A reader that stops early (break, abort) closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}
