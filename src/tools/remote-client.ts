// Remote mode: the same tools against an AIC server elsewhere. Only errors the server marks
// `retryable` are retried (rate limits, timeouts, a world not ready, network failures), with
// exponential backoff, jitter and a bounded number of attempts; Retry-After is honoured.
// A cluster standby answers 307 to the gateway serving the world (docs/cluster.md). fetch would
// drop the Authorization header on a cross-origin redirect, so the client follows it itself, with
// the same method, body and token, a few hops at most; later calls go straight to that owner until
// it fails them (unreachable, or no longer serving), then to the configured base URL again.

import { endpointPath } from "../aic/endpoints.ts";
import { type AicResult, aicError } from "../aic/errors.ts";
import type { RemoteConfig } from "../config/config.ts";
import type { AicBackend, AicEndpoint } from "./backend.ts";

export interface RemoteClientOptions {
  fetch?: typeof fetch;
  /** Injectable for tests: waits `ms` unless the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

const MAX_DELAY_MS = 30_000;
/** Redirects followed for one attempt: standby -> owner, and one more if the owner moved meanwhile. */
const MAX_REDIRECTS = 3;

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** An answer outside the AIC wrapper: a refusal (4xx) or the server's fault (anything else). */
function offContract(status: number, message: string): AicResult<never> {
  const refused = status >= 400 && status < 500;
  return aicError(refused ? "bad_request" : "internal", message, { httpStatus: status });
}

export class RemoteAicClient implements AicBackend {
  readonly mode = "remote";
  private readonly config: RemoteConfig;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly rooms = new Map<string, string>();
  /** The owner's base URL learned from a redirect, used until a call there fails retryably. */
  private ownerBase: string | undefined;

  constructor(config: RemoteConfig, options: RemoteClientOptions = {}) {
    this.config = config;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
  }

  currentRoom(agentId: string): string | undefined {
    return this.rooms.get(agentId);
  }

  async call(
    endpoint: AicEndpoint,
    agentId: string,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<AicResult<unknown>> {
    const attempts = this.config.retryMaxAttempts + 1;
    let last: AicResult<unknown> = aicError("internal", "no attempt made");
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const { result, retryAfterMs } = await this.once(endpoint, body, signal);
      last = result;
      if (result.status === "ok") {
        this.remember(endpoint, agentId, body, result.data);
        return result;
      }
      if (!result.error.retryable || attempt === attempts) break;
      const backoff = Math.min(MAX_DELAY_MS, this.config.retryBaseDelayMs * 2 ** (attempt - 1));
      const jitter = this.random() * this.config.retryBaseDelayMs;
      await this.sleep(Math.max(retryAfterMs ?? 0, backoff + jitter), signal);
    }
    if (last.status === "error" && last.error.code === "agent_not_in_room") this.rooms.delete(agentId);
    return last;
  }

  private remember(
    endpoint: AicEndpoint,
    agentId: string,
    body: Record<string, unknown>,
    data: unknown,
  ): void {
    const roomId =
      (data as { roomId?: unknown; self?: { roomId?: unknown } } | null)?.self?.roomId ??
      (data as { roomId?: unknown })?.roomId;
    if (endpoint === "leave") this.rooms.delete(agentId);
    else if (typeof roomId === "string") this.rooms.set(agentId, roomId);
    else if (typeof body.roomId === "string") this.rooms.set(agentId, body.roomId);
  }

  private async once(
    endpoint: AicEndpoint,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ result: AicResult<unknown>; retryAfterMs?: number }> {
    const requestPath = `/${endpointPath(endpoint)}`;
    const base = this.ownerBase ?? this.config.baseUrl;
    const answer = await this.sendFollowing(`${base}${requestPath}`, requestPath, body, signal);
    // The remembered owner failed us (gone, or standing by without a successor): start over at the
    // configured gateway, which knows the directory.
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
    signal: AbortSignal,
  ): Promise<{ result: AicResult<unknown>; retryAfterMs?: number }> {
    let url = firstUrl;
    let res: Response;
    for (let hop = 0; ; hop++) {
      try {
        res = await this.fetchImpl(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          redirect: "manual",
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        return {
          result: aicError("timeout", `remote AIC server unreachable: ${(error as Error).message}`),
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

  private async read(res: Response): Promise<{ result: AicResult<unknown>; retryAfterMs?: number }> {
    const retryAfter = Number(res.headers.get("retry-after"));
    const retryAfterMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined;
    let parsed: unknown;
    try {
      parsed = await res.json();
    } catch {
      return {
        result: offContract(res.status, `remote AIC server answered ${res.status} without JSON`),
        ...(retryAfterMs ? { retryAfterMs } : {}),
      };
    }
    const wrapper = parsed as AicResult<unknown>;
    if (wrapper && (wrapper.status === "ok" || (wrapper.status === "error" && wrapper.error?.code))) {
      return { result: wrapper, ...(retryAfterMs ? { retryAfterMs } : {}) };
    }
    return {
      result: offContract(res.status, `remote AIC server answered ${res.status} outside the AIC wrapper`),
    };
  }
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
