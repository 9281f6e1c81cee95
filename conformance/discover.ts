// biome-ignore-all lint/suspicious/noExplicitAny: the observation is checked against the AIC JSON Schemas before its fields are read
// What the suite learns of a server's world by asking it, instead of assuming ours: the agent enters
// the room it was given (join, when the server has it; otherwise the PRD's pre-provisioned agent is
// there already) and observes it. The cases then use what was seen: an object to interact with (one
// affording `read`, else any object), portals (where they lead), and a free tile (where the agent
// stands: a tile it can certainly be on).
import { START_CURSOR } from "../src/aic/cursor.ts";
import { checkAnswer } from "./answer-check.ts";
import type { Capabilities } from "./capabilities.ts";
import type { ScenarioClient } from "./scenarios.ts";

export interface SeenObject {
  id: string;
  objectType: string;
  actions: string[];
  tile: { tx: number; ty: number };
  /** Where a portal leads (its `targetRoom` state), if it is one. */
  portalTo?: string;
}

export interface Discovered {
  roomId: string;
  /** A cursor the agent may read its events from (join's, or the start cursor). */
  cursor: string;
  self: { tx: number; ty: number };
  objects: SeenObject[];
  /** An object to interact with, and the action it affords (`read` preferred). */
  target?: { id: string; action: string };
}

export class DiscoveryFailure extends Error {}

export async function discover(
  client: ScenarioClient,
  agentId: string,
  roomId: string,
  caps: Capabilities,
): Promise<Discovered> {
  let cursor = START_CURSOR;
  if (caps.extensions.has("join")) {
    const joined = await client.call("join", agentId, { agentId, roomId });
    const problem = checkAnswer("join", joined);
    if (problem) throw new DiscoveryFailure(problem);
    if (joined.status !== "ok")
      throw new DiscoveryFailure(
        `${agentId} could not join room ${roomId}: ${joined.error.code}: ${joined.error.message}`,
      );
    cursor = joined.data.cursor;
  }
  const seen = await client.call("observe", agentId, { agentId, roomId, radius: 2000, detail: "full" });
  const problem = checkAnswer("observe", seen);
  if (problem) throw new DiscoveryFailure(problem);
  if (seen.status !== "ok")
    throw new DiscoveryFailure(
      `${agentId} cannot observe room ${roomId}: ${seen.error.code}: ${seen.error.message}`,
    );
  const objects: SeenObject[] = (seen.data.nearby as any[])
    .filter((n) => n.entity.kind === "object")
    .map((n) => ({
      id: n.entity.id,
      objectType: n.object?.objectType ?? "",
      actions: (n.affords ?? []).map((a: { action: string }) => a.action),
      tile: n.entity.tile,
      ...(typeof n.object?.state?.targetRoom === "string" ? { portalTo: n.object.state.targetRoom } : {}),
    }));
  const reader = objects.find((o) => o.actions.includes("read"));
  const any = objects.find((o) => o.actions.length > 0 && o.portalTo === undefined);
  const target = reader
    ? { id: reader.id, action: "read" }
    : any
      ? { id: any.id, action: any.actions[0]! }
      : undefined;
  return {
    roomId,
    cursor,
    self: seen.data.self.tile,
    objects,
    ...(target ? { target } : {}),
  };
}
