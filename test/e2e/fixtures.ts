// What the e2e global setup gives every test file, and helpers to talk to the gateway.
import { afterAll, inject } from "vitest";

export interface E2EGateway {
  baseUrl: string;
  gatewayToken: string;
  logFile: string;
  startupMs: number;
  pid: number;
  /** The scripted model server every agent of the gateway uses (scriptedModelClient(modelOrigin)). */
  modelOrigin: string;
  agents: Record<string, { token: string }>;
}

declare module "vitest" {
  export interface ProvidedContext {
    gateway: E2EGateway;
  }
}

/** Per-OpenClaw-agent tool policy used by the e2e gateway (one gateway, several policies). */
export const E2E_AGENT_POLICY = {
  // "main" (the default agent) gets no optional tools.
  mover: { enabled: ["ocw_move_to", "ocw_interact", "ocw_chat_send"] },
  walker: { enabled: ["ocw_move_to"] },
  chatter: { enabled: ["ocw_chat_send"] },
  // Each file's own tool agents, so no file meets another's where it left it (any file order).
  play_walker: { enabled: ["ocw_move_to"] },
  web_walker: { enabled: ["ocw_move_to"] },
  pass_chatter: { enabled: ["ocw_chat_send"] },
  hard_chatter: { enabled: ["ocw_chat_send"] },
  // Joins exactly once, in the tools test, so its presence.join is news whatever ran before.
  visitor: { enabled: [] },
  // Enabled but denied: deny wins; the dotted spelling works in the denylist.
  denied: {
    enabled: ["ocw_move_to", "ocw_chat_send", "ocw_reflect"],
    denied: ["ocw.chat_send", "ocw_move_to", "ocw_reflect"],
  },
  // The heartbeat e2e: may chat, not move; a heartbeat must not let it move either.
  beater: { enabled: ["ocw_chat_send"] },
  // The memory e2e: may reflect (opt-in on); "main" may not (opt-in off).
  thinker: { enabled: ["ocw_reflect"] },
  // The agent-turn e2e: a real turn through the gateway's agent loop that walks.
  turner: { enabled: ["ocw_move_to"] },
  // The agent-turn e2e: a first heartbeat, in Tool Search mode, that greets the room.
  greeter: { enabled: ["ocw_chat_send"] },
  // The town e2e: walks to the town, posts on its notice board, sits, talks in the council room.
  townie: { enabled: ["ocw_move_to", "ocw_interact", "ocw_chat_send"] },
  // The residents e2e: the world wakes it; it answers with ocw_chat_send.
  keeper: { enabled: ["ocw_chat_send"] },
  // The resident-robustness e2e: models that reuse call ids, call tools directly, loop; talkers.
  warden: { enabled: ["ocw_chat_send"] },
  // The resident-models e2e: residents whose models speak Anthropic messages and Gemini.
  herald: { enabled: ["ocw_chat_send"] },
  sibyl: { enabled: ["ocw_chat_send"] },
  pythia: { enabled: ["ocw_chat_send"] },
  // The emote e2e: gestures with the ocw_emote tool (an action kind's tool made from its doors).
  emoter: { enabled: ["ocw_emote"] },
  // The townsfolk e2e: town residents who greet, talk and walk along (the bundled residents' policy).
  tilly: { enabled: ["ocw_chat_send", "ocw_move_to"] },
  bram: { enabled: ["ocw_chat_send", "ocw_move_to"] },
  guide: { enabled: ["ocw_chat_send", "ocw_move_to", "ocw_lead"] },
  // The resident-game e2e: a resident who plays at the café's game table.
  wren: { enabled: ["ocw_chat_send", "ocw_interact"] },
  // The garden e2e: a gardener who tends the plots (no tools: tending goes through the world's doors).
  fern: { enabled: [] },
} as const;

/** The e2e gateway's resident: in the lobby's south-east corner, away from where other files play
 * (they stay in the plaza, the paths and the reading corner), paced so the caps show in one run. */
export const E2E_RESIDENT = {
  agentId: "keeper",
  entityId: "agt_keeper",
  config: {
    name: "Keeper",
    home: { roomId: "lobby", tx: 44, ty: 28 },
    minIntervalSec: 8,
    maxTurnsPerHour: 5,
    // A turn on a busy 2-core machine was seen to take over 2 minutes (the agent loop's preparation).
    turnTimeoutSec: 600,
  },
} as const;

/** The resident-robustness e2e's resident (issue #41): woken only by its name, so the HTTP agents of
 * that file call it from anywhere in the lobby and it answers on the room channel; tight caps so a
 * looping model and a talker show in one run; a fresh session every two turns. */
export const E2E_WARDEN = {
  agentId: "warden",
  entityId: "agt_warden",
  config: {
    name: "Warden",
    home: { roomId: "lobby", tx: 44, ty: 24 },
    wake: { nearby: false, name: true, approach: false },
    minIntervalSec: 1,
    maxTurnsPerHour: 30,
    turnTimeoutSec: 600,
    maxModelRequestsPerTurn: 3,
    maxTurnsPerPersonPerHour: 2,
    sessionTurns: 2,
  },
} as const;

/** The resident-models e2e's residents (issue #41): each has its own model in another wire format
 * (the scripted model's Anthropic and Gemini providers), wakes only by its name, and stands by the
 * Warden away from where other files play. The Pythia (Gemini too) serves only the models that fail
 * or never answer: its short turn time cuts those turns in one run, while the others keep a turn time
 * a slow machine's hello fits in. */
export const E2E_FORMAT_RESIDENTS = {
  anthropic: {
    agentId: "herald",
    entityId: "agt_herald",
    config: {
      name: "Herald",
      home: { roomId: "lobby", tx: 42, ty: 26 },
      wake: { nearby: false, name: true, approach: false },
      minIntervalSec: 1,
      turnTimeoutSec: 600,
    },
  },
  gemini: {
    agentId: "sibyl",
    entityId: "agt_sibyl",
    config: {
      name: "Sibyl",
      home: { roomId: "lobby", tx: 42, ty: 22 },
      wake: { nearby: false, name: true, approach: false },
      minIntervalSec: 1,
      turnTimeoutSec: 600,
    },
  },
  failing: {
    agentId: "pythia",
    entityId: "agt_pythia",
    config: {
      name: "Pythia",
      home: { roomId: "lobby", tx: 40, ty: 20 },
      wake: { nearby: false, name: true, approach: false },
      minIntervalSec: 1,
      turnTimeoutSec: 30,
    },
  },
} as const;

/** The townsfolk e2e's residents (issue #41): two in the town's south-east corner, away from where the
 * town files play (the gate, the square and the places west of it). Tilly greets a person who comes
 * near and walks with them; Bram wakes only by his name and by another resident. Each persona carries a
 * scenario marker, so a turn with no one's words in it (a greeting, a meeting) has its script. */
export const E2E_TOWNSFOLK = {
  tilly: {
    agentId: "tilly",
    entityId: "agt_tilly",
    config: {
      name: "Tilly",
      home: { roomId: "town", tx: 53, ty: 30 },
      persona: "You keep the town's gate garden and show visitors round. ocw-scenario:tf-tilly",
      wake: { nearby: true, name: true, approach: true, residents: true },
      minIntervalSec: 0,
      turnTimeoutSec: 600,
    },
  },
  bram: {
    agentId: "bram",
    entityId: "agt_bram",
    config: {
      name: "Bram",
      home: { roomId: "town", tx: 52, ty: 36 },
      persona: "You mend the town's lamps. ocw-scenario:tf-bram",
      wake: { nearby: false, name: true, approach: false, residents: true },
      minIntervalSec: 0,
      turnTimeoutSec: 600,
    },
  },
  /** In the lobby by its west portal, woken only by its name (the lobby is every file's): it takes
   * a person to the town's café through the portal, then walks home once alone for 10 s. */
  guide: {
    agentId: "guide",
    entityId: "agt_guide",
    config: {
      name: "Guide",
      home: { roomId: "lobby", tx: 5, ty: 17 },
      persona: "You show newcomers the way.",
      wake: { nearby: false, name: true, approach: false, residents: false },
      minIntervalSec: 0,
      turnTimeoutSec: 600,
      sessionTurns: 8,
      returnHomeAfterSec: 10,
    },
  },
} as const;

/** The resident-game e2e's resident: on the café game table's R chair, woken by her name and by her
 * move (the table waits for it); her persona's marker picks the script the test sets. */
export const E2E_PLAYER = {
  agentId: "wren",
  entityId: "agt_wren",
  config: {
    name: "Wren",
    home: { roomId: "town", tx: 5, ty: 9 },
    persona: "You play four-in-a-row at the café's table. ocw-scenario:wren-game",
    wake: { nearby: false, name: true, approach: false, residents: false },
    minIntervalSec: 0,
    turnTimeoutSec: 600,
  },
} as const;

/** The garden e2e's gardener: home in the flower bed, tends its plots (waters a thirsty one), woken
 * by nothing (no turn: tending asks no model). */
export const E2E_GARDENER = {
  agentId: "fern",
  entityId: "agt_fern",
  config: {
    name: "Fern",
    look: 1,
    home: { roomId: "garden", tx: 10, ty: 22 },
    tends: ["garden_plot"],
    wake: { nearby: false, name: false, approach: false, residents: false },
    prepareTurns: false,
  },
} as const;

/** The world-wide talk budget of the e2e gateway: one exchange (two turns) an hour. */
export const E2E_TALK_TURNS_PER_HOUR = 2;

/** The HTTP agents only the resident-models e2e uses (people who call the Herald and the Sibyl). */
export const E2E_FORMAT_CALLERS = ["agent_rm_a", "agent_rm_b"] as const;

/** The HTTP agents only the resident-robustness e2e uses (each a person who calls the Warden). */
export const E2E_WARDEN_CALLERS = ["agent_rr_a", "agent_rr_b", "agent_rr_c", "agent_rr_d"] as const;

export function gateway(): E2EGateway {
  return inject("gateway");
}

// biome-ignore lint/suspicious/noExplicitAny: AIC answers read loosely; each is schema-checked
export type AicAnswer = { status: "ok" | "error"; data: any; error?: { code: string; message: string } };

/** POST /aic/v0.1/<path> as the HTTP agent `agentId`, naming `roomId`. */
export async function aicCall(
  roomId: string,
  path: string,
  agentId: string,
  body: Record<string, unknown>,
): Promise<AicAnswer> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[agentId]!.token}` },
    body: JSON.stringify({ agentId, roomId, ...body }),
  });
  return (await res.json()) as AicAnswer;
}

export interface InvokeAnswer {
  status: number;
  body: {
    ok: boolean;
    result?: { content: { type: string; text: string }[]; details: Record<string, unknown> };
    error?: { type: string; message: string };
  };
}

/** POST /tools/invoke, the gateway's way to run a tool without a model. */
export async function invokeTool(
  tool: string,
  args: Record<string, unknown>,
  opts: { agentId?: string; idempotencyKey?: string } = {},
): Promise<InvokeAnswer> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/tools/invoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      tool,
      args,
      ...(opts.agentId ? { agentId: opts.agentId } : {}),
      // The gateway derives the tool call id from idempotencyKey, so a retry keeps its txId.
      ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
    }),
  });
  return { status: res.status, body: (await res.json()) as InvokeAnswer["body"] };
}

/** The operator's admin route (/openclawworld/admin…), with the gateway token unless another is given. */
export function admin(route: string, init: RequestInit = {}, token = gateway().gatewayToken) {
  return fetch(`${gateway().baseUrl}/openclawworld/admin${route}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
}

export interface BoardNotes {
  objectId: string;
  notes: { id: string; text: string }[];
}

/** A notice board's notes, as the operator lists them. */
export async function boardNotes(objectId: string): Promise<BoardNotes> {
  const listed = (await (await admin("/notes")).json()) as { data: { boards: BoardNotes[] } };
  const board = listed.data.boards.find((b) => b.objectId === objectId);
  if (!board) throw new Error(`no board ${objectId} in ${JSON.stringify(listed)}`);
  return board;
}

/** The operator takes down the notes of a board that `which` picks (a file's own notes, at its end:
 * the board is shared by the files). */
export async function removeNotes(objectId: string, which: (note: { text: string }) => boolean) {
  for (const note of (await boardNotes(objectId)).notes.filter(which)) {
    const removed = await admin("/notes/remove", {
      method: "POST",
      body: JSON.stringify({ objectId, noteId: note.id }),
    });
    if (removed.status !== 200) throw new Error(`note ${note.id} not removed: ${await removed.text()}`);
  }
}

/** An HTTP agent in `roomId` leaves the world (a leave naming another room than the agent's is
 * refused: agent_not_in_room). */
export async function leaveWorld(agentId: string, roomId = "lobby"): Promise<void> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/leave`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[agentId]!.token}` },
    body: JSON.stringify({ agentId, roomId }),
  });
  const answer = (await res.json()) as { status: string; error?: { code: string } };
  if (answer.status !== "ok")
    throw new Error(`${agentId} could not leave ${roomId}: ${JSON.stringify(answer)}`);
}

/** The e2e files share one world: a file's HTTP agents (in the lobby) leave it when the file ends, so
 * no later file finds them standing where it plays (or hearing what it says). */
export function leaveWhenDone(...agentIds: string[]): void {
  afterAll(async () => {
    for (const agentId of agentIds) await leaveWorld(agentId);
  });
}
