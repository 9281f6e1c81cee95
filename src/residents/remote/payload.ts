// What a wake says (docs/wake-targets.md). The woken side treats a wake as trusted (openclaw puts wake
// text into the agent's session as a system event), so it carries no one's words: the world, the
// agent, why it was woken, and where to look (a fixed notice, ids and an event cursor). The agent
// reads what was said through its own heartbeat or event poll, where it arrives as world content.
import type { WakeEndpoint } from "../../config/config.ts";
import type { WakeRequest } from "./delivery.ts";
import { signedHeaders } from "./signing.ts";

// ocw_poll_events, not ocw_heartbeat: an agent's first heartbeat counts changes from that moment, so
// it would not show what was said before the wake (seen end to end, test/install/remote-resident).
export const WAKE_NOTICE =
  "Someone in OpenClawWorld may be talking to you. Read your world events from the cursor (ocw_poll_events, or pollEvents over AIC) and answer there.";

export interface WakePayload {
  type: "openclawworld.wake";
  version: 1;
  deliveryId: string;
  world: { name: string; aicBaseUrl?: string };
  agentId: string;
  entityId: string;
  roomId: string;
  reasons: string[];
  /** Who woke it, as entity ids (names are chosen by strangers: they stay in the world). */
  fromEntityIds: string[];
  tick: number;
  /** Where its event poll finds what woke it. */
  cursor: string;
  notice: string;
}

/** The wake request for `endpoint`: a signed JSON POST, or an openclaw gateway's wake hook. */
export function wakeRequest(endpoint: WakeEndpoint, payload: WakePayload, nowMs: number): WakeRequest {
  if (endpoint.kind === "webhook") {
    const body = JSON.stringify(payload);
    return {
      url: endpoint.url,
      headers: signedHeaders(endpoint.secret, payload.deliveryId, nowMs, body),
      body,
    };
  }
  return {
    url: endpoint.url,
    headers: { authorization: `Bearer ${endpoint.hookToken}` },
    body: JSON.stringify({ text: wakeText(payload), mode: "now", agentId: endpoint.agentId }),
  };
}

/** The one line an openclaw agent's session is given: the notice and the ids, all of the world's
 * own making (id patterns, the operator's world name). */
export function wakeText(p: WakePayload): string {
  const where = p.world.aicBaseUrl ? ` aic=${p.world.aicBaseUrl}` : "";
  return `${p.notice} [openclawworld wake: world=${p.world.name} agent=${p.agentId} room=${p.roomId} reasons=${p.reasons.join(",")} tick=${p.tick} cursor=${p.cursor} delivery=${p.deliveryId}${where}]`;
}
