import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { coerceArgs, defineTool, ToolError, validateArgs } from "./tool-kit.ts";

const schema = Type.Object(
  {
    sinceCursor: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    includeSelf: Type.Optional(Type.Boolean()),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

describe("coerceArgs", () => {
  it("maps snake_case to camelCase, parses JSON objects, numeric and boolean strings", () => {
    expect(
      coerceArgs(schema, { since_cursor: "abc", limit: "20", include_self: "false", params: '{"a":1}' }),
    ).toEqual({
      sinceCursor: "abc",
      limit: 20,
      includeSelf: false,
      params: { a: 1 },
    });
  });
  it("parses a whole JSON-encoded argument object and prefers camelCase over its snake twin", () => {
    expect(coerceArgs(schema, '{"limit":"3","since_cursor":"x","sinceCursor":"y"}')).toEqual({
      limit: 3,
      sinceCursor: "y",
    });
  });
  it("leaves what it cannot coerce for validation to reject", () => {
    const coerced = coerceArgs(schema, { limit: "many", includeSelf: "yes" });
    expect(coerced).toEqual({ limit: "many", includeSelf: "yes" });
    expect(() => validateArgs(schema, coerced)).toThrow(ToolError);
  });
});

describe("defineTool", () => {
  const slow = (timeoutMs: number) =>
    defineTool<Record<string, never>>(
      {
        name: "slow",
        label: "slow",
        description: "never finishes on its own",
        parameters: Type.Object({}),
        run: (_args, call) =>
          new Promise((_, reject) =>
            call.signal.addEventListener("abort", () => reject(new Error("aborted inside"))),
          ),
      },
      timeoutMs,
    );

  it("times out with a typed, retryable error", async () => {
    const error = await slow(1000)
      .execute("id", {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: "timeout", retryable: true });
  });

  it("stops at once when the caller's signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(slow(60_000).execute("id", {}, controller.signal)).rejects.toThrow(/cancelled/);
  });

  it("returns text content plus details", async () => {
    const echo = defineTool<{ limit?: number }>(
      {
        name: "echo",
        label: "echo",
        description: "echo",
        parameters: schema,
        run: async (args) => ({ text: `limit ${args.limit}`, details: args }),
      },
      1000,
    );
    expect(await echo.execute("id", { limit: "4" })).toEqual({
      content: [{ type: "text", text: "limit 4" }],
      details: { limit: 4 },
    });
  });
});
