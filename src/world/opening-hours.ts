// Opening hours of a place (a region of a map with `opens` and `closes`): open or closed is a pure
// function of simulation time, so a snapshot needs nothing more and a replay closes the same tick.
// Dependency-free: the web client imports it to draw a closed place from the same map and clock.

/** When a place is open, as HH:MM clocks of the world's one zone (UTC). `closes` before `opens`
 * spans midnight (a bar open 18:00 to 02:00). */
export interface OpeningHours {
  opens: string;
  closes: string;
}

const CLOCK = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** A region's Tiled properties declaring its hours (what `parseRegions` reads), none without. */
export function hoursProperties(
  hours: OpeningHours | undefined,
): { name: string; type: "string"; value: string }[] {
  if (!hours) return [];
  return [
    { name: "opens", type: "string", value: hours.opens },
    { name: "closes", type: "string", value: hours.closes },
  ];
}

/** Minutes since midnight of an HH:MM clock, or undefined for anything else. */
export function clockMinutes(clock: unknown): number | undefined {
  if (typeof clock !== "string") return undefined;
  const m = CLOCK.exec(clock);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** The minute of the day (UTC) at simulation time `ms`. */
export function minuteOfDay(ms: number): number {
  return Math.floor((((ms % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
}

/** Whether `minute` lies in [from, to), wrapping past midnight when `to` is not after `from`. */
export function withinClocks(minute: number, from: number, to: number): boolean {
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

export function isOpenAt(hours: OpeningHours, ms: number): boolean {
  return withinClocks(minuteOfDay(ms), clockMinutes(hours.opens) ?? 0, clockMinutes(hours.closes) ?? 0);
}

/** What someone turned away at its edge is told. */
export function closedNotice(name: string, hours: OpeningHours): string {
  return `${name} is closed; it opens at ${hours.opens}.`;
}

/** What someone inside at closing time is told as they are shown out. */
export function closingNotice(name: string, hours: OpeningHours): string {
  return `${name} closes at ${hours.closes}: you were shown out. It opens again at ${hours.opens}.`;
}

/** A place's hours in a line ("Café, open 07:00-19:00"), for the name shown on walking in. */
export function hoursLine(hours: OpeningHours): string {
  return `open ${hours.opens}-${hours.closes}`;
}
