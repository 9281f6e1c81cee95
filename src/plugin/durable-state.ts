// Adapter state that must survive a restart of the gateway, kept in the world's store next to the
// world itself: the rate limiter's buckets, written with the tick commits (only the
// buckets that changed) and settled before an answer that does not wait for a tick; and the key that
// signs heartbeat context tokens, so a token issued before a restart still works after it. The store
// file is private (0600 in a 0700 directory), like the gateway's own state.
import { randomBytes } from "node:crypto";
import type { BucketChange, RateLimiter } from "../aic/rate-limit.ts";
import type { DurableSessions } from "../http/humans/session.ts";
import type { OpenedWorld } from "../runtime/open-world.ts";
import { sessionSpace } from "../runtime/persistence.ts";

/** Side-table scope of the rate limiter's buckets; a row's key is JSON `[className, key]`. */
export const RATE_SCOPE = "rate";
const SECRETS_SCOPE = "aic";
const HUMANS_SCOPE = "humans";
const CONTEXT_KEY = "contextTokenKey";

/** Loads the stored buckets into `limiter` and makes its changes durable from now on. */
export function persistRateLimits(host: OpenedWorld, limiter: RateLimiter): void {
  const side = host.side;
  if (!side) return;
  limiter.load(side.list(RATE_SCOPE).flatMap(({ key, value }) => storedBucket(key, value)));
  side.register({
    scope: RATE_SCOPE,
    pending: () =>
      limiter.pendingChanges().map((change) => ({
        key: JSON.stringify([change.className, change.key]),
        value: change.bucket,
      })),
    written: () => limiter.written(),
  });
  limiter.persist(() => side.settle());
}

function storedBucket(key: string, value: unknown): BucketChange[] {
  try {
    const id = JSON.parse(key) as unknown;
    const bucket = value as { tokens?: unknown; updatedMs?: unknown } | null;
    if (
      Array.isArray(id) &&
      id.length === 2 &&
      typeof id[0] === "string" &&
      typeof id[1] === "string" &&
      typeof bucket?.tokens === "number" &&
      typeof bucket.updatedMs === "number"
    ) {
      return [
        { className: id[0], key: id[1], bucket: { tokens: bucket.tokens, updatedMs: bucket.updatedMs } },
      ];
    }
  } catch {
    // A row this version cannot read is skipped: that caller starts with a full bucket.
  }
  return [];
}

/** The heartbeat token key of this world: stored on first use, the same after every restart. Without
 * a store (persistence off) there is none and the service makes a fresh one per process. */
export function contextTokenKey(host: OpenedWorld): Buffer | undefined {
  if (!host.store) return undefined;
  const secrets = sessionSpace(host.store, SECRETS_SCOPE);
  const stored = secrets.get(CONTEXT_KEY);
  if (typeof stored === "string") {
    const key = Buffer.from(stored, "base64url");
    if (key.length === 32) return key;
  }
  const key = randomBytes(32);
  secrets.put(CONTEXT_KEY, key.toString("base64url"));
  return key;
}

/** Where the web surface keeps humans' resume tokens: today a row written (and fsynced) per change. */
export function humanSessions(host: OpenedWorld): DurableSessions | undefined {
  return host.store ? sessionSpace(host.store, HUMANS_SCOPE) : undefined;
}
