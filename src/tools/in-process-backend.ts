// The tools' backend inside the gateway: this process's AIC service, looked up on every call
// because the world service may start, stop or restart after the tools are registered.
import { aicError } from "../aic/errors.ts";
import type { AicService } from "../aic/service.ts";
import type { AicBackend } from "./backend.ts";

const NOT_RUNNING = aicError("room_not_ready", "the world service is not running in this gateway");

/** `live` answers the running world's AIC service, or undefined while the service is not running. */
export function inProcessBackend(live: () => AicService | undefined): AicBackend {
  return {
    mode: "in-process",
    async call(endpoint, agentId, body, signal) {
      const aic = live();
      if (!aic?.running) return NOT_RUNNING;
      return aic.call(endpoint, agentId, body, { signal });
    },
    currentRoom(agentId) {
      return live()?.roomOf(agentId);
    },
  };
}
