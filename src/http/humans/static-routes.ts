// The web client's HTTP side under /world/: the built client, the world's tileset and Tiled maps.
// GET/HEAD only; every answer carries the security headers; paths never leave their directory.
// index.html is revalidated on every visit; the assets it names carry their content hash in their
// names, so browsers keep them for good (scripts/build-client.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { IMMUTABLE, REVALIDATE, resolveInside, SECURITY_HEADERS, sendFile } from "./static-files.ts";

export const DEFAULT_WEB_DIST = fileURLToPath(new URL("../../../web/dist", import.meta.url));

/** Answers the request and returns true, or returns false for a path it does not serve. */
export function createStaticRoutes(worldDir: string, webDist: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const p = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...SECURITY_HEADERS, allow: "GET, HEAD", "content-type": "text/plain" });
      res.end("method not allowed");
      return true;
    }
    if (p === "/world") {
      res.writeHead(301, { location: "/world/" });
      res.end();
      return true;
    }
    if (p === "/world/ws") {
      res.writeHead(426, { ...SECURITY_HEADERS, upgrade: "websocket", "content-type": "text/plain" });
      res.end("this endpoint speaks WebSocket");
      return true;
    }
    if (p === "/world/" || p === "/world/index.html") {
      if (await sendFile(req, res, path.join(webDist, "index.html"), REVALIDATE)) return true;
      res.writeHead(503, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
      res.end("The web client is not built yet: run `npm run build:web` and reload.");
      return true;
    }
    if (p === "/world/tiles.png") return sendFile(req, res, path.join(worldDir, "tiles.png"), REVALIDATE);
    if (p.startsWith("/world/maps/")) {
      const file = resolveInside(path.join(worldDir, "maps"), p.slice("/world/maps/".length));
      return file?.endsWith(".json") ? sendFile(req, res, file, REVALIDATE) : false;
    }
    if (p.startsWith("/world/assets/")) {
      const file = resolveInside(path.join(webDist, "assets"), p.slice("/world/assets/".length));
      return file ? sendFile(req, res, file, IMMUTABLE) : false;
    }
    return false;
  };
}
