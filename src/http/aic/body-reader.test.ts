// The body reader's deadline (issue #45): half a body on a connection kept open is refused in time,
// not held until the server's own limit. A real server and socket on 127.0.0.1.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BodyError, type BodyLimits, readJsonBody } from "./body-reader.ts";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A server that reads each request's body with `limits`; resolves with what the read came to. */
async function readOnce(raw: string, limits: BodyLimits): Promise<unknown> {
  let settle!: (outcome: unknown) => void;
  const outcome = new Promise<unknown>((resolve) => (settle = resolve));
  const server = createServer((req: IncomingMessage, res) => {
    readJsonBody(req, limits).then(
      (body) => settle(body.value),
      (error: unknown) => settle(error),
    );
    res.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write(raw);
  closers.push(() => {
    socket.destroy();
    server.closeAllConnections();
    server.close();
  });
  return outcome;
}

const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

describe("readJsonBody", () => {
  it("refuses half a body kept open once its deadline passes (kind timeout)", async () => {
    const outcome = await readOnce(`${head}Content-Length: 100\r\n\r\n{"half`, { deadlineMs: 50 });
    expect(outcome).toBeInstanceOf(BodyError);
    expect((outcome as BodyError).kind).toBe("timeout");
  });

  it("refuses a chunked body whose last chunk never comes", async () => {
    const outcome = await readOnce(`${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"hal\r\n`, {
      deadlineMs: 50,
    });
    expect((outcome as BodyError).kind).toBe("timeout");
  });

  it("reads a whole body sent within the deadline", async () => {
    const outcome = await readOnce(`${head}Content-Length: 8\r\n\r\n{"a":1}\n`, { deadlineMs: 5_000 });
    expect(outcome).toEqual({ a: 1 });
  });

  it("refuses a body over its limit", async () => {
    const outcome = await readOnce(`${head}Content-Length: 20\r\n\r\n{"a":"0123456789a"}`, {
      limitBytes: 10,
    });
    expect((outcome as BodyError).kind).toBe("too_large");
  });
});
