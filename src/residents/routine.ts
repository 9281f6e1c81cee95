// Where a resident's routine puts it: home, then each stop due now in turn, a fixed stretch of
// simulation time at each, around and around. A stop may be due only part of the day (`from`,
// `to`: HH:MM of the world's clock), so a day plan ends at home for the night; a stop in a place
// closed now (the world blocks its tiles) is skipped. A pure function of the simulation time (the
// world's serverTsMs, which is its tick) and what the world says is closed, so the same world shows
// its residents at the same places in every run and a replay agrees; the scheduler walks the
// resident there when the stop changes.
import { clockMinutes, minuteOfDay, withinClocks } from "../aic/reads.ts";

export interface RoutineStopConfig {
  tx: number;
  ty: number;
  /** Due from this clock (HH:MM), default midnight. */
  from?: string;
  /** Due until this clock (HH:MM, not included), default the end of the day. */
  to?: string;
}

export interface Routine {
  everySec: number;
  stops: readonly RoutineStopConfig[];
}

export interface RoutineStop {
  /** Which stop: 0 is home, then the routine's stops in order. A change means "walk on". */
  index: number;
  tile: { tx: number; ty: number };
}

const DAY_MINUTES = 24 * 60;

/** Whether a stop's hours include simulation time `ms`. */
export function stopDue(stop: RoutineStopConfig, ms: number): boolean {
  if (stop.from === undefined && stop.to === undefined) return true;
  return withinClocks(minuteOfDay(ms), clockMinutes(stop.from) ?? 0, clockMinutes(stop.to) ?? DAY_MINUTES);
}

export function routineStop(
  routine: Routine | undefined,
  home: { tx: number; ty: number },
  simulationMs: number,
  closed: (tile: { tx: number; ty: number }) => boolean = () => false,
): RoutineStop {
  if (!routine) return { index: 0, tile: { tx: home.tx, ty: home.ty } };
  const places = [{ index: 0, at: home }];
  routine.stops.forEach((at, i) => {
    if (stopDue(at, simulationMs) && !closed(at)) places.push({ index: i + 1, at });
  });
  const slot = Math.floor(Math.max(0, simulationMs) / (routine.everySec * 1000));
  const { index, at } = places[slot % places.length]!;
  return { index, tile: { tx: at.tx, ty: at.ty } };
}
