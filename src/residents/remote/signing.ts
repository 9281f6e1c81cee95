// The signature on a webhook wake (docs/wake-targets.md has the receiver's side): HMAC-SHA256 with the
// agent's secret over "<timestamp>.<delivery id>.<body>", sent with the timestamp and the delivery id.
// A receiver refuses a wrong signature, a timestamp out of its window, and a delivery id it has
// already seen, so a captured wake can be neither forged nor replayed: the delivery id is signed, so a
// copy sent again under a fresh id no longer checks out.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-openclawworld-signature";
export const TIMESTAMP_HEADER = "x-openclawworld-timestamp";
export const DELIVERY_HEADER = "x-openclawworld-delivery";

/** The signature header's scheme: the version says what is signed. */
const SCHEME = "v2=";
/** The scheme of signatures over "<timestamp>.<body>" only, which left the delivery id open to change. */
const OLD_SCHEME = "sha256=";
/** A delivery id as the world writes it (`wk_<time>_<n>`): no dot, so the signed text splits one way. */
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function signWake(secret: string, timestampSec: number, deliveryId: string, body: string): string {
  const signed = `${timestampSec}.${deliveryId}.${body}`;
  return `${SCHEME}${createHmac("sha256", secret).update(signed).digest("hex")}`;
}

export function signedHeaders(
  secret: string,
  deliveryId: string,
  nowMs: number,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    [SIGNATURE_HEADER]: signWake(secret, timestamp, deliveryId, body),
    [TIMESTAMP_HEADER]: String(timestamp),
    [DELIVERY_HEADER]: deliveryId,
  };
}

export type VerifyResult =
  | { ok: true; deliveryId: string }
  | { ok: false; reason: "missing" | "old_signature" | "bad_signature" | "stale" | "replayed" };

/**
 * A receiver's check (exported so a Node receiver can use it as it is). `seen` remembers delivery ids
 * for at least the tolerance window; a receiver that forgets them sooner can be replayed within it.
 * A signature of the old scheme (timestamp and body only) is refused as `old_signature`: it does not
 * bind the delivery id, so a captured wake could be sent again under a new one.
 */
export function verifyWake(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  nowMs: number,
  seen: Set<string>,
  toleranceSec = 300,
): VerifyResult {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const signature = one(SIGNATURE_HEADER);
  const timestamp = one(TIMESTAMP_HEADER);
  const deliveryId = one(DELIVERY_HEADER);
  if (
    !signature ||
    !timestamp ||
    !deliveryId ||
    !/^\d{1,12}$/.test(timestamp) ||
    !DELIVERY_ID.test(deliveryId)
  )
    return { ok: false, reason: "missing" };
  if (signature.startsWith(OLD_SCHEME)) return { ok: false, reason: "old_signature" };
  const expected = Buffer.from(signWake(secret, Number(timestamp), deliveryId, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "bad_signature" };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSec) return { ok: false, reason: "stale" };
  if (seen.has(deliveryId)) return { ok: false, reason: "replayed" };
  seen.add(deliveryId);
  return { ok: true, deliveryId };
}
