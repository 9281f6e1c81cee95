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

/** IPv4 ranges outside the public internet: [first address, prefix length]. */
const V4_BLOCKED: readonly (readonly [number, number])[] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // private
  [0x64400000, 10], // carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata)
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0000200, 24], // documentation (TEST-NET-1)
  [0xc0586300, 24], // 6to4 relay anycast
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xc6336400, 24], // documentation (TEST-NET-2)
  [0xcb007100, 24], // documentation (TEST-NET-3)
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

/** IPv6 ranges outside the public internet: [first address, prefix length]. The ranges that carry
 * an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address instead. */
const V6_BLOCKED: readonly (readonly [bigint, number])[] = [
  [0x0100n << 64n, 64], // discard-only
  [0x0064ff9b0001n << 80n, 48], // local-use NAT64
  [0x20010000n << 96n, 32], // Teredo: tunnels to whatever IPv4 address it hides
  [0x20010010n << 96n, 28], // ORCHID
  [0x20010db8n << 96n, 32], // documentation
  [0x3fffn << 112n, 20], // documentation
  [0xfcn << 120n, 7], // unique local
  [0xfe80n << 112n, 10], // link-local
  [0xfec0n << 112n, 10], // site-local (deprecated, still routed inside some networks)
  [0xffn << 120n, 8], // multicast
];

const inRange = (n: bigint, base: bigint, bits: number, width: number) =>
  n >> BigInt(width - bits) === base >> BigInt(width - bits);

/** An IPv4 literal as a number, or undefined. */
function v4Number(address: string): number | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** An IPv6 literal (any written form: `::`, an embedded dotted quad, a zone) as a 128-bit number. */
function v6Number(address: string): bigint | undefined {
  const bare = address.replace(/%.*$/, "");
  if (isIP(bare) !== 6) return undefined;
  let text = bare.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v4 = v4Number(quad[1]!)!;
    text = `${text.slice(0, quad.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  return groups.reduce((n, group) => (n << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function isPrivateV4(n: number): boolean {
  return V4_BLOCKED.some(
    ([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)),
  );
}

/** The IPv4 address an IPv6 address stands for, where its range carries one. */
function embeddedV4(n: bigint): number | undefined {
  const low32 = Number(n & 0xffffffffn);
  if (n >> 32n === 0xffffn) return low32; // IPv4-mapped ::ffff:0:0/96
  if (n >> 32n === 0n) return low32; // IPv4-compatible ::/96 (also :: and ::1, judged as 0.0.0.x)
  if (n >> 32n === 0x0064ff9b0000000000000000n) return low32; // NAT64 64:ff9b::/96
  if (n >> 112n === 0x2002n) return Number((n >> 80n) & 0xffffffffn); // 6to4 2002::/16
  return undefined;
}

/** Whether `address` (an IP literal, IPv4 or IPv6 in any written form) is outside the public
 * internet; anything that is not an IP literal counts as outside. */
export function isPrivateAddress(address: string): boolean {
  const v4 = v4Number(address);
  if (v4 !== undefined) return isPrivateV4(v4);
  const v6 = v6Number(address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address);
  if (v6 === undefined) return true;
  const carried = embeddedV4(v6);
  if (carried !== undefined) return isPrivateV4(carried);
  return V6_BLOCKED.some(([base, bits]) => inRange(v6, base, bits, 128));
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
