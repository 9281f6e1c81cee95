// The host delivered these outgoing transfers to their target worlds (transfers.ts): names only
// their ids; `entityId` is the host, not an actor.
import { OPERATOR_ENTITY_ID } from "../ids.ts";
import { bad, defineAction } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** The host delivered these outgoing transfers to their target worlds; `entityId` is
     * OPERATOR_ENTITY_ID (the host, not an actor). */
    transfersSent: { ids: string[] };
  }
  interface ActionValues {
    transfersSent: { marked: number };
  }
}

export const transfersSent = defineAction({
  kind: "transfersSent",
  host: true,
  check(i) {
    if (i.entityId !== OPERATOR_ENTITY_ID)
      return bad(`only the host (${OPERATOR_ENTITY_ID}) marks transfers sent`);
    if (i.roomId !== undefined || i.tx !== undefined || i.guards !== undefined)
      return bad("a transfers mark names no room, tx or guards");
    if (!Array.isArray(i.ids) || i.ids.length === 0 || i.ids.length > 1024)
      return bad("ids must be an array of 1..1024 transfer ids");
    return i.ids.every((id) => typeof id === "string" && id.length > 0 && id.length <= 256)
      ? undefined
      : bad("a transfer id is a 1..256 char string");
  },
  apply: (w, input) => ({
    ok: true,
    value: { kind: "transfersSent", marked: w.transfers.markSent(input.ids) },
  }),
});
