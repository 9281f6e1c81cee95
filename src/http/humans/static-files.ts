// Serves the built web client and the world's map files. Only files inside the two base
// directories are reachable: decoded paths are resolved and checked, dot-segments and NULs refused.

import type { Stats } from "node:fs";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";

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

/** index.html and world files: always revalidated (a cheap 304 while unchanged). */
export const REVALIDATE = "no-cache";
/** Build outputs named by their content (scripts/build-client.ts): a new build is a new name. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** Precompressed siblings the build writes, best first. */
const ENCODINGS = [
  { token: "br", suffix: ".br" },
  { token: "gzip", suffix: ".gz" },
] as const;

/** The codings an Accept-Encoding header allows (a zero q-value refuses one). */
export function acceptedEncodings(header: string | string[] | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",")) {
    const [token = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (token && !(q && Number(q.slice(2)) === 0)) accepted.add(token);
  }
  return accepted;
}

async function statFile(file: string): Promise<Stats | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends `file`, or its precompressed `.br`/`.gz` sibling when the browser accepts that coding, with
 * a validator (ETag) so a revalidation of an unchanged file is a bodiless 304.
 */
export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: string,
  cacheControl: string,
): Promise<boolean> {
  const original = await statFile(file);
  if (!original) return false;
  const accepted = acceptedEncodings(req.headers["accept-encoding"]);
  let body = file;
  let info = original;
  let encoding: string | undefined;
  for (const candidate of ENCODINGS) {
    if (!accepted.has(candidate.token)) continue;
    const compressed = await statFile(file + candidate.suffix);
    if (!compressed) continue;
    body = file + candidate.suffix;
    info = compressed;
    encoding = candidate.token;
    break;
  }
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
  const etag = `"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}${encoding ? `-${encoding}` : ""}"`;
  const headers = {
    ...SECURITY_HEADERS,
    "content-type": type,
    "cache-control": cacheControl,
    etag,
    // Caches must keep the codings apart, also for a file that has only its plain form today.
    vary: "accept-encoding",
    ...(encoding ? { "content-encoding": encoding } : {}),
  };
  if (req.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag)) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  res.writeHead(200, { ...headers, "content-length": info.size });
  if (req.method === "HEAD") {
    res.end();
    return true;
  }
  // pipeline, not pipe: a browser that goes away mid-file must end this too (pipe left the file open
  // and this promise pending for good, which held every plugin reload for its 60 s).
  await pipeline(createReadStream(body), res).catch(() => {
    if (!res.destroyed) res.destroy();
  });
  return true;
}
