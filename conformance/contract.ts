// biome-ignore-all lint/suspicious/noExplicitAny: answers are validated against the AIC JSON Schema before their fields are read
// PRD 10.1 contract cases against any AIC server: for every endpoint, valid requests must pass (an
// answer in the result wrapper whose `data` matches the endpoint's schema, never bad_request) and
// invalid ones must fail with bad_request. The minimum table of the PRD (observe radius/detail,
// moveTo dest/txId, interact action length, chatSend message length, pollEvents limit/cursor) plus
// one valid and one invalid case for the other endpoints, and the bounds of the memory extension.
import { START_CURSOR } from "../src/aic/cursor.ts";
import { CHAT_MESSAGE_MAX_CHARS } from "../src/world/ids.ts";
import {
  type Capabilities,
  EVERYTHING,
  EXTENSION_ENDPOINTS,
  type ExtensionName,
  missing,
} from "./capabilities.ts";
import { type AicAnswer, checkAnswer, type ScenarioClient } from "./scenarios.ts";

export interface ContractCase {
  endpoint: string;
  /** What the case checks, e.g. "radius 2001 (above max)". */
  name: string;
  expect: "pass" | "bad_request";
  body: Record<string, unknown>;
  /** The extension the case needs: its endpoint's, or (for a PRD endpoint's extra field) named. */
  extension?: ExtensionName;
}

export interface CaseReport {
  suite: "contract";
  name: string;
  ok: boolean;
  problem?: string;
  /** Why it did not run (the server lacks what it needs); ok stays true. */
  skipped?: string;
}

/** The cases for one agent already in `roomId`; `cursor` is a cursor that agent may read from. */
export function contractCases(
  agentId: string,
  roomId: string,
  cursor: string,
  runId: string,
): ContractCase[] {
  const base = { agentId, roomId };
  const tx = (label: string) => `tx_contract_${label}_${runId}`;
  const observe = (over: Record<string, unknown>) => ({ ...base, radius: 100, detail: "lite", ...over });
  const moveTo = (over: Record<string, unknown>) => ({
    ...base,
    txId: tx("move"),
    dest: { tx: 1, ty: 1 },
    ...over,
  });
  const interact = (action: string, label: string) => ({
    ...base,
    txId: tx(label),
    targetId: "obj_sign_welcome",
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
  ): ContractCase => ({
    endpoint,
    name,
    expect,
    body,
    ...(extension ? { extension } : {}),
  });
  return [
    c("observe", "radius 1 (min)", "pass", observe({ radius: 1 })),
    c("observe", "radius 2000 (max)", "pass", observe({ radius: 2000 })),
    c("observe", "radius 0.5 (below min)", "bad_request", observe({ radius: 0.5 })),
    c("observe", "radius 2001 (above max)", "bad_request", observe({ radius: 2001 })),
    c("observe", 'detail "full"', "pass", observe({ detail: "full" })),
    c("observe", 'detail "medium" (not in the enum)', "bad_request", observe({ detail: "medium" })),
    c("observe", "an unknown key", "bad_request", observe({ teleport: true })),
    c("moveTo", "dest (0, 0) (min)", "pass", moveTo({ txId: tx("move_min"), dest: { tx: 0, ty: 0 } })),
    c("moveTo", "dest tx -1 (below min)", "bad_request", moveTo({ dest: { tx: -1, ty: 0 } })),
    c("moveTo", "dest ty 100001 (above max)", "bad_request", moveTo({ dest: { tx: 0, ty: 100_001 } })),
    c("moveTo", "dest tx 1.5 (not an integer)", "bad_request", moveTo({ dest: { tx: 1.5, ty: 0 } })),
    c(
      "moveTo",
      "txId of 8 characters after tx_ (min)",
      "pass",
      moveTo({ txId: `tx_${runId.slice(-4)}abcd` }),
    ),
    c("moveTo", "txId of 7 characters after tx_", "bad_request", moveTo({ txId: "tx_abcdefg" })),
    c("moveTo", "txId without the tx_ prefix", "bad_request", moveTo({ txId: "move_12345678" })),
    c("interact", "action of 1 character (min)", "pass", interact("r", "a1")),
    c("interact", "action of 64 characters (max)", "pass", interact("r".repeat(64), "a64")),
    c("interact", "empty action", "bad_request", interact("", "a0")),
    c("interact", "action of 65 characters", "bad_request", interact("r".repeat(65), "a65")),
    c("chatSend", "message of 1 character", "pass", chat("x", "m1")),
    c(
      "chatSend",
      `message of ${CHAT_MESSAGE_MAX_CHARS} characters (max)`,
      "pass",
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
    c("chatObserve", "windowSec 300 (max)", "pass", { ...base, windowSec: 300 }),
    c("chatObserve", "windowSec 0 (below min)", "bad_request", { ...base, windowSec: 0 }),
    c("pollEvents", "limit 1 (min)", "pass", poll({ limit: 1 })),
    c("pollEvents", "limit 200 (max)", "pass", poll({ limit: 200 })),
    c("pollEvents", "limit 0 (below min)", "bad_request", poll({ limit: 0 })),
    c("pollEvents", "limit 201 (above max)", "bad_request", poll({ limit: 201 })),
    c(
      "pollEvents",
      "a cursor with characters outside the format",
      "bad_request",
      poll({ sinceCursor: "not a cursor!" }),
    ),
    c("pollEvents", "an empty cursor", "bad_request", poll({ sinceCursor: "" })),
    c("join", "the room it is in", "pass", { ...base }),
    c("join", "a room id with a space", "bad_request", { agentId, roomId: "no such room" }),
    c("leave", "without roomId", "bad_request", { agentId }),
    c("heartbeat", "without a token or an action", "pass", { ...base }),
    c("heartbeat", "an unknown key", "bad_request", { ...base, verbose: true }),
    c("heartbeat", "a malformed contextToken", "bad_request", { ...base, contextToken: "not a token" }),
    // A first wake-up: the action runs and the answer mints the token (issue #25).
    c("heartbeat", "an action without a contextToken", "pass", {
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
    c("heartbeat", "memory 20 (max)", "pass", { ...base, memory: 20 }),
    c("heartbeat", "memory 0 (below min)", "bad_request", { ...base, memory: 0 }),
    // observe's memory field belongs to the memory extension (memory/reflect).
    c("observe", "memory 1 (min)", "pass", observe({ memory: 1 }), "reflect"),
    c("observe", "memory 21 (above max)", "bad_request", observe({ memory: 21 }), "reflect"),
    c(
      "reflect",
      "importance 0 and 1000 characters (bounds)",
      "pass",
      reflect({ importance: 0, content: "r".repeat(1000) }),
    ),
    c(
      "reflect",
      "8 topics (max)",
      "pass",
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
    c("approach", "an object of the room", "pass", {
      ...base,
      txId: tx("approach"),
      targetId: "obj_sign_welcome",
    }),
    c("approach", "a targetId that is no entity id", "bad_request", {
      ...base,
      txId: tx("approach_bad"),
      targetId: "the sign",
    }),
    c("approach", "without targetId", "bad_request", { ...base, txId: tx("approach_none") }),
  ];
}

/** Runs every case as `agentId` (who must be able to join `roomId`); one report per case. */
export async function runContract(
  client: ScenarioClient,
  agentId: string,
  roomId = "lobby",
  caps: Capabilities = EVERYTHING,
): Promise<CaseReport[]> {
  // A server without join has the PRD's pre-provisioned agent in the room already.
  let cursor = START_CURSOR;
  if (caps.extensions.has("join")) {
    const joined = await client.call("join", agentId, { agentId, roomId }).catch((error: unknown) => error);
    const joinProblem =
      joined instanceof Error
        ? `no AIC answer: ${joined.message}`
        : (checkAnswer("join", joined) ??
          ((joined as AicAnswer).status === "ok"
            ? undefined
            : `${(joined as { error: { code: string } }).error.code}: the agent could not join ${roomId}`));
    if (joinProblem)
      return [{ suite: "contract", name: "join before the contract cases", ok: false, problem: joinProblem }];
    cursor = (joined as any).data.cursor;
  }
  const reports: CaseReport[] = [];
  for (const k of contractCases(agentId, roomId, cursor, client.runId)) {
    const name = `${k.endpoint}: ${k.name}`;
    const skipped = missing(caps, k.extension ? { extension: k.extension } : {});
    if (skipped) {
      reports.push({ suite: "contract", name, ok: true, skipped });
      continue;
    }
    let problem: string | undefined;
    try {
      problem = judge(k, await client.call(k.endpoint, agentId, k.body));
    } catch (error) {
      problem = `no AIC answer: ${error instanceof Error ? error.message : String(error)}`;
    }
    reports.push({ suite: "contract", name, ok: problem === undefined, ...(problem ? { problem } : {}) });
  }
  return reports;
}

function judge(k: ContractCase, answer: AicAnswer): string | undefined {
  const shape = checkAnswer(k.endpoint, answer);
  if (shape) return shape;
  if (k.expect === "bad_request") {
    if (answer.status === "ok")
      return "expected bad_request, got status ok (an invalid request was accepted)";
    if (answer.error.code !== "bad_request") return `expected bad_request, got ${answer.error.code}`;
    return undefined;
  }
  if (answer.status === "error" && answer.error.code === "bad_request") {
    return `a valid request was refused as bad_request: ${answer.error.message}`;
  }
  return undefined;
}
