// Seed 001's `api_access` as ordinary data: what a script needs to hand an AIC agent its way into the
// running world (base URL, headers, room, the endpoints), so it can put it into a prompt however it
// wants. Served to the operator only (GET /openclawworld/admin/access[/<agentId>], `openclaw ocw
// access`): it carries the agent's bearer token.
import { ENDPOINT_NAMES, endpointPath } from "../aic/endpoints.ts";
import { AIC_BASE_PATH, AIC_VERSION } from "../aic/version.ts";
import type { ResolvedConfig } from "../config/config.ts";
import { OperatorError } from "../runtime/operator.ts";

export interface AgentAccess {
  agentId: string;
  name: string;
  /** The room the agent joins unless it names another. */
  roomId: string;
  contract: { name: "AIC"; version: string; openapi: string };
  baseUrl: string;
  headers: Record<string, string>;
  /** Every endpoint as "METHOD <url>"; all take and answer JSON (`events/stream` is SSE). */
  endpoints: Record<string, string>;
  /** The body of the first request: join the room as this agent. */
  join: { agentId: string; roomId: string };
}

/** Where callers reach this gateway: the cluster's public URL when it has one, else the origin the
 * operator's own request came in on. */
function gatewayOrigin(config: ResolvedConfig, requestOrigin: string): string {
  return config.cluster?.publicBaseUrl ?? requestOrigin;
}

function endpointsAt(base: string): Record<string, string> {
  const rows = ENDPOINT_NAMES.map((name) => [name, `POST ${base}/${endpointPath(name)}`] as const);
  return {
    ...Object.fromEntries(rows),
    eventsStream: `GET ${base}/events/stream`,
    openapi: `GET ${base}/openapi.json`,
  };
}

/** The access record of every configured AIC agent that has a token (agents without one are the
 * gateway's own, reached through the tools). */
export function agentAccessList(config: ResolvedConfig, requestOrigin: string): AgentAccess[] {
  return Object.keys(config.agents).flatMap((agentId) =>
    config.agents[agentId]?.token ? [agentAccess(config, requestOrigin, agentId)] : [],
  );
}

export function agentAccess(config: ResolvedConfig, requestOrigin: string, agentId: string): AgentAccess {
  const agent = Object.hasOwn(config.agents, agentId) ? config.agents[agentId] : undefined;
  if (!agent?.token)
    throw new OperatorError(404, "not_found", `no AIC agent "${agentId}" with a token is configured`);
  const baseUrl = `${gatewayOrigin(config, requestOrigin)}${AIC_BASE_PATH}`;
  return {
    agentId,
    name: agent.name,
    roomId: config.defaultRoomId,
    contract: { name: "AIC", version: AIC_VERSION, openapi: `${baseUrl}/openapi.json` },
    baseUrl,
    headers: { Authorization: `Bearer ${agent.token}`, "Content-Type": "application/json" },
    endpoints: endpointsAt(baseUrl),
    join: { agentId, roomId: config.defaultRoomId },
  };
}
