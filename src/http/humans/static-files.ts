// Serves the built web client and the world's map files. Only files inside the two base
// directories are reachable: decoded paths are resolved and checked, dot-segments and NULs refused.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
} as const;

/** Maps a URL sub-path to a file inside `baseDir`, or undefined when it would leave it. */
export function resolveInside(baseDir: string, urlSubPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlSubPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  const segments = decoded.split("/").filter((s) => s.length > 0);
  if (segments.some((s) => s === "." || s === ".." || s.startsWith("."))) return undefined;
  const base = path.resolve(baseDir);
  const full = path.resolve(base, ...segments);
  return full === base || full.startsWith(base + path.sep) ? full : undefined;
}

export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: string,
  cacheSeconds: number,
): Promise<boolean> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    return false;
  }
  if (!info.isFile()) return false;
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": type,
    "content-length": info.size,
    "cache-control": cacheSeconds > 0 ? `public, max-age=${cacheSeconds}` : "no-cache",
  });
  if (req.method === "HEAD") {
    res.end();
    return true;
  }
  await new Promise<void>((resolve) => {
    const stream = createReadStream(file);
    stream.on("error", () => {
      res.destroy();
      resolve();
    });
    stream.on("end", resolve);
    stream.pipe(res);
  });
  return true;
}
