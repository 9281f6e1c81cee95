// Claims: how a browser follows its person through a portal to another gateway (docs/cluster.md
// "Portals between gateways"). The gateway the person left makes a random secret when it publishes
// the transfer, puts only the secret's hash in the published record, and sends the secret to the
// person's browser in a `travel` message. The target gateway keeps the hash of each arrival it
// applied here; a browser that shows the secret gets the arrived character, once.
import { createHash, randomBytes } from "node:crypto";

/** How long an arrival's claim stays good: a page load on the other gateway takes seconds. */
export const CLAIM_TTL_MS = 60_000;
/** Claims kept at most (the oldest go first): arrivals are far fewer within a TTL. */
export const CLAIMS_KEPT = 4096;

export const newClaimSecret = (): string => randomBytes(24).toString("base64url");

export const claimHash = (secret: string): string =>
  createHash("sha256").update(secret, "utf8").digest("base64url");

/** Why a claim was refused (the error's message names it). */
export type ClaimRefusal = "unknown" | "used" | "expired";

export type ClaimOutcome = { ok: true; entityId: string } | { ok: false; reason: ClaimRefusal };

/** Claim hash -> the arrived entity, one use each, bounded and expiring. */
export class ClaimBook {
  private readonly open = new Map<string, { entityId: string; expiresAt: number }>();
  /** Hashes taken or expired, kept (bounded) so a second try is told "used", not "unknown". */
  private readonly spent = new Map<string, ClaimRefusal>();
  private readonly now: () => number;
  private readonly ttlMs: number;

  constructor(options: { now?: () => number; ttlMs?: number } = {}) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? CLAIM_TTL_MS;
  }

  /** An arrival applied here may be claimed by whoever holds the secret of `hash`. */
  record(hash: string, entityId: string): void {
    this.open.delete(hash);
    this.open.set(hash, { entityId, expiresAt: this.now() + this.ttlMs });
    while (this.open.size > CLAIMS_KEPT) this.forget(this.open.keys().next().value as string, "expired");
  }

  take(secret: string): ClaimOutcome {
    const hash = claimHash(secret);
    const entry = this.open.get(hash);
    if (!entry) return { ok: false, reason: this.spent.get(hash) ?? "unknown" };
    if (entry.expiresAt <= this.now()) {
      this.forget(hash, "expired");
      return { ok: false, reason: "expired" };
    }
    this.forget(hash, "used");
    return { ok: true, entityId: entry.entityId };
  }

  /** Claims recorded and not yet taken (expired ones included until looked at). */
  get size(): number {
    return this.open.size;
  }

  private forget(hash: string, why: ClaimRefusal): void {
    this.open.delete(hash);
    this.spent.set(hash, why);
    while (this.spent.size > CLAIMS_KEPT) this.spent.delete(this.spent.keys().next().value as string);
  }
}

/** The text of a refused claim: the browser shows it above the ordinary join form. */
export function claimRefusalText(reason: ClaimRefusal): string {
  switch (reason) {
    case "unknown":
      return "this travel link is not known here; join as someone new";
    case "used":
      return "this travel link was already used; join as someone new";
    case "expired":
      return "this travel link has expired; join as someone new";
  }
}
