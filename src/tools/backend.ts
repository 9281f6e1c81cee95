// Where a tool call goes: the in-process AIC service of this gateway's world
// (`in-process-backend.ts`) or a remote AIC server over HTTP (`remote-client.ts`). Both answer the
// same AIC result wrapper, so the tools are written once against this interface.

import type { EndpointName } from "../aic/endpoints.ts";
import type { AicResult } from "../aic/errors.ts";

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
