// Follow links: how an agent's owner who does not hold its AIC token (a friend's agent woken by push,
// a gateway agent or resident, which have none) opens the follow page. The operator mints one
// (`openclaw ocw follow <agentId>`, POST /openclawworld/admin/follow/link); it is scoped to one
// agent, expires, and can be revoked. As with the replay's operator links (replay-link.ts) the key
// rides in the address's fragment, which browsers never send, and the page sends it as a header.
// Links are kept in the world's state folder (`follow-links.json`, the keys' hashes only), so a
// restart or a config reload keeps them; a world without a state folder keeps them in memory.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { FOLLOW_KEY_HEADER, FOLLOW_ROUTE } from "../http/follow-routes.ts";
import { OperatorError } from "../runtime/operator.ts";
import { replacePrivateFileSync } from "../runtime/private-files.ts";

export const FOLLOW_LINK_TTL_MS = 24 * 3_600_000;
/** The longest a link may be asked to live. */
export const MAX_FOLLOW_LINK_TTL_MS = 7 * 24 * 3_600_000;
/** Links alive at once: the oldest goes first. */
const MAX_LINKS = 256;

interface Link {
  id: string;
  agentId: string;
  /** sha256 of the key: what is kept, on disk too (the key itself is the bearer's only). */
  keyHash: Buffer;
  expiresAt: number;
}

const hashOf = (key: Buffer) => createHash("sha256").update(key).digest();

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
  /** Where they are kept (none: memory only). */
  private readonly file: string | undefined;

  constructor(now: () => number = Date.now, file?: string) {
    this.now = now;
    this.file = file;
    if (file) this.links = readLinks(file);
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
      keyHash: hashOf(key),
      expiresAt: this.now() + ttlMs,
    };
    this.prune();
    this.links.push(link);
    if (this.links.length > MAX_LINKS) this.links.shift();
    // Kept before it is given: a link the operator was handed works after a restart.
    this.save();
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
    const hash = hashOf(Buffer.from(presented, "base64url"));
    const now = this.now();
    return this.links.find((link) => link.expiresAt > now && timingSafeEqual(link.keyHash, hash))?.agentId;
  }

  /** Revokes `agentId`'s links (only `linkId` when given); how many went. */
  revoke(agentId: string, linkId?: string): { revoked: number } {
    const before = this.links.length;
    this.links = this.links.filter(
      (link) => link.agentId !== agentId || (linkId !== undefined && link.id !== linkId),
    );
    const revoked = before - this.links.length;
    if (revoked > 0) this.save();
    return { revoked };
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

  /** Writes the links whole (a new file renamed over the old: never half written). Rare (an operator's
   * mint or revoke) and small (MAX_LINKS), so written at once. */
  private save(): void {
    if (!this.file) return;
    const kept = this.links.map((link) => ({
      id: link.id,
      agentId: link.agentId,
      keyHash: link.keyHash.toString("base64url"),
      expiresAt: link.expiresAt,
    }));
    replacePrivateFileSync(this.file, `${JSON.stringify({ links: kept })}\n`);
  }
}

/** The links kept in `file`: none when it is missing or unreadable (a damaged file revokes them; the
 * next mint writes it anew); entries that are not links are left out. */
function readLinks(file: string): Link[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return [];
  }
  const entries = (parsed as { links?: unknown } | null)?.links;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: Record<string, unknown>) => {
    const keyHash = typeof entry?.keyHash === "string" ? Buffer.from(entry.keyHash, "base64url") : undefined;
    return typeof entry?.id === "string" &&
      typeof entry.agentId === "string" &&
      typeof entry.expiresAt === "number" &&
      keyHash?.length === 32
      ? [{ id: entry.id, agentId: entry.agentId, keyHash, expiresAt: entry.expiresAt }]
      : [];
  });
}
