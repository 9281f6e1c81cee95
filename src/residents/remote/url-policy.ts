// Which URLs the world may send a wake to (docs/wake-targets.md). A wake target is configured by the
// operator, but its URL must not turn the world into a way into the host's own network: its host must
// be on the operator's allow-list, and unless the operator allows private networks, none of the
// addresses it resolves to may be loopback, private, link-local or otherwise not public. Checked when
// a target is set and again before every send (a name can start resolving elsewhere); no redirect is
// ever followed (delivery.ts sends with redirect "manual" and counts a 3xx as refused).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export interface UrlPolicy {
  allowedHosts: readonly string[];
  allowPrivateNetworks: boolean;
}

export class TargetRefused extends Error {
  readonly code = "target_refused";
}

/** The host of `url` if the allow-list names it; throws TargetRefused otherwise. */
export function allowedHost(url: string, policy: UrlPolicy): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetRefused(`not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TargetRefused(`only http and https targets are allowed, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new TargetRefused("a target URL carries no credentials");
  const host = parsed.hostname.toLowerCase();
  if (!policy.allowedHosts.includes(host))
    throw new TargetRefused(`host ${host} is not in wakeDelivery.allowedHosts`);
  return host;
}

const V4_BLOCKED: readonly (readonly [number, number])[] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // private
  [0x64400000, 10], // carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata)
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** Whether `address` (an IP literal) is outside the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const n = v4Number(address);
    return V4_BLOCKED.some(
      ([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)),
    );
  }
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isPrivateAddress(mapped[1]!);
  return (
    lower === "::" ||
    lower === "::1" ||
    /^f[cd]/.test(lower) || // unique local
    /^fe[89ab]/.test(lower) || // link-local
    /^ff/.test(lower) // multicast
  );
}

export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** Checks `url` against the policy, resolving its host; throws TargetRefused when it may not be sent to. */
export async function checkTargetUrl(
  url: string,
  policy: UrlPolicy,
  resolve: Resolve = systemResolve,
): Promise<void> {
  const host = allowedHost(url, policy);
  if (policy.allowPrivateNetworks) return;
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  let addresses: string[];
  try {
    addresses = isIP(literal) ? [literal] : await resolve(literal);
  } catch (error) {
    throw new TargetRefused(`host ${host} does not resolve (${(error as Error).message})`);
  }
  const inside = addresses.find(isPrivateAddress);
  if (addresses.length === 0 || inside !== undefined)
    throw new TargetRefused(
      `host ${host} resolves to ${inside ?? "nothing"}, a loopback or private address (wakeDelivery.allowPrivateNetworks is off)`,
    );
}
