// The tools' backend inside the gateway: this process's AIC service, looked up on every call
// because the world service may start, stop or restart after the tools are registered.
import { aicError } from "../aic/errors.ts";
import { type OwnerLookup, ownerElsewhereResult } from "../aic/owner-elsewhere.ts";
import type { AicService } from "../aic/service.ts";
import type { AicBackend } from "./backend.ts";

const NOT_RUNNING = aicError("room_not_ready", "the world service is not running in this gateway");

/** `live` answers the running world's AIC service, or undefined while the service is not running.
 * On a cluster standby, `elsewhere` names the gateway serving the world: the answer says so (a
 * gateway agent acts only where the world runs; it has no token to act on another gateway). */
export function inProcessBackend(
  live: () => AicService | undefined,
  elsewhere: OwnerLookup = () => undefined,
): AicBackend {
  return {
    mode: "in-process",
    async call(endpoint, agentId, body, signal) {
      const aic = live();
      if (!aic?.running) {
        const owner = elsewhere();
        return owner ? ownerElsewhereResult(owner) : NOT_RUNNING;
      }
      return aic.call(endpoint, agentId, body, { signal });
    },
    currentRoom(agentId) {
      return live()?.roomOf(agentId);
    },
  };
}
