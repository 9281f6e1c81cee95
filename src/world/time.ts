// Simulation time helpers. Pure arithmetic: no host clock is ever read in src/world.

/** Days since 1970-01-01 for a proleptic Gregorian civil date (Howard Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Parses `YYYY-MM-DD` or an ISO date-time with `Z`/offset (no offset = UTC) into epoch ms. */
export function parseIsoToMs(text: string): number | undefined {
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  let offsetMin = 0;
  const zone = m[8];
  if (zone && zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    offsetMin = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  const days = daysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute - offsetMin) * 60_000 + second * 1000 + ms;
}

/** serverTsMs of a tick: epoch + tick * 1000 / tickRate, as an integer. */
export function tickToMs(epochMs: number, tickRate: number, tick: number): number {
  return epochMs + Math.floor((tick * 1000) / tickRate);
}

export type PartOfDay = "morning" | "day" | "evening" | "night";

/** The world's time of day at simulation time `ms`: the clock (UTC, the world's one zone) and the
 * part of the day: morning from 05:00, day from 11:00, evening from 17:00, night from 21:00. */
export function timeOfDay(ms: number): { clock: string; part: PartOfDay } {
  const minuteOfDay = Math.floor((((ms % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
  const hour = Math.floor(minuteOfDay / 60);
  const clock = `${String(hour).padStart(2, "0")}:${String(minuteOfDay % 60).padStart(2, "0")}`;
  const part = hour >= 21 || hour < 5 ? "night" : hour < 11 ? "morning" : hour < 17 ? "day" : "evening";
  return { clock, part };
}
