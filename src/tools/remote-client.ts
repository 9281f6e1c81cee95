// Remote mode: the same tools against an AIC server elsewhere, through the package's one AIC client
// (src/client/aic-client.ts: retries only where `retryable`, Retry-After, the owner's 307 followed
// with the token). What this backend adds is the tools' view of it: which room each agent is in.

import type { AicResult } from "../aic/errors.ts";
import { AicClient, type AicClientOptions } from "../client/aic-client.ts";
import type { RemoteConfig } from "../config/config.ts";
import type { AicBackend, AicEndpoint } from "./backend.ts";

export type RemoteClientOptions = Pick<AicClientOptions, "fetch" | "random" | "sleep">;

export class RemoteAicClient implements AicBackend {
  readonly mode = "remote";
  private readonly client: AicClient;
  private readonly rooms = new Map<string, string>();

  constructor(config: RemoteConfig, options: RemoteClientOptions = {}) {
    this.client = new AicClient({
      baseUrl: config.baseUrl,
      ...(config.apiKey ? { token: config.apiKey } : {}),
      retry: { maxRetries: config.retryMaxAttempts, baseDelayMs: config.retryBaseDelayMs },
      ...options,
    });
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
    const { result } = await this.client.exchange(endpoint, body, { signal });
    if (result.status === "ok") this.remember(endpoint, agentId, body, result.data);
    else if (result.error.code === "agent_not_in_room") this.rooms.delete(agentId);
    return result;
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
}
