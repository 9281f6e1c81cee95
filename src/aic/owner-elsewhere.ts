// The contract's answer when a cluster gateway stands by and another one serves the world
// (docs/cluster.md): `room_not_ready`, retryable, with the owner in `details`, so a caller that
// cannot follow a redirect still reads a valid Result and knows where to go. The HTTP routes send it
// with a 307 to the owner (src/http/owner-redirect.ts); the in-process tools answer it as it is.
import { type AicResult, aicError } from "./errors.ts";

/** The gateway serving the world this one stands by for (its directory entry). */
export interface OwnerRef {
  room: string;
  gatewayId: string;
  baseUrl: string;
  epoch: number;
}

/** Who serves the world now when it is not this gateway; undefined otherwise (then every door
 * answers as for a world that is not running). */
export type OwnerLookup = () => OwnerRef | undefined;

/** `location`: the owner's URL for the caller's request (HTTP only). */
export function ownerElsewhereResult(owner: OwnerRef, location?: string): AicResult<never> {
  return aicError(
    "room_not_ready",
    `this gateway stands by; the world is served by gateway ${owner.gatewayId} at ${owner.baseUrl}`,
    {
      owner: {
        gatewayId: owner.gatewayId,
        baseUrl: owner.baseUrl,
        room: owner.room,
        epoch: owner.epoch,
      },
      ...(location ? { location } : {}),
    },
  );
}

/** An agent that went through a portal to another world (a cluster room, docs/cluster.md) and asks
 * here again: sent on to the gateway serving that world, with `owner` undefined while none does (the
 * room is between owners: retry). */
export function travelledResult(
  agentId: string,
  world: string,
  owner: OwnerRef | undefined,
  location?: string,
): AicResult<never> {
  const where = owner
    ? `served by gateway ${owner.gatewayId} at ${owner.baseUrl}`
    : "which no gateway serves right now; retry shortly";
  return aicError("room_not_ready", `agent ${agentId} went through a portal to world ${world}, ${where}`, {
    world,
    ...(owner
      ? {
          owner: { gatewayId: owner.gatewayId, baseUrl: owner.baseUrl, room: owner.room, epoch: owner.epoch },
        }
      : {}),
    ...(location ? { location } : {}),
  });
}
