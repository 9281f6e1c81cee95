// The world's time as the page last heard it (a welcome, an event), run on by the page's own clock
// between messages. A note's age is read against it: the world's clock is simulation time, which
// stands still while the gateway is down and need not be the reader's date, so "Feb 10 14:02" on a
// note said nothing a person could use; "5 minutes ago" does.

let heard: { worldMs: number; atMs: number } | undefined;

/** An event of the world said `worldMs` (its tsMs) at the page's `atMs`: the clock moves on to it,
 * never back (a history line is older than now). */
export function heardWorldTime(worldMs: number, atMs: number = performance.now()): void {
  if (!Number.isFinite(worldMs)) return;
  const now = worldNow(atMs);
  if (now === undefined || worldMs > now) heard = { worldMs, atMs };
}

/** The world said its time is `worldMs` (a welcome's serverTsMs): taken as it is, even when earlier
 * than the page thought (another world, or one started afresh). */
export function setWorldTime(worldMs: number, atMs: number = performance.now()): void {
  if (Number.isFinite(worldMs)) heard = { worldMs, atMs };
}

/** The world's time now, as far as the page can tell (undefined before it heard any). */
export function worldNow(atMs: number = performance.now()): number | undefined {
  return heard === undefined ? undefined : heard.worldMs + Math.max(0, atMs - heard.atMs);
}

/** Forgets what was heard (a test's fresh start). */
export function forgetWorldTime(): void {
  heard = undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago, in words a reader expects: "just now", "5 minutes ago", "2 hours ago", "yesterday",
 * "3 days ago", "5 weeks ago". */
export function agoInWords(ageMs: number): string {
  if (!(ageMs >= MINUTE)) return "just now";
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (ageMs < HOUR) return count(Math.floor(ageMs / MINUTE), "minute");
  if (ageMs < DAY) return count(Math.floor(ageMs / HOUR), "hour");
  if (ageMs < 2 * DAY) return "yesterday";
  if (ageMs < 14 * DAY) return count(Math.floor(ageMs / DAY), "day");
  return count(Math.floor(ageMs / (7 * DAY)), "week");
}
