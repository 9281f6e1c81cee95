import { describe, expect, it } from "vitest";
import { AIC_ERROR_CODES, AicError, aicError, httpStatusFor, isRetryable, ok } from "./errors.ts";
import { generatedAic } from "./schema-check.ts";
import { oracleAic } from "./testing/oracle.ts";

describe("error model", () => {
  it("every code builds a wrapper valid against the generated schema and the oracle", () => {
    for (const code of AIC_ERROR_CODES) {
      const result = aicError(code, `failure ${code}`, { a: 1 });
      expect(generatedAic("Result", result).errors).toBe("");
      expect(oracleAic("Result", result).errors).toBe("");
    }
  });

  it("retryable is decided by code", () => {
    expect(isRetryable("rate_limited")).toBe(true);
    expect(isRetryable("timeout")).toBe(true);
    expect(isRetryable("room_not_ready")).toBe(true);
    expect(isRetryable("bad_request")).toBe(false);
    expect(isRetryable("conflict")).toBe(false);
    expect(new AicError("rate_limited", "x").retryable).toBe(true);
  });

  it("messages are clamped to the schema bounds", () => {
    expect(new AicError("internal", "").message).toBe("error");
    expect(new AicError("internal", "x".repeat(5000)).message.length).toBe(2000);
  });

  it("maps to HTTP status per PRD 9.1 (domain errors are 200)", () => {
    const status = (code: (typeof AIC_ERROR_CODES)[number]) => httpStatusFor(aicError(code, "m"));
    expect(httpStatusFor(ok({}))).toBe(200);
    expect(status("bad_request")).toBe(400);
    expect(status("unauthorized")).toBe(401);
    expect(status("forbidden")).toBe(403);
    expect(status("rate_limited")).toBe(429);
    expect(status("internal")).toBe(500);
    for (const code of [
      "not_found",
      "room_not_ready",
      "agent_not_in_room",
      "invalid_destination",
      "collision_blocked",
      "conflict",
      "timeout",
    ] as const) {
      expect(status(code)).toBe(200);
    }
    expect(httpStatusFor(aicError("bad_request", "big"), "payload_too_large")).toBe(413);
    expect(httpStatusFor(aicError("not_found", "route"), "route_not_found")).toBe(404);
    expect(httpStatusFor(aicError("not_found", "method"), "method_not_allowed")).toBe(405);
  });
});
