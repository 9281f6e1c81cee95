// PRD 10.3 policy cases against a gateway running the plugin, through its POST /tools/invoke with the
// operator token: the required tools always answer; each optional tool runs exactly when ocw_status
// says it is enabled for the agent, and is refused (tool_call_blocked) otherwise — whether it was
// never enabled or is denied; a refused ocw_chat_send leaves no message in the world, and a refused
// ocw_reflect no reflection in the agent's memory. A tool's `details` is its endpoint's answer data,
// and is checked against that endpoint's schemas (ours, and the PRD's for its six endpoints).
import type { EndpointName } from "../src/aic/endpoints.ts";
import { checkDetails } from "./answer-check.ts";

export interface PolicyReport {
  suite: "policy";
  name: string;
  ok: boolean;
  problem?: string;
}

export interface GatewayTarget {
  /** The gateway's base URL, e.g. http://127.0.0.1:18789 */
  url: string;
  /** The gateway's operator token (never an agent's). */
  token: string;
}

interface InvokeAnswer {
  status: number;
  body: {
    ok?: boolean;
    result?: { content?: { text?: string }[]; details?: Record<string, unknown> };
    error?: { type?: string; message?: string };
  };
}

const REQUIRED: [string, Record<string, unknown>][] = [
  ["ocw_status", {}],
  ["ocw_observe", { radius: 64 }],
  ["ocw_poll_events", {}],
  ["ocw_chat_observe", { windowSec: 30 }],
  ["ocw_heartbeat", {}],
];
const OPTIONAL = ["ocw_move_to", "ocw_interact", "ocw_chat_send", "ocw_reflect"] as const;

/** The endpoint whose answer data a tool's `details` is (ocw_status reports on the plugin instead). */
const TOOL_ENDPOINT: Record<string, EndpointName> = {
  ocw_observe: "observe",
  ocw_poll_events: "pollEvents",
  ocw_chat_observe: "chatObserve",
  ocw_heartbeat: "heartbeat",
  ocw_move_to: "moveTo",
  ocw_interact: "interact",
  ocw_chat_send: "chatSend",
  ocw_reflect: "reflect",
};

/** Why a tool's successful answer carries `details` its endpoint's schemas refuse, if it does. */
function detailsProblem(tool: string, answer: InvokeAnswer): string | undefined {
  const endpoint = TOOL_ENDPOINT[tool];
  if (!endpoint || answer.status !== 200 || !answer.body.ok) return undefined;
  const problem = checkDetails(endpoint, answer.body.result?.details);
  return problem ? `details: ${problem}` : undefined;
}

async function invoke(
  gw: GatewayTarget,
  tool: string,
  args: Record<string, unknown>,
  agentId: string,
): Promise<InvokeAnswer> {
  const res = await fetch(`${gw.url.replace(/\/+$/, "")}/tools/invoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${gw.token}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, args, agentId }),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as InvokeAnswer["body"] };
  } catch {
    return { status: res.status, body: { error: { message: `not JSON: ${text.slice(0, 80)}` } } };
  }
}

const blocked = (a: InvokeAnswer) => a.status === 403 && a.body.error?.type === "tool_call_blocked";
const describeAnswer = (a: InvokeAnswer) =>
  `HTTP ${a.status} ${a.body.error?.type ?? (a.body.ok ? "ok" : "")} ${a.body.error?.message ?? ""}`.trim();

/** Arguments that make each optional tool do something harmless where the agent stands. */
async function harmlessArgs(
  gw: GatewayTarget,
  tool: (typeof OPTIONAL)[number],
  agentId: string,
  runId: string,
): Promise<Record<string, unknown>> {
  // Each agent's own text: an allowed agent standing nearby says the same check aloud, and a refused
  // agent hearing it is no delivery of its own. The reflection matters most, so a memory crowded with
  // what the agent perceived still lists it.
  if (tool === "ocw_chat_send") return { message: `policy check ${runId} by ${agentId}` };
  if (tool === "ocw_reflect") return { content: `policy check ${runId} by ${agentId}`, importance: 1 };
  if (tool === "ocw_interact") return { targetId: "obj_sign_welcome", action: "read" };
  const seen = await invoke(gw, "ocw_observe", { radius: 1 }, agentId);
  const tile = (seen.body.result?.details?.self as { tile?: { tx: number; ty: number } } | undefined)?.tile;
  return tile ? { tx: tile.tx, ty: tile.ty } : { tx: 1, ty: 1 };
}

export async function runPolicy(
  gw: GatewayTarget,
  agentIds: string[],
  runId: string,
): Promise<PolicyReport[]> {
  const reports: PolicyReport[] = [];
  const report = (name: string, problem: string | undefined) =>
    reports.push({ suite: "policy", name, ok: problem === undefined, ...(problem ? { problem } : {}) });
  for (const agentId of agentIds) {
    for (const [tool, args] of REQUIRED) {
      const answer = await invoke(gw, tool, args, agentId).catch((e: unknown) => e as Error);
      if (answer instanceof Error) {
        report(`${agentId}: required ${tool} answers`, `gateway unreachable: ${answer.message}`);
        continue;
      }
      report(
        `${agentId}: required ${tool} answers`,
        answer.status === 200 && answer.body.ok
          ? detailsProblem(tool, answer)
          : `expected HTTP 200 ok, got ${describeAnswer(answer)}`,
      );
    }
    const status = await invoke(gw, "ocw_status", {}, agentId).catch(() => undefined);
    const enabled = (status?.body.result?.details?.caller as { enabledOptionalTools?: string[] } | undefined)
      ?.enabledOptionalTools;
    if (!enabled) {
      report(
        `${agentId}: ocw_status reports the enabled optional tools`,
        "no caller.enabledOptionalTools in ocw_status",
      );
      continue;
    }
    for (const tool of OPTIONAL) {
      const on = enabled.includes(tool);
      const args = await harmlessArgs(gw, tool, agentId, runId);
      const answer = await invoke(gw, tool, args, agentId);
      const name = `${agentId}: ${tool} is ${on ? "allowed (enabled)" : "refused (not enabled or denied)"}`;
      if (on)
        report(
          name,
          blocked(answer) ? `enabled but blocked: ${describeAnswer(answer)}` : detailsProblem(tool, answer),
        );
      else
        report(
          name,
          blocked(answer) ? undefined : `expected 403 tool_call_blocked, got ${describeAnswer(answer)}`,
        );
      if (tool === "ocw_chat_send" && !on) {
        const heard = await invoke(gw, "ocw_chat_observe", { windowSec: 60, channel: "proximity" }, agentId);
        const messages = (heard.body.result?.details?.messages as { message: string }[] | undefined) ?? [];
        report(
          `${agentId}: a refused ocw_chat_send puts nothing in the world`,
          messages.some((m) => m.message === args.message) ? "the refused message was delivered" : undefined,
        );
      }
      if (tool === "ocw_reflect") {
        // The agent's own working memory holds the reflection exactly when the tool was allowed.
        const beat = await invoke(gw, "ocw_heartbeat", { memory: 20 }, agentId);
        const memory = (beat.body.result?.details?.memory as { content?: string }[] | undefined) ?? [];
        const stored = memory.some((m) => m.content === args.content);
        report(
          `${agentId}: ocw_reflect ${on ? "stores" : "stores nothing when refused"} (own working memory)`,
          stored === on ? undefined : `reflection ${stored ? "stored" : "missing"}: ${describeAnswer(beat)}`,
        );
      }
    }
  }
  return reports;
}
