// The wake target URL policy: the allow-list, and no loopback or private address unless allowed.
import { describe, expect, it } from "vitest";
import { checkTargetUrl, isPrivateAddress } from "./url-policy.ts";

const policy = { allowedHosts: ["hooks.example", "127.0.0.1", "[::1]"], allowPrivateNetworks: false };
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

describe("wake target URL policy", () => {
  it("knows loopback, private, link-local and mapped addresses from public ones", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("judges every IPv6 form by the address it parses to, and an embedded IPv4 by that address", () => {
    const cases: [form: string, inside: string[], outside: string[]][] = [
      [
        "IPv4-mapped, dotted",
        ["::ffff:127.0.0.1", "::FFFF:10.0.0.1", "0:0:0:0:0:ffff:169.254.169.254"],
        ["::ffff:8.8.8.8"],
      ],
      [
        "IPv4-mapped, hex (as new URL writes it)",
        ["::ffff:7f00:1", "[::ffff:7f00:1]", "::ffff:a9fe:a9fe"],
        ["::ffff:808:808"],
      ],
      ["IPv4-compatible ::/96", ["::7f00:1", "::127.0.0.1", "::a00:1"], ["::808:808"]],
      [
        "NAT64 64:ff9b::/96",
        ["64:ff9b::a9fe:a9fe", "64:ff9b::127.0.0.1", "64:ff9b::c0a8:101"],
        ["64:ff9b::808:808"],
      ],
      ["local-use NAT64 64:ff9b:1::/48", ["64:ff9b:1::808:808"], []],
      ["6to4 2002::/16", ["2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:101::"], ["2002:808:808::1"]],
      ["Teredo 2001::/32", ["2001:0:4136:e378:8000:63bf:3fff:fdd2"], []],
      ["site-local fec0::/10", ["fec0::1", "feff::1"], []],
      ["unique local fc00::/7", ["fc00::1", "fdff:ffff::1"], []],
      ["link-local fe80::/10", ["fe80::1", "febf::1", "fe80::1%eth0"], []],
      ["loopback and unspecified", ["::1", "::", "0:0:0:0:0:0:0:1", "127.1.2.3", "0.0.0.0"], []],
      [
        "documentation",
        ["2001:db8::1", "3fff::1", "192.0.2.1", "198.51.100.7", "203.0.113.7"],
        ["198.51.101.1"],
      ],
      ["multicast", ["ff02::1", "ff0e::1", "224.0.0.1", "239.255.255.250"], []],
      ["not an IP literal", ["", "localhost", "::ffff:999.0.0.1", "1::2::3"], []],
    ];
    for (const [form, inside, outside] of cases) {
      for (const a of inside) expect(isPrivateAddress(a), `${form}: ${a}`).toBe(true);
      for (const a of outside) expect(isPrivateAddress(a), `${form}: ${a}`).toBe(false);
    }
  });

  it("refuses a URL whose IPv6 literal stands for a private IPv4 address", async () => {
    const open = { ...policy, allowedHosts: ["[::ffff:7f00:1]", "[64:ff9b::a9fe:a9fe]", "[::7f00:1]"] };
    for (const url of [
      "http://[::ffff:127.0.0.1]:9/w",
      "http://[64:ff9b::169.254.169.254]/w",
      "http://[::7f00:1]/w",
    ])
      await expect(checkTargetUrl(url, open), url).rejects.toThrow(/private/);
  });

  it("refuses a host off the allow-list, a non-http scheme and credentials in the URL", async () => {
    await expect(
      checkTargetUrl("https://other.example/w", policy, resolvesTo("93.184.215.14")),
    ).rejects.toThrow(/allowedHosts/);
    await expect(checkTargetUrl("file:///etc/passwd", policy)).rejects.toThrow(/http and https/);
    await expect(checkTargetUrl("https://u:p@hooks.example/w", policy)).rejects.toThrow(/credentials/);
  });

  it("refuses a name that resolves to a private address (any of its addresses), and loopback literals", async () => {
    await expect(
      checkTargetUrl("https://hooks.example/w", policy, resolvesTo("93.184.215.14", "10.0.0.1")),
    ).rejects.toThrow(/10\.0\.0\.1/);
    await expect(checkTargetUrl("http://127.0.0.1:9/w", policy)).rejects.toThrow(/private/);
    await expect(checkTargetUrl("http://[::1]:9/w", policy)).rejects.toThrow(/private/);
    await expect(
      checkTargetUrl("https://hooks.example/w", policy, resolvesTo("93.184.215.14")),
    ).resolves.toBeUndefined();
  });

  it("lets loopback through when the operator allows private networks (a LAN, a test)", async () => {
    await expect(
      checkTargetUrl("http://127.0.0.1:9/w", { ...policy, allowPrivateNetworks: true }),
    ).resolves.toBeUndefined();
  });
});
