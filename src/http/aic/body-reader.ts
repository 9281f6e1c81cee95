// A lean JSON body reader for the AIC endpoints (the hot path, instead of a body-parser stack):
// the size cap is checked on Content-Length and again while streaming, the text is UTF-8, and a
// failure is a BodyError the app's error handler turns into the AIC wrapper.
import type { NextFunction, Request, Response } from "express";

export const AIC_BODY_LIMIT_BYTES = 64 * 1024;

export type BodyErrorKind = "too_large" | "malformed" | "aborted";

export class BodyError extends Error {
  readonly kind: BodyErrorKind;
  constructor(kind: BodyErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export function readJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > AIC_BODY_LIMIT_BYTES) {
    next(new BodyError("too_large", "request entity too large"));
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
    next(error);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > AIC_BODY_LIMIT_BYTES) fail(new BodyError("too_large", "request entity too large"));
    else chunks.push(chunk);
  };
  const onEnd = () => {
    if (failed) return;
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    if (text.length === 0) {
      req.body = undefined;
      next();
      return;
    }
    try {
      req.body = JSON.parse(text);
    } catch {
      failed = true;
      next(new BodyError("malformed", "malformed JSON"));
      return;
    }
    next();
  };
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", () => fail(new BodyError("aborted", "request aborted")));
}
