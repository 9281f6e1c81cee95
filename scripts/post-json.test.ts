// The harness's agent HTTP client against a real server on loopback: JSON whatever the status, and
// one more try when the keep-alive socket it reused had just been closed by the server.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postJson } from "./lib/post-json.ts";

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => resolve(text));
  });

describe("postJson", () => {
  it("sends the body and headers and parses an error answer's JSON with its status", async () => {
    const seen: { body: string; auth: string | undefined; type: string | undefined }[] = [];
    const url = await serve(async (req, res) => {
      seen.push({
        body: await readBody(req),
        auth: req.headers.authorization,
        type: req.headers["content-type"],
      });
      res.writeHead(429, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "error", error: { code: "rate_limited" } }));
    });
    const reply = await postJson(url, { authorization: "Bearer t" }, '{"a":1}', 5_000);
    expect(reply).toEqual({ status: 429, body: { status: "error", error: { code: "rate_limited" } } });
    expect(seen).toEqual([{ body: '{"a":1}', auth: "Bearer t", type: "application/json" }]);
  });

  it("rejects an answer that is not JSON", async () => {
    const url = await serve((_req, res) => res.end("<html>"));
    await expect(postJson(url, {}, "{}", 5_000)).rejects.toThrow(SyntaxError);
  });

  it("sends again on a fresh socket when the reused keep-alive socket was closed under it", async () => {
    const sockets = new Set<unknown>();
    let requests = 0;
    const url = await serve(async (req, res) => {
      sockets.add(req.socket);
      requests += 1;
      await readBody(req);
      // The second request arrives on the kept-alive socket: the server drops it unanswered, as a
      // server does whose idle timeout fired just as the request went out.
      if (requests === 2) return void req.socket.destroy();
      res.end(JSON.stringify({ n: requests }));
    });
    expect((await postJson(url, {}, "{}", 5_000)).body).toEqual({ n: 1 });
    expect((await postJson(url, {}, "{}", 5_000)).body).toEqual({ n: 3 });
    expect(requests).toBe(3);
    expect(sockets.size).toBe(2);
  });

  it("does not send twice when a fresh socket fails", async () => {
    let requests = 0;
    const url = await serve((req) => {
      requests += 1;
      req.socket.destroy();
    });
    await expect(postJson(url, {}, "{}", 5_000)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(requests).toBe(1);
  });
});
