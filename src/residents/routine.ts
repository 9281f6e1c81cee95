// Where a resident's routine puts it: home, then each stop in turn, a fixed stretch of simulation time
// at each, around and around. A pure function of the simulation time (the world's serverTsMs, which
// is its tick), so the same world shows its residents at the same places in every run and a replay
// agrees; the scheduler walks the resident there when the stop changes.
export interface Routine {
  everySec: number;
  stops: readonly { tx: number; ty: number }[];
}

export interface RoutineStop {
  /** Which stop: 0 is home, then the routine's stops in order. A change means "walk on". */
  index: number;
  tile: { tx: number; ty: number };
}

export function routineStop(
  routine: Routine | undefined,
  home: { tx: number; ty: number },
  simulationMs: number,
): RoutineStop {
  if (!routine) return { index: 0, tile: { tx: home.tx, ty: home.ty } };
  const places = [home, ...routine.stops];
  const slot = Math.floor(Math.max(0, simulationMs) / (routine.everySec * 1000));
  const index = slot % places.length;
  const at = places[index]!;
  return { index, tile: { tx: at.tx, ty: at.ty } };
}
