// Where a tool call goes: the in-process AIC service of this gateway's world, or a remote AIC
// server over HTTP. Both answer the same AIC result wrapper, so the tools are written once.
import type { AicResult } from "../aic/errors.ts";
import type { EndpointName } from "../aic/schemas.ts";
import type { ResolvedConfig } from "../runtime/config.ts";
import { activeHost } from "../runtime/singleton.ts";
import { RemoteAicClient } from "./remote-client.ts";

export type AicEndpoint = EndpointName;

export interface AicBackend {
  readonly mode: "in-process" | "remote";
  call(
    endpoint: AicEndpoint,
    agentId: string,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<AicResult<unknown>>;
  /** Where the agent is now, when the backend can tell without a call. */
  currentRoom(agentId: string): string | undefined;
}

const NOT_RUNNING: AicResult<never> = {
  status: "error",
  error: {
    code: "room_not_ready",
    message: "the world service is not running in this gateway",
    retryable: true,
  },
};

export const inProcessBackend: AicBackend = {
  mode: "in-process",
  async call(endpoint, agentId, body, signal) {
    const host = activeHost();
    if (!host?.aic || !host.runtime.running) return NOT_RUNNING;
    return host.aic[endpoint](agentId, body, { signal });
  },
  currentRoom(agentId) {
    return activeHost()?.runtime.world.getEntity(`agt_${agentId}`)?.roomId;
  },
};

export function backendFor(config: ResolvedConfig): AicBackend {
  return config.remote ? new RemoteAicClient(config.remote) : inProcessBackend;
}
