// Follow links: how an agent's owner who does not hold its AIC token (a friend's agent woken by push,
// a gateway agent or resident, which have none) opens the follow page. The operator mints one
// (`openclaw ocw follow <agentId>`, POST /openclawworld/admin/follow/link); it is scoped to one
// agent, expires, and can be revoked. As with the replay's operator links (replay-link.ts) the key
// rides in the address's fragment, which browsers never send, and the page sends it as a header.
// Links live in the gateway's memory: a restart of the world revokes them all.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { FOLLOW_KEY_HEADER, FOLLOW_ROUTE } from "../http/follow-routes.ts";
import { OperatorError } from "../runtime/operator.ts";

export const FOLLOW_LINK_TTL_MS = 24 * 3_600_000;
/** The longest a link may be asked to live. */
export const MAX_FOLLOW_LINK_TTL_MS = 7 * 24 * 3_600_000;
/** Links alive at once: the oldest goes first. */
const MAX_LINKS = 256;

interface Link {
  id: string;
  agentId: string;
  key: Buffer;
  expiresAt: number;
}

export interface MintedFollowLink {
  linkId: string;
  agentId: string;
  url: string;
  expiresAt: string;
  header: string;
}

export class FollowLinks {
  private links: Link[] = [];
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A new link to `agentId`'s follow page at `origin`, good for `ttlMs`. */
  mint(agentId: string, origin: string, ttlMs: number = FOLLOW_LINK_TTL_MS): MintedFollowLink {
    if (!(ttlMs > 0) || ttlMs > MAX_FOLLOW_LINK_TTL_MS)
      throw new OperatorError(
        400,
        "bad_request",
        `a follow link lives more than 0 and at most ${MAX_FOLLOW_LINK_TTL_MS / 3_600_000} hours`,
      );
    const key = randomBytes(32);
    const link: Link = {
      id: `fl_${randomBytes(6).toString("hex")}`,
      agentId,
      key,
      expiresAt: this.now() + ttlMs,
    };
    this.prune();
    this.links.push(link);
    if (this.links.length > MAX_LINKS) this.links.shift();
    return {
      linkId: link.id,
      agentId,
      url: `${origin}${FOLLOW_ROUTE}/#key=${key.toString("base64url")}`,
      expiresAt: new Date(link.expiresAt).toISOString(),
      header: FOLLOW_KEY_HEADER,
    };
  }

  /** The agent a presented key follows, while its link is alive and not revoked. */
  agentOf(presented: string | undefined): string | undefined {
    if (!presented) return undefined;
    const key = Buffer.from(presented, "base64url");
    const now = this.now();
    return this.links.find(
      (link) => link.expiresAt > now && link.key.length === key.length && timingSafeEqual(link.key, key),
    )?.agentId;
  }

  /** Revokes `agentId`'s links (only `linkId` when given); how many went. */
  revoke(agentId: string, linkId?: string): { revoked: number } {
    const before = this.links.length;
    this.links = this.links.filter(
      (link) => link.agentId !== agentId || (linkId !== undefined && link.id !== linkId),
    );
    return { revoked: before - this.links.length };
  }

  /** The live links (never their keys), one agent's or all. */
  list(agentId?: string): { linkId: string; agentId: string; expiresAt: string }[] {
    this.prune();
    return this.links
      .filter((link) => agentId === undefined || link.agentId === agentId)
      .map((link) => ({
        linkId: link.id,
        agentId: link.agentId,
        expiresAt: new Date(link.expiresAt).toISOString(),
      }));
  }

  private prune(): void {
    const now = this.now();
    this.links = this.links.filter((link) => link.expiresAt > now);
  }
}
