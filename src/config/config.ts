// Plugin config, parsed once into a typed object. The gateway validates against the manifest's
// configSchema and applies its defaults; this module normalises spellings, fills defaults for callers
// that bypass the gateway (unit tests, scripts) and rejects what the schema cannot express.
import { BUNDLED_WORLD_DIR } from "../runtime/load-world-dir.ts";
import { AGENT_ID_PATTERN, ROOM_ID_PATTERN } from "../world/ids.ts";

export { BUNDLED_WORLD_DIR };

export const REQUIRED_TOOLS = ["ocw_status", "ocw_observe", "ocw_poll_events", "ocw_chat_observe"] as const;
export const OPTIONAL_TOOLS = ["ocw_move_to", "ocw_interact", "ocw_chat_send"] as const;
export const ALL_TOOLS = [...REQUIRED_TOOLS, ...OPTIONAL_TOOLS] as const;
export type ToolName = (typeof ALL_TOOLS)[number];
export type OptionalToolName = (typeof OPTIONAL_TOOLS)[number];

export interface ToolPolicyConfig {
  enabled: OptionalToolName[];
  denied: ToolName[];
  perAgent: Record<string, { enabled: OptionalToolName[]; denied: ToolName[] }>;
  timeoutMs: number;
}

export interface RateLimitConfig {
  disabled: boolean;
  classes: Record<string, { perSec: number; burst: number }>;
}

export interface RemoteConfig {
  baseUrl: string;
  apiKey?: string;
  defaultAgentId?: string;
  retryMaxAttempts: number;
  retryBaseDelayMs: number;
}

export interface ResolvedConfig {
  worldDir: string;
  defaultRoomId: string;
  tickRate?: number;
  agents: Record<string, { token?: string; name: string }>;
  tools: ToolPolicyConfig;
  remote?: RemoteConfig;
  web: { joinCode?: string; resumeGraceSec: number };
  rateLimits: RateLimitConfig;
  /** Durability: `fsync` false writes each tick to the OS only (survives a killed process, not a
   * power loss) instead of waiting for the disk. */
  snapshot: { enabled: boolean; intervalSec: number; fsync: boolean };
}

export class ConfigError extends Error {}

/** `ocw.move_to` and `ocw_move_to` name the same tool; providers reject dots, so underscores win. */
export function canonicalToolName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^ocw\./, "ocw_");
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function stringList(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new ConfigError(`openclawworld config: ${path} must be a list of tool names`);
  }
  return value.map(canonicalToolName);
}

function toolLists(
  raw: Record<string, unknown>,
  path: string,
): { enabled: OptionalToolName[]; denied: ToolName[] } {
  const known = new Set<string>(ALL_TOOLS);
  const enabled = stringList(raw.enabled, `${path}.enabled`);
  const denied = stringList(raw.denied, `${path}.denied`);
  const disabled = stringList(raw.disabled, `${path}.disabled`);
  for (const name of [...enabled, ...denied, ...disabled]) {
    if (!known.has(name)) {
      throw new ConfigError(
        `openclawworld config: unknown tool "${name}" in ${path}; known tools: ${ALL_TOOLS.join(", ")}`,
      );
    }
  }
  for (const name of [...enabled, ...disabled]) {
    if ((REQUIRED_TOOLS as readonly string[]).includes(name)) {
      throw new ConfigError(
        `openclawworld config: ${name} is a required tool and is always enabled; it cannot be listed in ${path}.enabled/disabled. To block it on purpose, add it to ${path}.denied.`,
      );
    }
  }
  return { enabled: enabled as OptionalToolName[], denied: denied as ToolName[] };
}

function intInRange(value: unknown, fallback: number, min: number, max: number, path: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`openclawworld config: ${path} must be an integer in [${min}, ${max}]`);
  }
  return value;
}

export function resolveConfig(raw: unknown): ResolvedConfig {
  const value = asRecord(raw);
  const worldDir =
    typeof value.world === "string" && value.world.trim() ? value.world.trim() : BUNDLED_WORLD_DIR;
  const defaultRoomId = typeof value.defaultRoomId === "string" ? value.defaultRoomId : "lobby";
  if (!ROOM_ID_PATTERN.test(defaultRoomId))
    throw new ConfigError("openclawworld config: defaultRoomId is not a valid room id");

  const agents: ResolvedConfig["agents"] = {};
  for (const [agentId, entry] of Object.entries(asRecord(value.agents))) {
    if (!AGENT_ID_PATTERN.test(agentId))
      throw new ConfigError(`openclawworld config: agents.${agentId}: invalid agent id`);
    const e = asRecord(entry);
    const token = typeof e.token === "string" ? e.token : undefined;
    if (token !== undefined && token.length < 16) {
      throw new ConfigError(`openclawworld config: agents.${agentId}.token must be at least 16 characters`);
    }
    agents[agentId] = {
      ...(token ? { token } : {}),
      name: typeof e.name === "string" && e.name ? e.name : agentId,
    };
  }
  const tokens = Object.values(agents).flatMap((a) => (a.token ? [a.token] : []));
  if (new Set(tokens).size !== tokens.length)
    throw new ConfigError("openclawworld config: two agents share a token");

  const toolsRaw = asRecord(value.tools);
  const perAgent: ToolPolicyConfig["perAgent"] = {};
  for (const [agentId, entry] of Object.entries(asRecord(toolsRaw.perAgent))) {
    perAgent[agentId] = toolLists(asRecord(entry), `tools.perAgent.${agentId}`);
  }
  const tools: ToolPolicyConfig = {
    ...toolLists(toolsRaw, "tools"),
    perAgent,
    timeoutMs: intInRange(toolsRaw.timeoutMs, 30_000, 1000, 120_000, "tools.timeoutMs"),
  };

  const remoteRaw = value.remote === undefined ? undefined : asRecord(value.remote);
  let remote: RemoteConfig | undefined;
  if (remoteRaw) {
    if (typeof remoteRaw.baseUrl !== "string" || !/^https?:\/\//.test(remoteRaw.baseUrl)) {
      throw new ConfigError("openclawworld config: remote.baseUrl must be an http(s) URL");
    }
    remote = {
      baseUrl: remoteRaw.baseUrl.replace(/\/+$/, ""),
      ...(typeof remoteRaw.apiKey === "string" ? { apiKey: remoteRaw.apiKey } : {}),
      ...(typeof remoteRaw.defaultAgentId === "string" ? { defaultAgentId: remoteRaw.defaultAgentId } : {}),
      retryMaxAttempts: intInRange(remoteRaw.retryMaxAttempts, 3, 0, 10, "remote.retryMaxAttempts"),
      retryBaseDelayMs: intInRange(remoteRaw.retryBaseDelayMs, 500, 10, 5000, "remote.retryBaseDelayMs"),
    };
  }

  const webRaw = asRecord(value.web);
  const rateRaw = asRecord(value.rateLimits);
  const classes: RateLimitConfig["classes"] = {};
  for (const [name, entry] of Object.entries(asRecord(rateRaw.classes))) {
    const e = asRecord(entry);
    if (typeof e.perSec !== "number" || e.perSec <= 0 || typeof e.burst !== "number" || e.burst < 1) {
      throw new ConfigError(
        `openclawworld config: rateLimits.classes.${name} needs perSec > 0 and burst >= 1`,
      );
    }
    classes[name] = { perSec: e.perSec, burst: Math.floor(e.burst) };
  }
  const snapRaw = asRecord(value.snapshot);

  return {
    worldDir,
    defaultRoomId,
    ...(value.tickRate === undefined ? {} : { tickRate: intInRange(value.tickRate, 20, 10, 20, "tickRate") }),
    agents,
    tools,
    ...(remote ? { remote } : {}),
    web: {
      ...(typeof webRaw.joinCode === "string" && webRaw.joinCode ? { joinCode: webRaw.joinCode } : {}),
      resumeGraceSec: intInRange(webRaw.resumeGraceSec, 30, 0, 3600, "web.resumeGraceSec"),
    },
    rateLimits: { disabled: rateRaw.disabled === true, classes },
    snapshot: {
      enabled: snapRaw.enabled !== false,
      intervalSec: intInRange(snapRaw.intervalSec, 60, 5, 86_400, "snapshot.intervalSec"),
      fsync: snapRaw.fsync !== false,
    },
  };
}
