// A person's browser follows them through a portal to another gateway (docs/cluster.md "Portals
// between gateways"). Leaving: when a human's transfer is published, its record carries the hash of
// a fresh secret, and once it is stored the person's browser here is sent to the target gateway's
// page with the secret (`travel`). Arriving: each human applied here from such a record may be
// claimed by the browser that shows the secret (src/http/humans/claims.ts).
import { claimHash, newClaimSecret } from "../http/humans/claims.ts";
import type { WebSurfaceHandle } from "../http/humans/web-surface.ts";
import type { RuntimeLogger } from "../runtime/world-runtime.ts";
import type { Transfer } from "../world/transfers.ts";
import type { ClusterHostPart } from "./cluster-host.ts";

/** How long a sent traveller's browser waits for the target world's gateway to be known (a room
 * being taken over); the claim on the other side expires about then too. */
const OWNER_WAIT_MS = 60_000;
const OWNER_RETRY_MS = 1_000;
/** Secrets of transfers not yet stored kept at most (a long NATS outage must not grow it). */
const SECRETS_KEPT = 4096;

export function followTravellers(
  part: ClusterHostPart,
  web: Pick<WebSurfaceHandle, "travel" | "expectArrival">,
  logger: RuntimeLogger,
): () => void {
  const handoff = part.room.handoff;
  /** Transfer id -> the secret its record's hash is of, until its browser is told. The same on every
   * publish of one transfer: JetStream keeps the first record stored under its id. */
  const secrets = new Map<string, string>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  handoff.sealWith((transfer) => {
    if (transfer.actorKind !== "human") return undefined;
    let secret = secrets.get(transfer.id);
    if (secret === undefined) {
      secret = newClaimSecret();
      secrets.set(transfer.id, secret);
      if (secrets.size > SECRETS_KEPT) secrets.delete(secrets.keys().next().value as string);
    }
    return { claimHash: claimHash(secret) };
  });

  handoff.onSent((transfer) => {
    const secret = secrets.get(transfer.id);
    secrets.delete(transfer.id);
    if (secret !== undefined) sendOn(transfer, secret, Date.now() + OWNER_WAIT_MS);
  });

  handoff.onArrived((transfer, result, extras) => {
    if (!result.ok || result.value.kind !== "arrive" || result.value.duplicate) return;
    if (transfer.actorKind === "human" && extras.claimHash)
      web.expectArrival(extras.claimHash, result.value.entityId);
  });

  function sendOn(transfer: Transfer, secret: string, until: number): void {
    const owner = part.ownerOf(transfer.toWorld);
    if (owner) {
      const base = owner.baseUrl.replace(/\/+$/, "");
      web.travel(transfer.entityId, `${base}/world/?claim=${secret}`);
      return;
    }
    if (Date.now() >= until) {
      logger.warn(
        `openclawworld: ${transfer.entityId} went to ${transfer.toWorld}, which no gateway serves: its browser stays here`,
      );
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      sendOn(transfer, secret, until);
    }, OWNER_RETRY_MS);
    timer.unref();
    timers.add(timer);
  }

  return () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
