import { describe, expect, it } from "vitest";
import { tokenDirectory } from "./adapters.ts";

describe("agent token directory", () => {
  const agents = {
    alpha: { name: "Alpha", token: "secret-alpha-0123456789" },
    beta: { name: "Beta", token: "secret-beta-0123456789" },
    tokenless: { name: "No token" },
    ...Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`load_${i}`, { name: `L${i}`, token: `tok-${i}` }]),
    ),
  } as Parameters<typeof tokenDirectory>[0];
  const lookup = tokenDirectory(agents);

  it("finds each agent by its own token", () => {
    expect(lookup("secret-alpha-0123456789")).toBe("alpha");
    expect(lookup("secret-beta-0123456789")).toBe("beta");
    expect(lookup("tok-299")).toBe("load_299");
  });

  it("refuses near misses, prefixes, extensions, the empty token and other encodings", () => {
    for (const bad of [
      "secret-alpha-012345678",
      "secret-alpha-01234567890",
      "Secret-alpha-0123456789",
      "",
      "tok-",
      "tok-3000",
      " secret-alpha-0123456789",
    ])
      expect(lookup(bad)).toBeUndefined();
  });
});
