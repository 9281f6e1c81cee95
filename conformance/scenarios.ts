// biome-ignore-all lint/suspicious/noExplicitAny: every answer is validated against the AIC JSON Schema before its fields are read
// PRD 10.2 scenario replays, written once against any AIC endpoint: in-process (deterministic,
// stepped tick by tick) or a live server over HTTP. Each scenario returns a normalised trace (PRD 10.2
// normalisation: no timestamps, cursors and message ids checked by pattern, never compared), which is
// compared with a golden file in the world it was recorded in. Elsewhere a scenario finds what it
// needs by observing (any object affording `read`, any portal) and checks the PRD's steps.
import { START_CURSOR } from "../src/aic/cursor.ts";
import type { AnswerJudge } from "./answer-check.ts";
import type { Capabilities } from "./capabilities.ts";
import type { Human } from "./human.ts";

export type AicAnswer =
  | { status: "ok"; data: any }
  | { status: "error"; error: { code: string; message: string } };

export interface ScenarioClient {
  /** Send one AIC request as `agentId` (the client holds that agent's credentials). */
  call(endpoint: string, agentId: string, body: Record<string, unknown>): Promise<AicAnswer>;
  /** Let `ticks` ticks of simulation time pass. */
  pass(ticks: number): Promise<void>;
  /** Unique suffix for txIds, so a live server's idempotency store never replays an older run. */
  readonly runId: string;
  /** A human on the server's WebSocket (PRD scenario B's speaker). */
  human(name: string): Promise<Human>;
  /** Releases what the client opened (sockets, an in-process web surface). */
  close?(): Promise<void>;
  /** What the server offers beyond the PRD, asked as `agentId` in `roomId` (default: everything). */
  capabilities?(agentId: string, roomId: string): Promise<Capabilities>;
  /** The room to play in when the caller names none (the in-process world's default room). */
  readonly room?: string;
}

export interface ScenarioAgents {
  /** The observing / acting agent. */
  a: string;
  /** A second agent. */
  b: string;
}

export type TraceEntry = Record<string, unknown>;

export class ScenarioFailure extends Error {}
/** The room lacks what the scenario needs (no object to read, no portal): a skip, with the reason. */
export class ScenarioUnmet extends Error {}

/** One request of a scenario, its answer judged (a deviation fails the scenario that meets it
 * first); the calls of one scenario share it. */
export type Ask = (endpoint: string, agentId: string, body: Record<string, unknown>) => Promise<AicAnswer>;

export function judgedCalls(client: ScenarioClient, answers: AnswerJudge): Ask {
  return async (endpoint, agentId, body) => {
    const answer = await client.call(endpoint, agentId, body);
    const problem = answers.check(endpoint, answer);
    if (problem) throw new ScenarioFailure(problem);
    return answer;
  };
}

function must(answer: AicAnswer, what: string): any {
  if (answer.status !== "ok")
    throw new ScenarioFailure(`${what}: ${answer.error.code}: ${answer.error.message}`);
  return answer.data;
}

const tx = (client: ScenarioClient, label: string) => `tx_${label}_${client.runId}`;

/** Cursors are opaque (PRD 10.2): their progression is checked by what they deliver. Reading on from
 * each nextCursor must never deliver an event again, and a page with events must move the cursor. */
export class EventTrail {
  private readonly seen = new Set<string>();

  add(
    page: { events: { cursor: string; type: string }[]; nextCursor: string },
    from: string,
    what: string,
  ): void {
    for (const event of page.events) {
      if (this.seen.has(event.cursor)) {
        throw new ScenarioFailure(
          `${what}: event ${event.type} (cursor ${event.cursor}) delivered again: the cursor went backwards`,
        );
      }
      this.seen.add(event.cursor);
    }
    if (page.events.length > 0 && page.nextCursor === from) {
      throw new ScenarioFailure(`${what}: events were delivered but nextCursor did not advance`);
    }
  }
}

/** Enters the room; on a server without the join extension the PRD's pre-provisioned agent is
 * there already, and its events are read from the start cursor. */
async function join(
  ask: Ask,
  agentId: string,
  roomId: string,
  caps: Capabilities,
): Promise<{ cursor: string }> {
  if (!caps.extensions.has("join")) return { cursor: START_CURSOR };
  return must(await ask("join", agentId, { agentId, roomId }), `join ${agentId}`);
}

async function observe(ask: Ask, agentId: string, roomId: string, radius = 2000) {
  const seen = must(await ask("observe", agentId, { agentId, roomId, radius, detail: "full" }), "observe");
  if (!Array.isArray(seen?.nearby) || !seen.self?.tile)
    throw new ScenarioFailure(`observe of ${roomId}: no nearby list or no self.tile to go by`);
  return seen;
}

/** Walks to the first reachable tile of `candidates` and waits until the agent stands on it. */
async function walkTo(
  client: ScenarioClient,
  ask: Ask,
  agentId: string,
  roomId: string,
  candidates: { tx: number; ty: number }[],
) {
  for (const [i, dest] of candidates.entries()) {
    const answer = await ask("moveTo", agentId, {
      agentId,
      roomId,
      txId: tx(client, `walk${i}_${agentId}_${dest.tx}_${dest.ty}`),
      dest,
    });
    if (answer.status === "error") {
      if (answer.error.code === "collision_blocked") continue;
      throw new ScenarioFailure(`moveTo ${JSON.stringify(dest)}: ${answer.error.code}`);
    }
    for (let waited = 0; waited < 60; waited++) {
      await client.pass(10);
      const self = (await observe(ask, agentId, roomId, 1)).self;
      if (self.tile.tx === dest.tx && self.tile.ty === dest.ty) return { dest, result: answer.data.result };
    }
    throw new ScenarioFailure(`${agentId} never reached ${JSON.stringify(dest)}`);
  }
  throw new ScenarioFailure(`no reachable tile among ${JSON.stringify(candidates)}`);
}

function around(tile: { tx: number; ty: number }): { tx: number; ty: number }[] {
  const out = [tile];
  for (const [dx, dy] of [
    [0, 1],
    [0, -1],
    [-1, 0],
    [1, 0],
    [-1, 1],
    [1, 1],
    [-1, -1],
    [1, -1],
  ] as const) {
    out.push({ tx: tile.tx + dx, ty: tile.ty + dy });
  }
  return out.filter((t) => t.tx >= 0 && t.ty >= 0);
}

const affords = (n: any, action: string) =>
  Array.isArray(n.affords) && n.affords.some((a: { action?: unknown }) => a?.action === action);

/** Scenario A (PRD 10.2): observe, find a sign with `read` (the golden one where it is), walk to it,
 * read it: the outcome is ok with the sign's text. */
export async function signReading(
  client: ScenarioClient,
  agents: ScenarioAgents,
  caps: Capabilities,
  room: string,
  ask: Ask,
): Promise<TraceEntry[]> {
  const trace: TraceEntry[] = [];
  await join(ask, agents.a, room, caps);
  const seen = await observe(ask, agents.a, room);
  const readable = (seen.nearby as any[]).filter((n) => n?.entity?.kind === "object" && affords(n, "read"));
  const sign = readable.find((n) => n.entity.id === GOLDEN_WORLD.signReading?.object) ?? readable[0];
  if (!sign) throw new ScenarioUnmet(`room ${room} shows no object affording read`);
  trace.push({
    step: "observe",
    found: sign.entity.id,
    affords: sign.affords.map((a: { action: string }) => a.action),
  });
  const walked = await walkTo(client, ask, agents.a, room, around(sign.entity.tile).slice(1));
  trace.push({ step: "moveTo", result: walked.result });
  const read = must(
    await ask("interact", agents.a, {
      agentId: agents.a,
      roomId: room,
      txId: tx(client, "read"),
      targetId: sign.entity.id,
      action: "read",
    }),
    "interact read",
  );
  if (read.outcome?.type !== "ok" || typeof read.outcome.message !== "string" || !read.outcome.message)
    throw new ScenarioFailure(
      `PRD 10.2 scenario A: interact read must return outcome ok with the sign's text, got ${JSON.stringify(read.outcome)}`,
    );
  trace.push({
    step: "interact",
    action: "read",
    outcome: read.outcome.type,
    message: read.outcome.message,
    applied: read.applied,
  });
  return trace;
}

/** Scenario B (PRD 10.2): a human (a real WebSocket client) joins, an agent joins and walks near
 * them, the human says "hello"; the agent's pollEvents has it, and reading on never repeats it. */
export async function proximityChat(
  client: ScenarioClient,
  agents: ScenarioAgents,
  caps: Capabilities,
  room: string,
  ask: Ask,
): Promise<TraceEntry[]> {
  const trace: TraceEntry[] = [];
  const human = await client.human("Conformance human");
  try {
    const listener = await join(ask, agents.a, room, caps);
    await walkTo(client, ask, agents.a, room, around(human.tile).slice(1));
    trace.push({ step: "approach", near: true });
    // Start the listener's reading after the walk, so the chat is the news.
    const trail = new EventTrail();
    let cursor: string = listener.cursor;
    for (let page = 0; page < 50; page++) {
      const more = must(
        await ask("pollEvents", agents.a, {
          agentId: agents.a,
          roomId: room,
          sinceCursor: cursor,
          limit: 200,
        }),
        "pollEvents",
      );
      trail.add(more, cursor, "pollEvents");
      cursor = more.nextCursor;
      if (more.events.length < 200) break;
    }
    const message = `hello ${client.runId}`;
    const chatMessageId = await human.chat("proximity", message);
    if (!/^msg_[A-Za-z0-9._-]{8,128}$/.test(chatMessageId))
      throw new ScenarioFailure("chatMessageId pattern");
    trace.push({ step: "humanChat", channel: "proximity" });
    await client.pass(1);
    const polled = must(
      await ask("pollEvents", agents.a, {
        agentId: agents.a,
        roomId: room,
        sinceCursor: cursor,
        limit: 50,
        waitMs: 2000,
      }),
      "pollEvents",
    );
    const chat = (polled.events as any[]).find(
      (e) => e.type === "chat.message" && e.payload.message === message,
    );
    if (!chat) throw new ScenarioFailure("the agent did not receive the human's chat message");
    if (chat.payload.messageId !== chatMessageId)
      throw new ScenarioFailure("chat message id differs between send and event");
    if (polled.nextCursor === cursor) throw new ScenarioFailure("the cursor did not advance");
    trail.add(polled, cursor, "pollEvents");
    const again = must(
      await ask("pollEvents", agents.a, {
        agentId: agents.a,
        roomId: room,
        sinceCursor: polled.nextCursor,
        limit: 200,
      }),
      "pollEvents",
    );
    trail.add(again, polled.nextCursor, "pollEvents after the chat");
    trace.push({
      step: "pollEvents",
      received: "chat.message",
      from: chat.payload.fromEntityId === human.entityId ? "human" : chat.payload.fromEntityId,
      channel: chat.payload.channel,
    });
    return trace;
  } finally {
    human.close();
  }
}

/** Scenario C (PRD 10.2): walk next to a portal, use it, arrive where it leads. */
export async function portalMovement(
  client: ScenarioClient,
  agents: ScenarioAgents,
  caps: Capabilities,
  room: string,
  ask: Ask,
): Promise<TraceEntry[]> {
  const trace: TraceEntry[] = [];
  await join(ask, agents.a, room, caps);
  const seen = await observe(ask, agents.a, room);
  // Any object that is a portal or says where it leads. The lobby has portals to the garden and the
  // town; its golden trace is the garden one, found by where it leads rather than by which happens
  // to be nearer the spawn.
  const portals = (seen.nearby as any[]).filter(
    (n) =>
      n?.entity?.kind === "object" &&
      (n.object?.objectType === "portal" || typeof n.object?.state?.targetRoom === "string"),
  );
  const portal =
    portals.find((n) => n.object?.state?.targetRoom === GOLDEN_WORLD.portalMovement?.portalTo) ?? portals[0];
  if (!portal) throw new ScenarioUnmet(`room ${room} shows no portal`);
  trace.push({
    step: "observe",
    found: portal.entity.id,
    affords: portal.affords.map((a: { action: string }) => a.action),
  });
  // Beside it, not onto it: standing on a portal already uses it.
  const walked = await walkTo(client, ask, agents.a, room, around(portal.entity.tile).slice(1));
  trace.push({ step: "moveTo", result: walked.result });
  const used = must(
    await ask("interact", agents.a, {
      agentId: agents.a,
      roomId: room,
      txId: tx(client, "portal"),
      targetId: portal.entity.id,
      action: "use",
    }),
    "interact use",
  );
  trace.push({ step: "interact", action: "use", outcome: used.outcome.type });
  const state = portal.object?.state ?? {};
  const target = typeof state.targetRoom === "string" ? state.targetRoom : room;
  const after = await observe(ask, agents.a, target, 1);
  const old = await client.call("observe", agents.a, {
    agentId: agents.a,
    roomId: room,
    radius: 1,
    detail: "lite",
  });
  const atTarget = after.self.tile.tx === state.targetTx && after.self.tile.ty === state.targetTy;
  const moved =
    after.self.roomId === target &&
    (target !== room || after.self.tile.tx !== walked.dest.tx || after.self.tile.ty !== walked.dest.ty);
  // PRD 10.2 C step 3: the position changes to the destination (the one the portal names, if any).
  const named = Number.isInteger(state.targetTx) && Number.isInteger(state.targetTy);
  if (!moved || (named && !atTarget))
    throw new ScenarioFailure(
      `PRD 10.2 scenario C: after interact use the agent must be at the portal's destination (${target}${named ? ` ${state.targetTx},${state.targetTy}` : ""}), observe says ${after.self.roomId} ${after.self.tile.tx},${after.self.tile.ty}`,
    );
  trace.push({
    step: "arrived",
    roomId: after.self.roomId,
    atTarget,
    oldRoom: old.status === "error" ? old.error.code : "still there",
  });
  return trace;
}

export const SCENARIOS = { signReading, proximityChat, portalMovement } as const;
export type ScenarioName = keyof typeof SCENARIOS;

/** What a scenario needs beyond the PRD's six endpoints (join is optional: see join above). */
export const SCENARIO_NEEDS: Partial<Record<ScenarioName, { human: true }>> = {
  proximityChat: { human: true },
};

/** The world a scenario's golden trace was recorded in (the bundled world's lobby): the room, and
 * what must be in it. Elsewhere the scenario checks the PRD's steps only; proximity chat's trace
 * holds in any room. */
export const GOLDEN_WORLD: Partial<
  Record<ScenarioName, { room: string; object?: string; portalTo?: string }>
> = {
  signReading: { room: "lobby", object: "obj_sign_welcome" },
  portalMovement: { room: "lobby", portalTo: "garden" },
};
