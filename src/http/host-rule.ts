// Which names this gateway answers to. A DNS-rebinding page (evil.example, re-pointed at 127.0.0.1)
// reaches the gateway from the victim's own browser with `Host: evil.example`: the request is
// same-origin to that page, so it could read whatever answers. The plugin's routes therefore answer
// only a Host that names the gateway itself — a loopback name, the address the connection arrived
// on — or one the operator listed (a reverse proxy's public name, the hosts of the allowed browser
// origins). The WebSocket's Origin check (humans/admission.ts) reads the same loopback rule.
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether a URL hostname is a loopback name (localhost, 127.0.0.1, [::1]). */
export function isLoopbackName(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}

/** Whether a URL hostname names the local address the connection arrived on (IPv4, IPv6, mapped). */
export function isLocalAddress(hostname: string, localAddress: string | undefined): boolean {
  if (!localAddress) return false;
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (isIP(host) === 0) return false;
  const local = localAddress.startsWith("::ffff:") ? localAddress.slice(7) : localAddress;
  return host === local || host === localAddress;
}

/** The hostname of a Host header value (`name`, `name:port`, `[v6]:port`), lower-cased; undefined
 * when it is not a well-formed authority. */
export function hostnameOf(host: string): string | undefined {
  try {
    // A Host is an authority alone: a user, path or query in it is not one.
    if (/[/?#@\\]/.test(host)) return undefined;
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

export type HostRule = (req: IncomingMessage) => boolean;

/**
 * The rule for every plugin route: `allowedHosts` are extra hostnames ("world.example"), matched
 * whatever the port. A request without a Host (HTTP/1.0: no browser sends one) names no host a
 * page could have rebound, so it passes.
 */
export function createHostRule(allowedHosts: readonly string[]): HostRule {
  const extra = new Set(allowedHosts.map((h) => hostnameOf(h) ?? h.toLowerCase()));
  return (req) => {
    const host = req.headers.host;
    if (host === undefined) return true;
    const hostname = hostnameOf(host);
    if (hostname === undefined) return false;
    return (
      isLoopbackName(hostname) || extra.has(hostname) || isLocalAddress(hostname, req.socket?.localAddress)
    );
  };
}
