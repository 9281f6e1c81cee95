// biome-ignore-all lint/suspicious/noExplicitAny: the answers are any server's; each field is checked before it is used
// What the suite learns of a server's world by asking it, instead of assuming ours: the agent enters
// the room it was given (join, when the server has it; otherwise the PRD's pre-provisioned agent is
// there already) and observes it. The cases then use what was seen: an object to interact with (one
// affording `read`, else any object), portals (where they lead), and a free tile (where the agent
// stands: a tile it can certainly be on). Discovery judges nothing: an answer with more than the
// schema, or less, is read for what it holds, and what it could not learn is said in `gaps`; the
// cases that meet the same answers judge them.
import { START_CURSOR } from "../src/aic/cursor.ts";
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
  /** Where the agent stands, when observe said. */
  self?: { tx: number; ty: number };
  objects: SeenObject[];
  /** An object to interact with, and the action it affords (`read` preferred). */
  target?: { id: string; action: string };
  /** What could not be learnt, and why (a join refused, an observe without a usable answer). */
  gaps: string[];
}

const isTile = (t: any): t is { tx: number; ty: number } =>
  Number.isInteger(t?.tx) && Number.isInteger(t?.ty);

export async function discover(
  client: ScenarioClient,
  agentId: string,
  roomId: string,
  caps: Capabilities,
): Promise<Discovered> {
  const gaps: string[] = [];
  const asked = async (endpoint: string, body: Record<string, unknown>): Promise<any> => {
    try {
      const answer: any = await client.call(endpoint, agentId, body);
      if (answer?.status === "ok" && answer.data && typeof answer.data === "object") return answer.data;
      gaps.push(
        `${endpoint} as ${agentId} in ${roomId}: ${answer?.status === "error" ? `${answer.error?.code}: ${answer.error?.message}` : "no ok answer"}`,
      );
    } catch (error) {
      gaps.push(`${endpoint}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return undefined;
  };
  let cursor = START_CURSOR;
  if (caps.extensions.has("join")) {
    const joined = await asked("join", { agentId, roomId });
    if (typeof joined?.cursor === "string") cursor = joined.cursor;
  }
  const seen = await asked("observe", { agentId, roomId, radius: 2000, detail: "full" });
  const nearby: any[] = Array.isArray(seen?.nearby) ? seen.nearby : [];
  if (seen && !Array.isArray(seen.nearby)) gaps.push("observe answered without a nearby list");
  const objects: SeenObject[] = nearby
    .filter((n) => n?.entity?.kind === "object" && typeof n.entity.id === "string" && isTile(n.entity.tile))
    .map((n) => ({
      id: n.entity.id,
      objectType: typeof n.object?.objectType === "string" ? n.object.objectType : "",
      actions: (Array.isArray(n.affords) ? n.affords : [])
        .map((a: { action?: unknown }) => a?.action)
        .filter((a: unknown): a is string => typeof a === "string"),
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
  const self = isTile(seen?.self?.tile) ? seen.self.tile : undefined;
  if (seen && !self) gaps.push("observe gave no tile the agent stands on");
  return { roomId, cursor, objects, gaps, ...(self ? { self } : {}), ...(target ? { target } : {}) };
}
