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
    for (const a of ["203.0.113.7", "8.8.8.8", "172.32.0.1", "2001:db8::1", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("refuses a host off the allow-list, a non-http scheme and credentials in the URL", async () => {
    await expect(
      checkTargetUrl("https://other.example/w", policy, resolvesTo("203.0.113.7")),
    ).rejects.toThrow(/allowedHosts/);
    await expect(checkTargetUrl("file:///etc/passwd", policy)).rejects.toThrow(/http and https/);
    await expect(checkTargetUrl("https://u:p@hooks.example/w", policy)).rejects.toThrow(/credentials/);
  });

  it("refuses a name that resolves to a private address (any of its addresses), and loopback literals", async () => {
    await expect(
      checkTargetUrl("https://hooks.example/w", policy, resolvesTo("203.0.113.7", "10.0.0.1")),
    ).rejects.toThrow(/10\.0\.0\.1/);
    await expect(checkTargetUrl("http://127.0.0.1:9/w", policy)).rejects.toThrow(/private/);
    await expect(checkTargetUrl("http://[::1]:9/w", policy)).rejects.toThrow(/private/);
    await expect(
      checkTargetUrl("https://hooks.example/w", policy, resolvesTo("203.0.113.7")),
    ).resolves.toBeUndefined();
  });

  it("lets loopback through when the operator allows private networks (a LAN, a test)", async () => {
    await expect(
      checkTargetUrl("http://127.0.0.1:9/w", { ...policy, allowPrivateNetworks: true }),
    ).resolves.toBeUndefined();
  });
});
