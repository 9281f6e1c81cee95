// A lean JSON body reader for the AIC endpoints (the hot path, instead of a body-parser stack):
// the size cap is checked on Content-Length and again while streaming, the text must be valid UTF-8
// (invalid bytes are refused, never replaced with U+FFFD: 002 rejects malformed input rather than
// coercing it), and a failure is a BodyError the router turns into the AIC wrapper.
// A body must arrive whole within a deadline: a caller that sends half a body and keeps the connection
// open would otherwise hold its request (and the socket) until the server's own 5-minute limit.
import type { IncomingMessage } from "node:http";

export const AIC_BODY_LIMIT_BYTES = 64 * 1024;
/** How long an AIC body may take to arrive (64 KiB at any usable speed takes well under this). */
export const AIC_BODY_DEADLINE_MS = 10_000;

export type BodyErrorKind = "too_large" | "malformed" | "not_utf8" | "aborted" | "timeout";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export class BodyError extends Error {
  readonly kind: BodyErrorKind;
  constructor(kind: BodyErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface JsonBody {
  /** The parsed body, undefined when empty. */
  value: unknown;
  /** The body as it arrived (decoded). */
  text: string;
}

export interface BodyLimits {
  /** The largest body accepted (default AIC_BODY_LIMIT_BYTES). */
  limitBytes?: number;
  /** How long the whole body may take to arrive (default AIC_BODY_DEADLINE_MS). */
  deadlineMs?: number;
}

/** The request's JSON body; rejects with a BodyError. */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits = {}): Promise<JsonBody> {
  const limitBytes = limits.limitBytes ?? AIC_BODY_LIMIT_BYTES;
  return new Promise((resolve, reject) => {
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > limitBytes) {
      reject(new BodyError("too_large", "request entity too large"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const deadline = setTimeout(
      () => fail(new BodyError("timeout", "request body did not arrive in time")),
      limits.deadlineMs ?? AIC_BODY_DEADLINE_MS,
    );
    deadline.unref();
    const fail = (error: BodyError) => {
      if (failed) return;
      failed = true;
      clearTimeout(deadline);
      req.off("data", onData);
      req.off("end", onEnd);
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) fail(new BodyError("too_large", "request entity too large"));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      clearTimeout(deadline);
      if (failed) return;
      let text: string;
      try {
        text = strictUtf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      } catch {
        failed = true;
        reject(new BodyError("not_utf8", "request body is not valid UTF-8"));
        return;
      }
      if (text.length === 0) {
        resolve({ value: undefined, text });
        return;
      }
      try {
        resolve({ value: JSON.parse(text), text });
      } catch {
        failed = true;
        reject(new BodyError("malformed", "malformed JSON"));
      }
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", () => fail(new BodyError("aborted", "request aborted")));
  });
}
