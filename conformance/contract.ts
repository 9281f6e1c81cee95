// biome-ignore-all lint/suspicious/noExplicitAny: answers are validated against the AIC JSON Schema before their fields are read
// PRD 10.1 contract cases against any AIC server, in any world: for every endpoint, valid requests
// must be answered `ok` (in the result wrapper, `data` matching the endpoint's schema, ours and the
// PRD's) and invalid ones must fail with bad_request. The minimum table of the PRD (observe
// radius/detail, moveTo dest/txId, interact action length, chatSend message length, pollEvents
// limit/cursor) plus one valid and one invalid case for the other endpoints, the bounds of the memory
// extension, and the sequences the PRD promises: a txId replayed is answered the same and acts once,
// a txId reused with another payload is a conflict, reading on from nextCursor never repeats an
// event. What a case needs of the world (an object to interact with, a tile to walk to) comes from
// observing it (discover.ts); a case whose need the room does not meet is skipped, with the reason.
// Every case stands alone: an odd answer fails the case that got it (AnswerJudge: a deviation once),
// and the rest go on with what discovery learnt.
import { DOOR_ACTIONS } from "../src/world/actions/registry.ts";
import { CHAT_MESSAGE_MAX_CHARS } from "../src/world/ids.ts";
import { AnswerJudge } from "./answer-check.ts";
import {
  type Capabilities,
  EVERYTHING,
  EXTENSION_ENDPOINTS,
  type ExtensionName,
  missing,
} from "./capabilities.ts";
import { type Discovered, discover } from "./discover.ts";
import { type AicAnswer, EventTrail, type ScenarioClient, ScenarioFailure } from "./scenarios.ts";

export interface ContractCase {
  endpoint: string;
  /** What the case checks, e.g. "radius 2001 (above max)". */
  name: string;
  /** "ok": a valid request, answered ok. "bad_request": an invalid one. A list: a valid request the
   * world may still refuse, and the only codes it may refuse it with (a destination on a wall). */
  expect: "ok" | "bad_request" | readonly string[];
  body: Record<string, unknown>;
  /** The extension the case needs: its endpoint's, or (for a PRD endpoint's extra field) named. */
  extension?: ExtensionName;
  /** Why the case cannot run in this room (it needs an object the room does not show). */
  unmet?: string;
}

export interface CaseReport {
  suite: "contract";
  name: string;
  ok: boolean;
  problem?: string;
  /** Why it did not run (the server lacks what it needs); ok stays true. */
  skipped?: string;
}

/** The cases for one agent already in the room it discovered (`world`). */
export function contractCases(agentId: string, world: Discovered, runId: string): ContractCase[] {
  const { roomId, cursor } = world;
  const base = { agentId, roomId };
  const noTarget = world.target ? undefined : `room ${roomId} shows no object to interact with`;
  const noSelf = world.self
    ? undefined
    : `observing room ${roomId} gave no tile ${agentId} stands on (${world.gaps.join("; ")})`;
  const targetId = world.target?.id ?? "obj_none";
  const tx = (label: string) => `tx_contract_${label}_${runId}`;
  const observe = (over: Record<string, unknown>) => ({ ...base, radius: 100, detail: "lite", ...over });
  const moveTo = (over: Record<string, unknown>) => ({
    ...base,
    txId: tx("move"),
    dest: world.self ?? { tx: 0, ty: 0 },
    ...over,
  });
  const interact = (action: string, label: string) => ({
    ...base,
    txId: tx(label),
    targetId,
    action,
  });
  const chat = (message: string, label: string) => ({
    ...base,
    txId: tx(label),
    channel: "proximity",
    message,
  });
  const poll = (over: Record<string, unknown>) => ({ ...base, sinceCursor: cursor, ...over });
  const reflect = (over: Record<string, unknown>) => ({
    ...base,
    txId: tx("reflect"),
    content: "a conformance reflection",
    importance: 0.5,
    sources: [] as string[],
    ...over,
  });
  const c = (
    endpoint: string,
    name: string,
    expect: ContractCase["expect"],
    body: Record<string, unknown>,
    extension = (EXTENSION_ENDPOINTS as string[]).includes(endpoint)
      ? (endpoint as ExtensionName)
      : undefined,
    unmet?: string,
  ): ContractCase => ({
    endpoint,
    name,
    expect,
    body,
    ...(extension ? { extension } : {}),
    ...(unmet ? { unmet } : {}),
  });
  const own = (e: string) =>
    (EXTENSION_ENDPOINTS as string[]).includes(e) ? (e as ExtensionName) : undefined;
  return [
    c("observe", "radius 1 (min)", "ok", observe({ radius: 1 })),
    c("observe", "radius 2000 (max)", "ok", observe({ radius: 2000 })),
    c("observe", "radius 0.5 (below min)", "bad_request", observe({ radius: 0.5 })),
    c("observe", "radius 2001 (above max)", "bad_request", observe({ radius: 2001 })),
    c("observe", 'detail "full"', "ok", observe({ detail: "full" })),
    c("observe", 'detail "medium" (not in the enum)', "bad_request", observe({ detail: "medium" })),
    c("observe", "an unknown key", "bad_request", observe({ teleport: true })),
    // (0, 0) may be a wall in the server's map: well formed, so anything but these is a failure.
    c(
      "moveTo",
      "dest (0, 0) (min)",
      ["ok", "collision_blocked", "invalid_destination"],
      moveTo({ txId: tx("move_min"), dest: { tx: 0, ty: 0 } }),
    ),
    c("moveTo", "dest tx -1 (below min)", "bad_request", moveTo({ dest: { tx: -1, ty: 0 } })),
    c("moveTo", "dest ty 100001 (above max)", "bad_request", moveTo({ dest: { tx: 0, ty: 100_001 } })),
    c("moveTo", "dest tx 1.5 (not an integer)", "bad_request", moveTo({ dest: { tx: 1.5, ty: 0 } })),
    c(
      "moveTo",
      "the tile it stands on, txId of 8 characters after tx_ (min)",
      "ok",
      moveTo({ txId: `tx_${runId.slice(-4)}abcd` }),
      undefined,
      noSelf,
    ),
    c("moveTo", "txId of 7 characters after tx_", "bad_request", moveTo({ txId: "tx_abcdefg" })),
    c("moveTo", "txId without the tx_ prefix", "bad_request", moveTo({ txId: "move_12345678" })),
    // An action the object does not offer is well formed: answered ok, outcome invalid_action.
    c("interact", "action of 1 character (min)", "ok", interact("r", "a1"), undefined, noTarget),
    c(
      "interact",
      "action of 64 characters (max)",
      "ok",
      interact("r".repeat(64), "a64"),
      undefined,
      noTarget,
    ),
    c("interact", "empty action", "bad_request", interact("", "a0")),
    c("interact", "action of 65 characters", "bad_request", interact("r".repeat(65), "a65")),
    c("chatSend", "message of 1 character", "ok", chat("x", "m1")),
    c(
      "chatSend",
      `message of ${CHAT_MESSAGE_MAX_CHARS} characters (max)`,
      "ok",
      chat("x".repeat(CHAT_MESSAGE_MAX_CHARS), "mmax"),
    ),
    c(
      "chatSend",
      `message of ${CHAT_MESSAGE_MAX_CHARS + 1} characters`,
      "bad_request",
      chat("x".repeat(CHAT_MESSAGE_MAX_CHARS + 1), "mover"),
    ),
    c("chatSend", "empty message", "bad_request", chat("", "m0")),
    c("chatSend", 'channel "whisper"', "bad_request", { ...chat("x", "mw"), channel: "whisper" }),
    c("chatObserve", "windowSec 300 (max)", "ok", { ...base, windowSec: 300 }),
    c("chatObserve", "windowSec 0 (below min)", "bad_request", { ...base, windowSec: 0 }),
    c("pollEvents", "limit 1 (min)", "ok", poll({ limit: 1 })),
    c("pollEvents", "limit 200 (max)", "ok", poll({ limit: 200 })),
    c("pollEvents", "limit 0 (below min)", "bad_request", poll({ limit: 0 })),
    c("pollEvents", "limit 201 (above max)", "bad_request", poll({ limit: 201 })),
    c(
      "pollEvents",
      "a cursor with characters outside the format",
      "bad_request",
      poll({ sinceCursor: "not a cursor!" }),
    ),
    c("pollEvents", "an empty cursor", "bad_request", poll({ sinceCursor: "" })),
    c("join", "the room it is in", "ok", { ...base }),
    c("join", "a room id with a space", "bad_request", { agentId, roomId: "no such room" }),
    c("leave", "without roomId", "bad_request", { agentId }),
    c("heartbeat", "without a token or an action", "ok", { ...base }),
    c("heartbeat", "an unknown key", "bad_request", { ...base, verbose: true }),
    c("heartbeat", "a malformed contextToken", "bad_request", { ...base, contextToken: "not a token" }),
    // A first wake-up: the action runs and the answer mints the token.
    c("heartbeat", "an action without a contextToken", "ok", {
      ...base,
      action: { kind: "chatSend", txId: tx("hb_notoken"), message: "x" },
    }),
    c("heartbeat", 'action kind "teleport"', "bad_request", {
      ...base,
      action: { kind: "teleport", txId: tx("hb_kind"), dest: { tx: 1, ty: 1 } },
    }),
    c("heartbeat", "an embedded chat over the length limit", "bad_request", {
      ...base,
      action: { kind: "chatSend", txId: tx("hb_long"), message: "x".repeat(CHAT_MESSAGE_MAX_CHARS + 1) },
    }),
    c("heartbeat", "memory 20 (max)", "ok", { ...base, memory: 20 }),
    c("heartbeat", "memory 0 (below min)", "bad_request", { ...base, memory: 0 }),
    // observe's memory field belongs to the memory extension (memory/reflect).
    c("observe", "memory 1 (min)", "ok", observe({ memory: 1 }), "reflect"),
    c("observe", "memory 21 (above max)", "bad_request", observe({ memory: 21 }), "reflect"),
    c(
      "reflect",
      "importance 0 and 1000 characters (bounds)",
      "ok",
      reflect({ importance: 0, content: "r".repeat(1000) }),
    ),
    c(
      "reflect",
      "8 topics (max)",
      "ok",
      reflect({ txId: tx("r_topics"), topics: ["a", "b", "c", "d", "e", "f", "g", "h"] }),
    ),
    c(
      "reflect",
      "9 topics (above max)",
      "bad_request",
      reflect({ topics: ["a", "b", "c", "d", "e", "f", "g", "h", "i"] }),
    ),
    c("reflect", "importance 1.5 (above max)", "bad_request", reflect({ importance: 1.5 })),
    c("reflect", "importance -0.1 (below min)", "bad_request", reflect({ importance: -0.1 })),
    c("reflect", "content of 1001 characters", "bad_request", reflect({ content: "r".repeat(1001) })),
    c("reflect", "blank content", "bad_request", reflect({ content: "   " })),
    c("reflect", "a topic with a space", "bad_request", reflect({ topics: ["two words"] })),
    c("reflect", "an unknown key", "bad_request", reflect({ mood: "pensive" })),
    c("reflect", "without importance", "bad_request", { ...reflect({}), importance: undefined }),
    c(
      "approach",
      "an object of the room",
      "ok",
      { ...base, txId: tx("approach"), targetId },
      own("approach"),
      noTarget,
    ),
    c("approach", "a targetId that is no entity id", "bad_request", {
      ...base,
      txId: tx("approach_bad"),
      targetId: "the sign",
    }),
    c("approach", "without targetId", "bad_request", { ...base, txId: tx("approach_none") }),
    // Each kind with doors brings its own valid fields (src/world/actions/<kind>.ts: `example`).
    ...DOOR_ACTIONS.flatMap(({ kind, doors }) => [
      c(kind, "its own example", "ok", { ...base, txId: tx(kind), ...doors.example }),
      c(kind, "its example and an unknown key", "bad_request", {
        ...base,
        txId: tx(`${kind}_extra`),
        ...doors.example,
        unknownKey: true,
      }),
    ]),
  ];
}

/** A case that is a sequence of requests: the problem, or undefined when the server kept its promise. */
interface SequenceCase {
  endpoint: string;
  name: string;
  run(
    client: ScenarioClient,
    agentId: string,
    world: Discovered,
    runId: string,
    answers: AnswerJudge,
  ): Promise<string | undefined>;
}

async function answered(
  client: ScenarioClient,
  answers: AnswerJudge,
  endpoint: string,
  agentId: string,
  body: Record<string, unknown>,
): Promise<any> {
  const answer = await client.call(endpoint, agentId, body);
  const shape = answers.check(endpoint, answer);
  if (shape) throw new ScenarioFailure(shape);
  if (answer.status !== "ok")
    throw new ScenarioFailure(
      `a valid ${endpoint} was refused: ${answer.error.code}: ${answer.error.message}`,
    );
  return answer.data;
}

export const SEQUENCE_CASES: SequenceCase[] = [
  {
    endpoint: "chatSend",
    name: "the same txId and payload again is the same answer, and one message",
    async run(client, agentId, { roomId }, runId, answers) {
      const body = {
        agentId,
        roomId,
        txId: `tx_contract_replay_${runId}`,
        channel: "proximity",
        message: `replay check ${runId}`,
      };
      const first = await answered(client, answers, "chatSend", agentId, body);
      const again = await answered(client, answers, "chatSend", agentId, body);
      if (again.txId !== first.txId || again.chatMessageId !== first.chatMessageId)
        return `the replay answered ${JSON.stringify(again)}, the first send ${JSON.stringify(first)}`;
      const heard = await answered(client, answers, "chatObserve", agentId, {
        agentId,
        roomId,
        windowSec: 300,
      });
      const copies = (heard.messages as { message: string }[]).filter((m) => m.message === body.message);
      return copies.length === 1 ? undefined : `the message was posted ${copies.length} times`;
    },
  },
  {
    endpoint: "chatSend",
    name: "the same txId with another message is a conflict",
    async run(client, agentId, { roomId }, runId, answers) {
      const body = { agentId, roomId, txId: `tx_contract_reuse_${runId}`, channel: "proximity" };
      await answered(client, answers, "chatSend", agentId, { ...body, message: "first" });
      const other = await client.call("chatSend", agentId, { ...body, message: "second" });
      const shape = answers.check("chatSend", other);
      if (shape) return shape;
      return other.status === "error" && other.error.code === "conflict"
        ? undefined
        : `expected conflict, got ${other.status === "ok" ? "status ok" : other.error.code}`;
    },
  },
  {
    endpoint: "pollEvents",
    name: "reading on from each nextCursor never delivers an event twice",
    async run(client, agentId, { roomId, cursor: from }, _runId, answers) {
      // Something to read: two messages after the cursor.
      for (const n of [1, 2]) {
        await answered(client, answers, "chatSend", agentId, {
          agentId,
          roomId,
          txId: `tx_contract_cursor_${n}_${client.runId}`,
          channel: "proximity",
          message: `cursor check ${n}`,
        });
      }
      const trail = new EventTrail();
      let cursor = from;
      let delivered = 0;
      for (let page = 0; page < 100; page++) {
        const more = await answered(client, answers, "pollEvents", agentId, {
          agentId,
          roomId,
          sinceCursor: cursor,
          limit: 2,
        });
        trail.add(more, cursor, `page ${page}`);
        delivered += more.events.length;
        cursor = more.nextCursor;
        if (more.events.length === 0) break;
      }
      return delivered > 0 ? undefined : "no event was delivered after two chat messages";
    },
  },
];

/** Runs every case as `agentId` in `roomId` (joined first when the server has join); one report
 * per case, whatever the others met. */
export async function runContract(
  client: ScenarioClient,
  agentId: string,
  roomId: string,
  caps: Capabilities = EVERYTHING,
  answers: AnswerJudge = new AnswerJudge(),
): Promise<CaseReport[]> {
  const world = await discover(client, agentId, roomId, caps);
  const reports: CaseReport[] = [];
  const report = (name: string, problem: string | undefined, skipped?: string) =>
    reports.push({
      suite: "contract",
      name,
      ok: problem === undefined,
      ...(problem ? { problem } : {}),
      ...(skipped ? { skipped } : {}),
    });
  for (const k of contractCases(agentId, world, client.runId)) {
    const name = `${k.endpoint}: ${k.name}`;
    const skipped = missing(caps, k.extension ? { extension: k.extension } : {}) ?? k.unmet;
    if (skipped) {
      report(name, undefined, skipped);
      continue;
    }
    let problem: string | undefined;
    try {
      problem = judge(k, await client.call(k.endpoint, agentId, k.body), answers);
    } catch (error) {
      problem = `no AIC answer: ${error instanceof Error ? error.message : String(error)}`;
    }
    report(name, problem);
  }
  for (const k of SEQUENCE_CASES) {
    let problem: string | undefined;
    try {
      problem = await k.run(client, agentId, world, client.runId, answers);
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    report(`${k.endpoint}: ${k.name}`, problem);
  }
  return reports;
}

function judge(k: ContractCase, answer: AicAnswer, answers: AnswerJudge): string | undefined {
  // A PRD endpoint asked for an extension field answers with it: the PRD's schema has no such field.
  const shape = answers.check(
    k.endpoint,
    answer,
    k.extension && k.extension !== k.endpoint ? { prd: false } : {},
  );
  if (shape) return shape;
  // Read as sent: a wrapper deviation reported by an earlier case may show here again.
  const got = answer.status === "ok" ? "ok" : String(answer.error?.code);
  if (k.expect === "bad_request") {
    if (answer.status === "ok")
      return "expected bad_request, got status ok (an invalid request was accepted)";
    return got === "bad_request" ? undefined : `expected bad_request, got ${got}`;
  }
  const allowed: readonly string[] = k.expect === "ok" ? ["ok"] : k.expect;
  if (allowed.includes(got)) return undefined;
  const message = answer.status === "error" ? `: ${answer.error?.message}` : "";
  return `a valid request must be answered ${allowed.join(" or ")}, got ${got}${message}`;
}
