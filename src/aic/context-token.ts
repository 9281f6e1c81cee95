// Heartbeat context tokens (seed 003 "context_token"): where an agent's last heartbeat
// left off (room event position), when it was issued and when it expires (simulation time), and the
// destination of a move it embedded, so the next heartbeat can report that move's outcome. The server
// keeps no per-agent heartbeat state: the token carries it, signed (HMAC-SHA256, truncated to 96
// bits) so a client cannot forge or edit one. The key is the world's (kept in its store by the
// wiring, src/plugin/durable-state.ts), so a token survives a restart; only without persistence is it
// a per-process key, and then a restart invalidates tokens (the next heartbeat starts a fresh delta).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
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

const VERSION = 1;
const MAC_BYTES = 12;

export class ContextTokens {
  private readonly key: Uint8Array;

  constructor(key: Uint8Array = randomBytes(32)) {
    this.key = key;
  }

  /** Compact on purpose (an agent pays for every character): the body is binary — version, event
   * position, issue time, lifetime, optional move destination — and agent and room are bound by the
   * MAC instead of being spelled out. */
  issue(claims: ContextClaims): string {
    const lifetime = claims.expiresAtMs - claims.issuedTsMs;
    if (!(lifetime >= 0 && lifetime <= 0xffff_ffff)) throw new RangeError(`bad token lifetime ${lifetime}`);
    const body = Buffer.alloc(claims.moveDest ? 25 : 17);
    body[0] = VERSION;
    body.writeUIntBE(claims.afterSeq, 1, 6);
    body.writeUIntBE(claims.issuedTsMs, 7, 6);
    body.writeUInt32BE(lifetime, 13);
    if (claims.moveDest) {
      body.writeUInt32BE(claims.moveDest.tx, 17);
      body.writeUInt32BE(claims.moveDest.ty, 21);
    }
    const text = body.toString("base64url");
    return `${text}.${this.sign(text, claims.agentId, claims.roomId)}`;
  }

  /** A token is valid for the agent and room it was issued to, until its expiry (simulation time). */
  check(token: string, agentId: string, roomId: string, nowTsMs: number): TokenCheck {
    const invalid = (message: string): TokenCheck => ({ ok: false, reason: "invalid", message });
    if (!CONTEXT_TOKEN_PATTERN.test(token)) return invalid("contextToken is malformed");
    const [text, mac] = token.split(".") as [string, string];
    const expected = Buffer.from(this.sign(text, agentId, roomId), "utf8");
    const given = Buffer.from(mac, "utf8");
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return invalid("contextToken was not issued to this agent and room by this world");
    }
    const claims = parseClaims(text, agentId, roomId);
    if (!claims) return invalid("contextToken is malformed");
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

  private sign(text: string, agentId: string, roomId: string): string {
    // ':' occurs in neither id, so the MAC input is unambiguous.
    return createHmac("sha256", this.key)
      .update(`${agentId}:${roomId}:${text}`)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  }
}

function parseClaims(text: string, agentId: string, roomId: string): ContextClaims | undefined {
  const body = Buffer.from(text, "base64url");
  if (body.toString("base64url") !== text) return undefined;
  if ((body.length !== 17 && body.length !== 25) || body[0] !== VERSION) return undefined;
  const issuedTsMs = body.readUIntBE(7, 6);
  const claims: ContextClaims = {
    agentId,
    roomId,
    afterSeq: body.readUIntBE(1, 6),
    issuedTsMs,
    expiresAtMs: issuedTsMs + body.readUInt32BE(13),
  };
  if (body.length === 25) claims.moveDest = { tx: body.readUInt32BE(17), ty: body.readUInt32BE(21) };
  return claims;
}
