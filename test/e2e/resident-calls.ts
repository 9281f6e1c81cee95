// What the residents' e2e files (resident-robustness, resident-models) do as the people who call a
// resident: HTTP agents who join the lobby, speak on its room channel, read what they heard, and the
// operator status of one resident.
import { until } from "../support/browser.ts";
import { gateway } from "./fixtures.ts";

export const TURN_MS = 300_000;

export interface ChatLine {
  fromEntityId: string;
  message: string;
  channel: string;
  tsMs: number;
}
export interface ResidentStatus {
  agentId: string;
  state: string;
  reason?: string;
  pending: number;
  turnsLastHour: number;
  refused: { personShare: number; worldBudget: number; modelRequests: number; timeout: number };
  prepared?: { ms: number; said: string };
  failing?: { error: string; sinceMs: number; lastAtMs: number; turns: number };
  lastTurn?: {
    startedAtMs?: number;
    endedAtMs?: number;
    modelRequests: number;
    modelFailures?: number;
    lastModelFailure?: string;
    error?: string;
  };
}

export async function send<T>(agent: string, path: string, body: Record<string, unknown>) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[agent]!.token}` },
    body: JSON.stringify({ agentId: agent, roomId: "lobby", ...body }),
  });
  return (await res.json()) as { status: string; data: T; error?: { code: string } };
}

export async function call<T>(agent: string, path: string, body: Record<string, unknown>): Promise<T> {
  const json = await send<T>(agent, path, body);
  if (json.status !== "ok") throw new Error(`${path} for ${agent}: ${JSON.stringify(json.error)}`);
  return json.data;
}

let said = 0;
/** An HTTP agent says `message` on the room channel (a resident woken by its name hears it). */
export async function say(agent: string, message: string): Promise<void> {
  said += 1;
  await call(agent, "chatSend", { txId: `tx_rc_${Date.now()}_${said}`, channel: "global", message });
}

/** What `resident` said that `agent` heard, with the channel it came on, after the line of `afterTsMs`
 * when given (polled: a rate-limited look is "not yet"). */
export async function heardFrom(
  resident: string,
  agent: string,
  message: string,
  afterTsMs = -1,
): Promise<ChatLine | undefined> {
  const lines = await heard(agent);
  return lines?.find((m) => m.fromEntityId === resident && m.message === message && m.tsMs > afterTsMs);
}

/** What `agent` heard in the last 5 minutes (undefined: rate limited, "not yet"). */
export async function heard(agent: string): Promise<ChatLine[] | undefined> {
  const json = await send<{ messages: ChatLine[] }>(agent, "chatObserve", { windowSec: 300 });
  if (json.error?.code === "rate_limited") return undefined;
  if (json.status !== "ok") throw new Error(`chatObserve for ${agent}: ${JSON.stringify(json.error)}`);
  return json.data.messages;
}

export async function residentStatus(agentId: string): Promise<ResidentStatus> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
  });
  const body = (await res.json()) as { data?: { residents?: ResidentStatus[] } };
  const found = body.data?.residents?.find((r) => r.agentId === agentId);
  if (!found) throw new Error(`no ${agentId} in the operator status: ${JSON.stringify(body).slice(0, 300)}`);
  return found;
}

/** Waits until the resident is between turns with nothing pending (its last turn may have failed). */
export const betweenTurns = (agentId: string) =>
  until(
    `${agentId} between turns`,
    async () => {
      const r = await residentStatus(agentId);
      return (
        (r.state === "awake" || r.state === "failing") &&
        r.pending === 0 &&
        (r.lastTurn === undefined || !!r.lastTurn.endedAtMs)
      );
    },
    TURN_MS,
  );

/** A model's answer through ocw_chat_send, then its closing text. */
export const answer = (message: string, ids?: "per-response") => [
  { toolCalls: [{ name: "ocw_chat_send", arguments: { message } }], ...(ids ? { ids } : {}) },
  { text: "done" },
];
