import { describe, expect, it } from "vitest";
import { randomToken } from "./gateway.ts";

describe("randomToken", () => {
  it("never starts with '-', so `--gateway-token <token>` is not read as an option", () => {
    // base64url starts with '-' one time in 64: 4,000 draws meet it about 62 times.
    const tokens = Array.from({ length: 4_000 }, () => randomToken());
    expect(tokens.filter((t) => t.startsWith("-"))).toEqual([]);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const t of tokens.slice(0, 50)) expect(t).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{31}$/);
  });
});
