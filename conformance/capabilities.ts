// What a server under test offers beyond the PRD. The PRD's AIC has six endpoints (section 6: observe,
// moveTo, interact, chatSend, chatObserve, pollEvents) and pre-provisioned agents (section 14); this
// project adds join, leave, heartbeat and memory/reflect, and a human WebSocket at /world/ws. The
// conformance CLI asks the server which of those it has and runs the PRD's cases on any AIC server,
// skipping (and naming) the cases that need what it lacks.
import { ENDPOINT_NAMES, type EndpointName } from "../src/aic/endpoints.ts";

const PRD_SIX = ["observe", "moveTo", "interact", "chatSend", "chatObserve", "pollEvents"] as const;
export const PRD_ENDPOINTS: readonly (typeof PRD_SIX)[number][] = PRD_SIX satisfies readonly EndpointName[];

export type ExtensionName = Exclude<EndpointName, (typeof PRD_ENDPOINTS)[number]>;
export const EXTENSION_ENDPOINTS = ENDPOINT_NAMES.filter(
  (name): name is ExtensionName => !(PRD_ENDPOINTS as readonly string[]).includes(name),
);

export interface Capabilities {
  /** The extension endpoints the server serves. */
  extensions: ReadonlySet<ExtensionName>;
  /** Whether a human can come in over the world's WebSocket (the speaker of PRD scenario B). */
  human: boolean;
  /** What the server answered when asked for an extension it turned out not to have. */
  why?: Partial<Record<ExtensionName, string>>;
  /** Why there is no human, when it is not that /world/ws is missing. */
  humanWhy?: string;
}

/** This project's own server: everything. */
export const EVERYTHING: Capabilities = { extensions: new Set(EXTENSION_ENDPOINTS), human: true };

/** The PRD's humans speak Colyseus (PRD 9.2); this suite's human speaks the web client's protocol
 * on /world/ws, so a server without it cannot be given one. */
export const NO_HUMAN =
  "needs a human client: this server has no /world/ws, and this suite has no Colyseus human (PRD 9.2)";

/** Why a case or scenario cannot run on a server with `caps`, or undefined when it can. */
export function missing(
  caps: Capabilities,
  needs: { extension?: ExtensionName; human?: boolean },
): string | undefined {
  if (needs.extension && !caps.extensions.has(needs.extension)) {
    const answered = caps.why?.[needs.extension];
    return `needs the ${needs.extension} extension, which this server does not serve${answered ? ` (asked: ${answered})` : ""}`;
  }
  if (needs.human && !caps.human) return caps.humanWhy ?? NO_HUMAN;
  return undefined;
}
