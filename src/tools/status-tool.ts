// ocw_status: what the plugin reports about the world (the same answer as GET /world/api/status,
// built by the plugin and handed in as a StatusSource), plus a reachability probe in remote mode.
import { Type } from "typebox";
import type { RoomSignalsT } from "../aic/schemas.ts";
import { OPTIONAL_TOOLS, type ResolvedConfig } from "../config/config.ts";
import { activityText } from "./render.ts";
import { defineTool } from "./tool-kit.ts";

/** The part of the world status this tool renders as text; `details` carries all of it. */
export interface WorldStatus {
  running: boolean;
  world?: { name: string };
  defaultRoomId: string;
  rooms: { roomId: string; actors: number }[];
  tick?: number;
  tickRate?: number;
  simTime?: string;
  caller?: {
    entityId: string;
    enabledOptionalTools: string[];
    location?: { roomId: string; region?: string; tile: { tx: number; ty: number } };
  };
  signals?: RoomSignalsT[];
  residents?: { name: string; state: string; reason?: string }[];
}

/** The world status as seen by one agent. */
export type StatusSource = (agentId: string) => WorldStatus;

export function statusText(status: WorldStatus): string {
  if (!status.running || !status.world) {
    return "OpenClawWorld: the world service is not running in this gateway (check the gateway log).";
  }
  const rooms = status.rooms.map((r) => `${r.roomId} (${r.actors} present)`).join(", ");
  const lines = [
    `OpenClawWorld "${status.world.name}" is running: tick ${status.tick} at ${status.tickRate} Hz, sim time ${status.simTime}.`,
    `Rooms: ${rooms}. Default room: ${status.defaultRoomId}.`,
  ];
  if (status.caller) {
    const loc = status.caller.location;
    const where = loc
      ? `You are ${status.caller.entityId} in ${loc.roomId} at tile (${loc.tile.tx}, ${loc.tile.ty})${loc.region ? `, region ${loc.region}` : ""}.`
      : `You (${status.caller.entityId}) have not joined yet; your first ocw_observe joins ${status.defaultRoomId}.`;
    const tools = status.caller.enabledOptionalTools.length
      ? `Optional tools enabled for you: ${status.caller.enabledOptionalTools.join(", ")}.`
      : `No optional tools (${OPTIONAL_TOOLS.join(", ")}) are enabled for you.`;
    lines.push(where, tools);
  }
  for (const room of status.signals ?? []) lines.push(...signalsText(room));
  if (status.residents?.length)
    lines.push(
      `Residents: ${status.residents.map((r) => `${r.name} (${r.state}${r.reason ? `: ${r.reason}` : ""})`).join(", ")}.`,
    );
  return lines.join("\n");
}

/** A room's world signals: totals, the active regions, then the quiet ones by name. */
function signalsText(room: RoomSignalsT): string[] {
  const active = room.regions.filter((r) => Object.values(r.counts).some((n) => n > 0));
  const quiet = room.regions.filter((r) => !active.includes(r));
  const total = activityText(room.roomId, room.room);
  const lines = [
    `Activity in the last ${room.windowSec} s (since ${new Date(room.sinceTsMs).toISOString()}), ${total.endsWith(": ") ? `${room.roomId}: quiet` : total}.`,
  ];
  for (const r of active) lines.push(`- ${activityText(r.id, r.counts)} (${r.name})`);
  if (quiet.length) lines.push(`- quiet: ${quiet.map((r) => `${r.id} (${r.name})`).join(", ")}`);
  return lines;
}

export function statusTool(
  config: ResolvedConfig,
  agentId: string,
  timeoutMs: number,
  statusOf: StatusSource,
) {
  return defineTool<Record<string, never>>(
    {
      name: "ocw_status",
      label: "World status",
      description:
        "Check OpenClawWorld: whether the world is running, its rooms, the simulation tick and time, where you are, which optional tools (move, interact, chat) are enabled for you, and the world signals: activity (moves, chats, interactions, arrivals, departures) per room and named region over the last 60 s.",
      parameters: Type.Object({}, { additionalProperties: false }),
      async run(_args, call) {
        const status = statusOf(agentId);
        if (!config.remote) return { text: statusText(status), details: status };
        const remote = await probeRemote(config.remote.baseUrl, call.signal);
        const where = `Your world tools act on the remote AIC server ${config.remote.baseUrl} as agent ${agentId}: ${remote.reachable ? `reachable (${remote.latencyMs} ms)` : `NOT reachable (${remote.problem})`}.`;
        return { text: `${where}\n${statusText(status)}`, details: { ...status, remote } };
      },
    },
    timeoutMs,
  );
}

/** Remote mode: is the AIC server there? Its OpenAPI document answers without credentials. */
async function probeRemote(
  baseUrl: string,
  signal: AbortSignal,
): Promise<{ baseUrl: string; reachable: boolean; latencyMs?: number; problem?: string }> {
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}/openapi.json`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
    });
    await res.body?.cancel();
    if (!res.ok) return { baseUrl, reachable: false, problem: `HTTP ${res.status}` };
    return { baseUrl, reachable: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { baseUrl, reachable: false, problem: error instanceof Error ? error.message : String(error) };
  }
}
