// Who may open a human WebSocket, and how many: the Origin check (against the addresses this gateway
// really serves, never against the Host header, which a DNS-rebinding page controls), caps per remote
// address and in total, a cap on human sessions, and load shedding while the tick runs near its
// deadline. Refusals carry a clear reason (a WebSocket close code + text, or an HTTP status).
import type { IncomingMessage } from "node:http";
import { isLocalAddress, isLoopbackName } from "../host-rule.ts";

export interface AdmissionLimits {
  /** Open WebSockets in total. */
  maxConnections: number;
  /** Open WebSockets per remote address. */
  maxConnectionsPerAddress: number;
  /** Human sessions (connected, or disconnected within the resume grace period). */
  maxHumans: number;
  /** Extra browser origins allowed to open the WebSocket, e.g. "https://world.example". */
  allowedOrigins: readonly string[];
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxConnections: 200,
  maxConnectionsPerAddress: 20,
  maxHumans: 200,
  allowedOrigins: [],
};

/** WebSocket close code 1013 "Try Again Later" (RFC 6455 registry): a capacity refusal. */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** Close code for a refused origin (policy violation). */
export const CLOSE_POLICY = 1008;

/** The tick's share of its interval above which new connections and joins are refused. */
export const SHED_LOAD_RATIO = 0.8;

export type Refusal = { code: number; reason: string };

export interface Admission {
  /** Whether a browser page at this request's Origin may open the WebSocket. */
  originAllowed(req: IncomingMessage): boolean;
  /** Count a new connection, or say why it is refused. `release` must be called once it closes. */
  connect(req: IncomingMessage): { ok: true; release(): void } | { ok: false; refusal: Refusal };
  /** Whether one more human session may start now (`sessions` exist already). */
  join(sessions: number): Refusal | undefined;
  stats(): { connections: number; addresses: number };
}

/** `load()` is the tick's recent busy share of its interval (see WorldRuntime.health().load). */
export function createAdmission(limits: AdmissionLimits, load: () => number): Admission {
  const allowList = new Set(limits.allowedOrigins.map(normalizeOrigin).filter((o) => o !== undefined));
  const perAddress = new Map<string, number>();
  let total = 0;

  const overloaded = (): Refusal | undefined =>
    load() > SHED_LOAD_RATIO
      ? { code: CLOSE_TRY_AGAIN_LATER, reason: "the world is busy (tick near its deadline); try again later" }
      : undefined;

  return {
    originAllowed(req) {
      const origin = req.headers.origin;
      if (origin === undefined) return true; // not a browser: no page to hijack a session from
      const normalized = normalizeOrigin(origin);
      if (!normalized) return false;
      if (allowList.has(normalized)) return true;
      const url = new URL(normalized);
      const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
      if (port !== req.socket.localPort) return false;
      const host = url.hostname;
      return isLoopbackName(host) || isLocalAddress(host, req.socket.localAddress);
    },

    connect(req) {
      const address = req.socket.remoteAddress ?? "unknown";
      if (total >= limits.maxConnections) {
        return refuse(`too many connections (limit ${limits.maxConnections})`);
      }
      const mine = perAddress.get(address) ?? 0;
      if (mine >= limits.maxConnectionsPerAddress) {
        return refuse(`too many connections from this address (limit ${limits.maxConnectionsPerAddress})`);
      }
      const busy = overloaded();
      if (busy) return { ok: false, refusal: busy };
      total += 1;
      perAddress.set(address, mine + 1);
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          total -= 1;
          const left = (perAddress.get(address) ?? 1) - 1;
          if (left > 0) perAddress.set(address, left);
          else perAddress.delete(address);
        },
      };
    },

    join(sessions) {
      if (sessions >= limits.maxHumans) {
        return {
          code: CLOSE_TRY_AGAIN_LATER,
          reason: `the world is full (limit ${limits.maxHumans} humans)`,
        };
      }
      return overloaded();
    },

    stats() {
      return { connections: total, addresses: perAddress.size };
    },
  };
}

function refuse(reason: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { code: CLOSE_TRY_AGAIN_LATER, reason } };
}

/** `scheme://host[:port]` lower-cased, or undefined when not an http(s) origin. */
function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}
