// A lean JSON body reader for the AIC endpoints (the hot path, instead of a body-parser stack):
// the size cap is checked on Content-Length and again while streaming, the text must be valid UTF-8
// (invalid bytes are refused, never replaced with U+FFFD: 002 rejects malformed input rather than
// coercing it), and a failure is a BodyError the router turns into the AIC wrapper.
import type { IncomingMessage } from "node:http";

export const AIC_BODY_LIMIT_BYTES = 64 * 1024;

export type BodyErrorKind = "too_large" | "malformed" | "not_utf8" | "aborted";

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

/** The request's JSON body; rejects with a BodyError. */
export function readJsonBody(req: IncomingMessage): Promise<JsonBody> {
  return new Promise((resolve, reject) => {
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > AIC_BODY_LIMIT_BYTES) {
      reject(new BodyError("too_large", "request entity too large"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: BodyError) => {
      if (failed) return;
      failed = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > AIC_BODY_LIMIT_BYTES) fail(new BodyError("too_large", "request entity too large"));
      else chunks.push(chunk);
    };
    const onEnd = () => {
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
