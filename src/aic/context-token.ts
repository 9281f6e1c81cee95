// Heartbeat context tokens (issue #12, seed 003 "context_token"): where an agent's last heartbeat
// left off (room event position), when it was issued and when it expires (simulation time), and the
// destination of a move it embedded, so the next heartbeat can report that move's outcome. The server
// keeps no per-agent heartbeat state: the token carries it, signed (HMAC-SHA256, truncated to 128
// bits) with a per-process key so a client cannot forge or edit one. A restart invalidates tokens;
// the next heartbeat then starts a fresh delta (DECISIONS.md).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { AGENT_ID_PATTERN, ROOM_ID_PATTERN } from "../world/ids.ts";
import { CONTEXT_TOKEN_PATTERN } from "./schemas.ts";

/** How long a token stays valid, in simulation milliseconds. */
export const CONTEXT_TOKEN_TTL_MS = 600_000;

export interface ContextClaims {
  agentId: string;
  roomId: string;
  /** Events with seq > afterSeq are the next delta. */
  afterSeq: number;
  /** Simulation time the token was issued at. */
  issuedTsMs: number;
  expiresAtMs: number;
  /** Destination of a move embedded in the heartbeat that issued this token. */
  moveDest?: { tx: number; ty: number };
}

export type TokenCheck =
  | { ok: true; claims: ContextClaims }
  | { ok: false; reason: "invalid" | "expired"; message: string };

export class ContextTokens {
  private readonly key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.key = key;
  }

  issue(claims: ContextClaims): string {
    const body = Buffer.from(
      JSON.stringify([
        claims.agentId,
        claims.roomId,
        claims.afterSeq,
        claims.issuedTsMs,
        claims.expiresAtMs,
        claims.moveDest ? [claims.moveDest.tx, claims.moveDest.ty] : null,
      ]),
      "utf8",
    ).toString("base64url");
    return `${body}.${this.sign(body)}`;
  }

  /** A token is valid for the agent and room it was issued to, until its expiry (simulation time). */
  check(token: string, agentId: string, roomId: string, nowTsMs: number): TokenCheck {
    const invalid = (message: string): TokenCheck => ({ ok: false, reason: "invalid", message });
    if (!CONTEXT_TOKEN_PATTERN.test(token)) return invalid("contextToken is malformed");
    const [body, mac] = token.split(".") as [string, string];
    const expected = Buffer.from(this.sign(body), "utf8");
    const given = Buffer.from(mac, "utf8");
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return invalid("contextToken was not issued by this server (or the gateway restarted)");
    }
    const claims = parseClaims(body);
    if (!claims) return invalid("contextToken is malformed");
    if (claims.agentId !== agentId || claims.roomId !== roomId) {
      return invalid("contextToken belongs to another agent or room");
    }
    if (nowTsMs > claims.expiresAtMs) {
      return {
        ok: false,
        reason: "expired",
        message: "contextToken expired; send a heartbeat without an action first",
      };
    }
    if (nowTsMs < claims.issuedTsMs) {
      // Issued in a future this world never reached: the operator restored an older state.
      return invalid("contextToken is from a later world state (the world was restored)");
    }
    return { ok: true, claims };
  }

  private sign(body: string): string {
    return createHmac("sha256", this.key).update(body).digest().subarray(0, 16).toString("base64url");
  }
}

function parseClaims(body: string): ContextClaims | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length !== 6) return undefined;
  const [agentId, roomId, afterSeq, issuedTsMs, expiresAtMs, move] = raw as unknown[];
  if (typeof agentId !== "string" || !AGENT_ID_PATTERN.test(agentId)) return undefined;
  if (typeof roomId !== "string" || !ROOM_ID_PATTERN.test(roomId)) return undefined;
  if (![afterSeq, issuedTsMs, expiresAtMs].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) {
    return undefined;
  }
  const claims: ContextClaims = {
    agentId,
    roomId,
    afterSeq: afterSeq as number,
    issuedTsMs: issuedTsMs as number,
    expiresAtMs: expiresAtMs as number,
  };
  if (move !== null) {
    if (!Array.isArray(move) || move.length !== 2 || !move.every((n) => Number.isSafeInteger(n) && n >= 0)) {
      return undefined;
    }
    claims.moveDest = { tx: move[0] as number, ty: move[1] as number };
  }
  return claims;
}
