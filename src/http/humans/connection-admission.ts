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
  /** Human sessions one remote address may hold (connected or within their grace period). */
  maxHumansPerAddress: number;
  /** Extra browser origins allowed to open the WebSocket, e.g. "https://world.example". */
  allowedOrigins: readonly string[];
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxConnections: 200,
  maxConnectionsPerAddress: 20,
  maxHumans: 200,
  maxHumansPerAddress: 20,
  allowedOrigins: [],
};

/** WebSocket close code 1013 "Try Again Later" (RFC 6455 registry): a capacity refusal. */
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** The tick's share of its interval above which new connections and joins are refused. */
export const SHED_LOAD_RATIO = 0.8;

export type Refusal = { code: number; reason: string };

/** A human session as the seat rule sees it. */
export interface Seat {
  /** The remote address it joined from ("" for one restored after a restart: nobody's). */
  readonly address: string;
  /** When its socket dropped, as an order (1, 2, ...); undefined while connected. */
  readonly droppedOrder: number | undefined;
}

/** A join is let in, reclaiming the seats of these dropped sessions first; or refused. */
export type JoinDecision<S extends Seat> = { ok: true; reclaim: S[] } | { ok: false; refusal: Refusal };

export interface Admission {
  /** Whether a browser page at this request's Origin may open the WebSocket. */
  originAllowed(req: IncomingMessage): boolean;
  /** Count a new connection, or say why it is refused. `release` must be called once it closes. */
  connect(req: IncomingMessage): { ok: true; release(): void } | { ok: false; refusal: Refusal };
  /** Whether one more human session from `address` may start now, given the sessions there are. */
  join<S extends Seat>(address: string, seats: readonly S[]): JoinDecision<S>;
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

    join(address, seats) {
      const reclaim = seatsToReclaim(limits, address, seats);
      if (!Array.isArray(reclaim)) return { ok: false, refusal: reclaim };
      const busy = overloaded();
      return busy ? { ok: false, refusal: busy } : { ok: true, reclaim };
    },

    stats() {
      return { connections: total, addresses: perAddress.size };
    },
  };
}

/**
 * The seat rule. A dropped human keeps a seat for its resume grace period, so one address churning
 * join + disconnect could hold every seat and keep everyone else out. So: an address holds at most
 * `maxHumansPerAddress` seats, and at its share its own oldest dropped seat is reclaimed for the
 * newcomer; and when the world is full, a dropped seat is reclaimed — of the address holding the most
 * seats, its oldest drop — before anyone is refused. Only a world full of connected people says no.
 * (A reclaimed session leaves at once: its person, coming back, joins as someone new.)
 */
function seatsToReclaim<S extends Seat>(
  limits: AdmissionLimits,
  address: string,
  seats: readonly S[],
): S[] | Refusal {
  const reclaim: S[] = [];
  const kept = () => seats.filter((seat) => !reclaim.includes(seat));
  // Loops, not one step: a lowered cap can find the world over it already.
  for (
    let mine = kept().filter((seat) => seat.address === address);
    mine.length >= limits.maxHumansPerAddress;
  ) {
    const own = oldestDropped(mine);
    if (!own) {
      return {
        code: CLOSE_TRY_AGAIN_LATER,
        reason: `too many people from this address (limit ${limits.maxHumansPerAddress})`,
      };
    }
    reclaim.push(own);
    mine = mine.filter((seat) => seat !== own);
  }
  for (let left = kept(); left.length >= limits.maxHumans; left = kept()) {
    const held = new Map<string, number>();
    for (const seat of left) held.set(seat.address, (held.get(seat.address) ?? 0) + 1);
    const dropped = left.filter((seat) => seat.droppedOrder !== undefined);
    const most = Math.max(0, ...dropped.map((seat) => held.get(seat.address) ?? 0));
    const other = oldestDropped(dropped.filter((seat) => held.get(seat.address) === most));
    if (!other) {
      return { code: CLOSE_TRY_AGAIN_LATER, reason: `the world is full (limit ${limits.maxHumans} humans)` };
    }
    reclaim.push(other);
  }
  return reclaim;
}

function oldestDropped<S extends Seat>(seats: readonly S[]): S | undefined {
  let oldest: S | undefined;
  for (const seat of seats) {
    if (seat.droppedOrder === undefined) continue;
    if (!oldest || seat.droppedOrder < oldest.droppedOrder!) oldest = seat;
  }
  return oldest;
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
