// A WebSocket spoken byte by byte over a plain TCP socket: for tests that send what a well-behaved
// client library never would (bursts of protocol pings, floods) and read exactly which frames come
// back, a close frame included.
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { until } from "./wait.ts";

export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

export class RawWebSocket {
  private received = Buffer.alloc(0);
  private handshakeEnd = -1;
  ended = false;

  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk) => {
      this.received = Buffer.concat([this.received, chunk]);
      if (this.handshakeEnd < 0) {
        const at = this.received.indexOf("\r\n\r\n");
        if (at >= 0) this.handshakeEnd = at + 4;
      }
    });
    socket.on("close", () => {
      this.ended = true;
    });
    socket.on("error", () => {});
  }

  /** Opens `/world/ws` on 127.0.0.1:port and waits for the 101. `early` frames go in the same write
   * as the request, before any answer: a client that does not wait (what a server must not lose). */
  static async open(
    port: number,
    headers: Record<string, string> = {},
    early: Buffer[] = [],
  ): Promise<RawWebSocket> {
    const socket = connect(port, "127.0.0.1");
    const raw = new RawWebSocket(socket);
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    socket.write(
      `GET /world/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n` +
        Buffer.concat(early).toString("latin1"),
      "latin1",
    );
    await raw.until(() => raw.handshakeEnd >= 0, 5000);
    if (!raw.status().startsWith("HTTP/1.1 101")) throw new Error(`upgrade refused: ${raw.status()}`);
    return raw;
  }

  status(): string {
    return this.received.subarray(0, this.received.indexOf("\r\n")).toString();
  }

  /** A masked client frame (text 0x1, ping 0x9, ...), `count` times in one write. */
  send(opcode: number, payload: Buffer | string = Buffer.alloc(0), count = 1): void {
    const frame = RawWebSocket.frame(opcode, payload);
    this.socket.write(Buffer.concat(Array.from({ length: count }, () => frame)));
  }

  /** One masked client frame's bytes. */
  static frame(opcode: number, payload: Buffer | string = Buffer.alloc(0)): Buffer {
    const body = Buffer.from(payload);
    if (body.length > 125) throw new Error("RawWebSocket sends short frames only");
    const mask = randomBytes(4);
    return Buffer.concat([
      Buffer.from([0x80 | opcode, 0x80 | body.length]),
      mask,
      body.map((b, i) => b ^ mask[i % 4]!),
    ]);
  }

  /** The server's frames so far (unmasked, short or 16-bit lengths). */
  frames(): ServerFrame[] {
    const frames: ServerFrame[] = [];
    let at = this.handshakeEnd;
    while (at >= 0 && at + 2 <= this.received.length) {
      let length = this.received[at + 1]! & 0x7f;
      let start = at + 2;
      if (length === 126) {
        if (start + 2 > this.received.length) break;
        length = this.received.readUInt16BE(start);
        start += 2;
      } else if (length === 127) {
        if (start + 8 > this.received.length) break;
        length = Number(this.received.readBigUInt64BE(start));
        start += 8;
      }
      if (start + length > this.received.length) break;
      frames.push({
        opcode: this.received[at]! & 0x0f,
        payload: this.received.subarray(start, start + length),
      });
      at = start + length;
    }
    return frames;
  }

  /** The close frame's code, if the server sent one. */
  closeCode(): number | undefined {
    const close = this.frames().find((f) => f.opcode === 0x8);
    return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : undefined;
  }

  async until(check: () => boolean, timeoutMs: number): Promise<void> {
    await until(`RawWebSocket: ${check}`, check, timeoutMs);
  }

  destroy(): void {
    this.socket.destroy();
  }
}
