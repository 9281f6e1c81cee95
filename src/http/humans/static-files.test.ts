import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptedEncodings } from "./static-files.ts";
import { createStaticRoutes } from "./static-routes.ts";

let dir: string;
let server: Server;
let base: string;
/** Each request's route promise, by URL: how long the route takes to settle. */
const answeredAt = new Map<string, Promise<boolean>>();
const SCRIPT = `console.log(${JSON.stringify("x".repeat(5000))});\n`;
const PAGE = '<!doctype html><script type="module" src="/world/assets/app-ABC123.js"></script>\n';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ocw-static-"));
  const web = path.join(dir, "web");
  await mkdir(path.join(web, "assets"), { recursive: true });
  await mkdir(path.join(dir, "world", "maps"), { recursive: true });
  await writeFile(path.join(web, "index.html"), PAGE);
  await writeFile(path.join(web, "index.html.gz"), gzipSync(PAGE));
  await writeFile(path.join(web, "assets", "app-ABC123.js"), SCRIPT);
  await writeFile(path.join(web, "assets", "app-ABC123.js.br"), brotliCompressSync(SCRIPT));
  await writeFile(path.join(web, "assets", "app-ABC123.js.gz"), gzipSync(SCRIPT));
  await writeFile(path.join(dir, "world", "maps", "lobby.json"), "{}");
  await writeFile(path.join(web, "assets", "big-ABC123.js"), "x".repeat(16 * 1024 * 1024));
  const routes = createStaticRoutes(path.join(dir, "world"), web);
  server = createServer((req, res) => {
    const answered = routes(req, res);
    answeredAt.set(req.url ?? "", answered);
    void answered.then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe("a file the browser stops reading", () => {
  it("settles its route when the browser goes away mid-file (a pending route held plugin reloads; #45)", async () => {
    const { port } = server.address() as AddressInfo;
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("GET /world/assets/big-ABC123.js HTTP/1.1\r\nHost: x\r\n\r\n");
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.destroy();
    await expect(answeredAt.get("/world/assets/big-ABC123.js")).resolves.toBe(true);
  });
});

/** node:http, not fetch: fetch decodes bodies and sets its own Accept-Encoding. */
function get(
  urlPath: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${urlPath}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("Accept-Encoding", () => {
  it("lists the codings a browser accepts, leaving out those refused with q=0", () => {
    expect([...acceptedEncodings("gzip, deflate, br, zstd")]).toEqual(["gzip", "deflate", "br", "zstd"]);
    expect([...acceptedEncodings("br;q=0, gzip;q=0.5")]).toEqual(["gzip"]);
    expect([...acceptedEncodings(undefined)]).toEqual([]);
  });
});

describe("the built client, precompressed", () => {
  it("sends brotli to a browser that takes it, gzip to one that takes only gzip, the plain file otherwise", async () => {
    const path = "/world/assets/app-ABC123.js";
    const br = await get(path, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(Number(br.headers["content-length"])).toBe(br.body.byteLength);
    const gz = await get(path, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const plain = await get(path, { "accept-encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    for (const answer of [br, gz, plain]) {
      expect(answer.headers["content-type"]).toContain("javascript");
      expect(answer.headers.vary).toBe("accept-encoding");
    }
  });

  it("a hashed asset may be kept for a year untouched; index.html is always revalidated", async () => {
    const asset = await get("/world/assets/app-ABC123.js");
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const page = await get("/world/", { "accept-encoding": "br, gzip" });
    expect(page.headers["cache-control"]).toBe("no-cache");
    // Only a gzip sibling exists for the page: the best coding that exists is used.
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(page.body).toString()).toBe(PAGE);
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
  });

  it("a revalidation of an unchanged file is a bodiless 304; each coding has its own validator", async () => {
    const first = await get("/world/", { "accept-encoding": "gzip" });
    const etag = String(first.headers.etag);
    const again = await get("/world/", { "accept-encoding": "gzip", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
    const otherCoding = await get("/world/", { "if-none-match": etag });
    expect(otherCoding.status).toBe(200);
    expect(otherCoding.body.toString()).toBe(PAGE);
  });

  it("HEAD answers the headers of what GET would send, without a body", async () => {
    const head = await get("/world/assets/app-ABC123.js", { "accept-encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-encoding"]).toBe("br");
    expect(Number(head.headers["content-length"])).toBe(brotliCompressSync(SCRIPT).byteLength);
    expect(head.body.byteLength).toBe(0);
  });

  it("world files are revalidated too; a missing asset is not served", async () => {
    expect((await get("/world/maps/lobby.json")).headers["cache-control"]).toBe("no-cache");
    expect((await get("/world/assets/app-NOPE.js")).status).toBe(404);
  });
});
