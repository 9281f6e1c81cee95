// Canonical snapshot hashing: SHA-256 of RFC 8785 canonical JSON, so key order never matters.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value cannot be canonicalized");
  return text;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
