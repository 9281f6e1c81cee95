import type { IncomingMessage } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyText } from "../world/testing/any-text.ts";
import { createHostRule, hostnameOf } from "./host-rule.ts";

function request(host: string | undefined, localAddress = "127.0.0.1"): IncomingMessage {
  return {
    headers: host === undefined ? {} : { host },
    socket: { localAddress },
  } as unknown as IncomingMessage;
}

describe("the Host rule (DNS rebinding)", () => {
  const rule = createHostRule(["world.example"]);

  it("answers loopback names, the address the connection arrived on and listed hosts, on any port", () => {
    for (const host of ["localhost", "LOCALHOST:8080", "127.0.0.1:18789", "[::1]:9", "world.example:443"]) {
      expect(rule(request(host)), host).toBe(true);
    }
    expect(rule(request("192.168.1.5:18789", "192.168.1.5"))).toBe(true);
    expect(rule(request("[fe80::1]:80", "fe80::1"))).toBe(true);
    expect(rule(request("10.0.0.9:80", "::ffff:10.0.0.9"))).toBe(true);
  });

  it("refuses any other name, a malformed Host, and a Host hiding a name behind a user or path", () => {
    for (const host of [
      "evil.example",
      "evil.example:18789",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "world.example.evil",
      "evil@localhost",
      "localhost/x",
      "local host",
      "",
      "[::2]",
      "192.168.1.6",
    ]) {
      expect(rule(request(host, "192.168.1.5")), host).toBe(false);
    }
  });

  it("lets a request without a Host through (no browser sends one)", () => {
    expect(rule(request(undefined))).toBe(true);
  });

  it("never throws and only ever answers names it was given, whatever the header", () => {
    fc.assert(
      fc.property(anyText({ maxLength: 80 }), (host) => {
        const allowed = rule(request(host, "203.0.113.4"));
        if (allowed) {
          expect(["localhost", "127.0.0.1", "[::1]", "world.example", "203.0.113.4"]).toContain(
            hostnameOf(host),
          );
        }
      }),
      { numRuns: 1000 },
    );
  });
});
