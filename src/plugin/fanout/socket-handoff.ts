// Handing an upgraded browser socket to the fan-out process (Node's handle passing). Three things,
// each seen failing in a real gateway without it:
// - reading stops before the handoff and what the parent already buffered travels along as `head`
//   (otherwise a client that writes right after the upgrade loses its first frames);
// - the parent's own socket object is destroyed afterwards (otherwise it never emits `close`, and
//   whatever counts the gateway's connections never frees the slot); and it is detached from its
//   server first, or the server counts it out twice (once for the send, once for the destroy) and a
//   negative count never lets the server's close() finish;
// - a TLS socket is never sent: Node throws ERR_INVALID_HANDLE_TYPE for it later, outside any
//   try/catch, which would kill the gateway. It stays in this process.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { ToChild } from "./ipc-protocol.ts";

export type SendWithHandle = (message: ToChild, socket: Socket, done: (error: Error | null) => void) => void;

interface ReadableHandle {
  readStop?(): number;
}

/** Whether this socket can leave the process: a plain TCP socket, not TLS, still open. */
export function canHandOff(socket: Duplex): socket is Socket {
  const s = socket as Socket & { encrypted?: boolean; _handle?: unknown };
  return s.encrypted !== true && s._handle != null && !s.destroyed;
}

/** Sends the socket with its request line, headers and every byte read so far. The caller checked
 * canHandOff(). `onFailed` hears a send that did not go through (the socket is closed then). */
export function handOff(
  send: SendWithHandle,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  onFailed: (error: Error) => void,
): void {
  // With the handle's reading stopped but `reading` left set, read() below drains the stream's
  // buffer without starting it again.
  (socket as Socket & { _handle?: ReadableHandle })._handle?.readStop?.();
  const chunks: Buffer[] = head.length > 0 ? [head] : [];
  for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) chunks.push(chunk);
  (socket as Socket & { server: unknown }).server = null;
  const message: ToChild = {
    type: "socket",
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: req.headers,
    head: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
  };
  send(message, socket, (error) => {
    socket.destroy();
    if (error) onFailed(error);
  });
}
