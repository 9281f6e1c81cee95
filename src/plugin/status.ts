// What `ocw_status` and GET /world/api/status report: one function, two transports.
import type { ResolvedConfig } from "../config/config.ts";
import { enabledOptionalTools } from "../hooks/tool-policy.ts";
import type { RuntimeHealth } from "../runtime/world-runtime.ts";
import { agentEntityId } from "../world/ids.ts";
import type { WorldHost } from "./host.ts";

export interface WorldStatus {
  running: boolean;
  world?: { name: string; version: string; sceneHash: string; origin: WorldHost["origin"] };
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
  health?: RuntimeHealth;
  mode: "in-process" | "remote";
  /** Present when asked for a particular OpenClaw agent. */
  caller?: {
    agentId: string;
    entityId: string;
    enabledOptionalTools: string[];
    location?: { roomId: string; tile: { tx: number; ty: number } };
  };
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
  if (!host)
    return {
      running: false,
      defaultRoomId: config.defaultRoomId,
      rooms: [],
      mode,
      ...(caller ? { caller } : {}),
    };
  const world = host.runtime.world;
  const self = caller ? world.getEntity(caller.entityId) : undefined;
  return {
    running: host.runtime.running,
    world: {
      name: host.definition.name,
      version: host.definition.version,
      sceneHash: host.definition.sceneHash,
      origin: host.origin,
    },
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
    health: host.runtime.health(),
    mode,
    ...(caller
      ? { caller: { ...caller, ...(self ? { location: { roomId: self.roomId, tile: self.tile } } : {}) } }
      : {}),
  };
}
