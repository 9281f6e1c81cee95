// The replay page's operator link: a browser cannot send the gateway token with a page
// load, so the operator (gateway token: the admin route or `openclaw ocw replay link`) is handed a
// link carrying a random key of its own, good for a while. The key rides in the address's fragment,
// which browsers never send, so it stays out of access logs; the page sends it as a header.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { REPLAY_KEY_HEADER, REPLAY_ROUTE } from "../http/replay-routes.ts";

export const LINK_TTL_MS = 12 * 3_600_000;
/** Links alive at once: the oldest goes first. */
const MAX_LINKS = 16;

export class ReplayLinks {
  private readonly links: { key: Buffer; expiresAt: number }[] = [];
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A new link at `origin` (where the operator's request came in). */
  mint(origin: string): { url: string; expiresAt: string; header: string } {
    const key = randomBytes(32);
    const expiresAt = this.now() + LINK_TTL_MS;
    this.links.push({ key, expiresAt });
    if (this.links.length > MAX_LINKS) this.links.shift();
    return {
      url: `${origin}${REPLAY_ROUTE}/#key=${key.toString("base64url")}`,
      expiresAt: new Date(expiresAt).toISOString(),
      header: REPLAY_KEY_HEADER,
    };
  }

  valid(presented: string | undefined): boolean {
    if (!presented) return false;
    const key = Buffer.from(presented, "base64url");
    const now = this.now();
    return this.links.some(
      (link) => link.expiresAt > now && link.key.length === key.length && timingSafeEqual(link.key, key),
    );
  }
}
