// What `ocw_status` and GET /world/api/status report: one function, two transports. Agents read it,
// so it shows simulation time only (seed 001): no wall-clock durations, no counters that reset when
// the gateway restarts, nothing that tells a restored world from an uninterrupted one. The operator's
// status (operatorStatus, below) adds those.
import type { RoomSignalsT } from "../aic/schemas.ts";
import type { ResolvedConfig } from "../config/config.ts";
import { enabledOptionalTools } from "../config/tool-policy.ts";
import { durabilityStatus } from "../runtime/operator.ts";
import type { RuntimeHealth } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";
import { ownerElsewhere } from "./cluster-host.ts";
import type { WorldHost } from "./host.ts";
import { processSlot } from "./singleton.ts";

/** Where the world is served, relative to the gateway's base URL (seed 001: start returns its
 * runtime details as data; `npm start` prints these). */
export const WORLD_ENDPOINTS = {
  web: "/world/",
  status: "/world/api/status",
  aicBase: "/aic/v0.1",
  openapi: "/aic/v0.1/openapi.json",
} as const;

export interface WorldStatus {
  running: boolean;
  world?: { name: string; version: string; sceneHash: string };
  endpoints?: typeof WORLD_ENDPOINTS;
  defaultRoomId: string;
  rooms: {
    roomId: string;
    name: string;
    mapId: string;
    widthTiles: number;
    heightTiles: number;
    actors: number;
  }[];
  tick?: number;
  tickRate?: number;
  /** Simulation time (world epoch + ticks elapsed), never wall-clock. */
  serverTsMs?: number;
  simTime?: string;
  mode: "in-process" | "remote";
  /** Present when asked for a particular OpenClaw agent. */
  caller?: {
    agentId: string;
    entityId: string;
    enabledOptionalTools: string[];
    location?: { roomId: string; region?: string; tile: { tx: number; ty: number } };
  };
  /** World signals of every room (only for a caller: the unauthenticated status leaves out what
   * participants do; see DECISIONS.md). */
  signals?: RoomSignalsT[];
  /** A cluster gateway (docs/cluster.md): its id, and the gateway serving the world (itself when it
   * owns it; none known while nobody holds the lease). Other gateways' base URLs are public. */
  cluster?: { gatewayId: string; servedBy?: { gatewayId: string; baseUrl: string; epoch: number } };
  /** The configured residents: awake, thinking (a turn runs), asleep (with the reason), failing (its
   * last turn failed) or recovering (a turn runs after a failure). */
  residents?: { agentId: string; entityId: string; name: string; state: string; reason?: string }[];
}

export function worldStatus(
  host: WorldHost | undefined,
  config: ResolvedConfig,
  agentId?: string,
): WorldStatus {
  const caller = agentId
    ? {
        agentId,
        entityId: agentEntityId(agentId),
        enabledOptionalTools: enabledOptionalTools(config.tools, agentId),
      }
    : undefined;
  const mode = config.remote ? "remote" : "in-process";
  const cluster = clusterPart(host, config);
  if (!host)
    return {
      running: false,
      defaultRoomId: config.defaultRoomId,
      rooms: [],
      mode,
      ...(caller ? { caller } : {}),
      ...(cluster ? { cluster } : {}),
    };
  const residents = host.residents?.states().map(({ agentId, entityId, name, state, reason }) => ({
    agentId,
    entityId,
    name,
    state,
    ...(reason ? { reason } : {}),
  }));
  const world = host.runtime.world;
  const self = caller ? world.getEntity(caller.entityId) : undefined;
  const region = self ? world.regionsAt(self.roomId, self.tile)[0]?.id : undefined;
  const signals = caller
    ? Object.keys(host.definition.rooms).flatMap((roomId) => {
        const view = world.signals(roomId);
        return view ? [{ roomId, ...view }] : [];
      })
    : undefined;
  return {
    running: host.runtime.running,
    world: {
      name: host.definition.name,
      version: host.definition.version,
      sceneHash: host.definition.sceneHash,
    },
    endpoints: WORLD_ENDPOINTS,
    defaultRoomId: config.defaultRoomId,
    rooms: Object.values(host.definition.rooms).map((room) => ({
      roomId: room.roomId,
      name: room.name,
      mapId: room.mapId,
      widthTiles: room.widthTiles,
      heightTiles: room.heightTiles,
      actors: world.actorsInRoom(room.roomId).length,
    })),
    tick: world.tick,
    tickRate: host.definition.tickRate,
    serverTsMs: world.serverTsMs,
    simTime: new Date(world.serverTsMs).toISOString(),
    mode,
    ...(caller
      ? {
          caller: {
            ...caller,
            ...(self
              ? { location: { roomId: self.roomId, ...(region ? { region } : {}), tile: self.tile } }
              : {}),
          },
        }
      : {}),
    ...(signals ? { signals } : {}),
    ...(cluster ? { cluster } : {}),
    ...(residents ? { residents } : {}),
  };
}

function clusterPart(host: WorldHost | undefined, config: ResolvedConfig): WorldStatus["cluster"] {
  if (!config.cluster) return undefined;
  const owner = host?.cluster
    ? host.cluster.room.lease.holder
    : ownerElsewhere(processSlot().waiting?.cluster);
  return {
    gatewayId: config.cluster.gatewayId,
    ...(owner
      ? { servedBy: { gatewayId: owner.gatewayId, baseUrl: owner.baseUrl, epoch: owner.epoch } }
      : {}),
  };
}

/** The plugin config this world runs with, as the operator checks it: its fingerprint
 * (`configFingerprint`), and the settings people change most, without tokens. Read back by
 * `npm start` so that what it prints is what runs, not what it wrote. */
export function configInForce(config: ResolvedConfig) {
  return {
    fingerprint: config.fingerprint,
    agents: Object.entries(config.agents).map(([agentId, agent]) => ({
      agentId,
      name: agent.name,
      hasToken: agent.token !== undefined,
    })),
    tools: {
      enabled: config.tools.enabled,
      denied: config.tools.denied,
      perAgent: config.tools.perAgent,
    },
    residents: Object.entries(config.residents).map(([agentId, resident]) => ({
      agentId,
      name: resident.name,
      home: resident.home,
    })),
    ...(config.cluster ? { cluster: { gatewayId: config.cluster.gatewayId } } : {}),
    ...(config.remote ? { remote: { baseUrl: config.remote.baseUrl } } : {}),
  };
}

/** The operator's status (admin route only): the agents' view plus how the world came to be,
 * wall-clock health, the durable store and the config in force. */
export function operatorStatus(host: WorldHost) {
  return {
    ...worldStatus(host, host.config),
    config: configInForce(host.config),
    origin: host.origin,
    health: host.runtime.health() satisfies RuntimeHealth,
    durability: durabilityStatus(host),
    // Live reloads of the world's definition: watching or not, the last outcome (a refusal names
    // the file and line), and the last one applied.
    ...(host.reloads ? { worldReload: host.reloads.status() } : {}),
    // With wall-clock facts: turns in the last hour, the last turn's times and error.
    ...(host.residents
      ? { residents: host.residents.states(), residentBudget: host.residents.budget() }
      : {}),
    // Wake targets: each remote resident's state, and its deliveries (sent, answered, failed).
    ...(host.remoteResidents ? { remoteResidents: host.remoteResidents.status() } : {}),
    // The world reopened by the plugin, the gateway having stopped it and started none again.
    ...(processSlot().revived ? { revived: processSlot().revived } : {}),
  };
}
