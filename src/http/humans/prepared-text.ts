// A JSON message serialized once and sent as the same bytes to many sockets (the room-wide radar): a
// text frame whose UTF-8 is made once instead of once per socket.
import type { ServerMessage } from "./protocol.ts";

export class PreparedText {
  readonly message: ServerMessage;
  readonly bytes: Buffer;

  /** `json`: the message's JSON when the caller has made it already. */
  constructor(message: ServerMessage, json: string = JSON.stringify(message)) {
    this.message = message;
    this.bytes = Buffer.from(json, "utf8");
  }
}
