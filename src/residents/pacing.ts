// When a resident's next turn may start: one turn in flight, a least interval between starts and a
// most per hour. Pure: the scheduler passes the time in and keeps the ledger.
export interface Pacing {
  minIntervalMs: number;
  maxTurnsPerHour: number;
}

export interface TurnLedger {
  inFlight: boolean;
  /** Start times (ms) of the turns of the last hour, oldest first. */
  starts: number[];
}

export type NextStart =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "now" }
  | { kind: "wait"; ms: number; cause: "interval" | "hourly_cap" };

const HOUR_MS = 3_600_000;

/** Forgets starts older than an hour (mutates the ledger: it is the scheduler's own). */
export function pruneLedger(ledger: TurnLedger, nowMs: number): void {
  while (ledger.starts.length > 0 && ledger.starts[0]! <= nowMs - HOUR_MS) ledger.starts.shift();
}

export function nextStart(ledger: TurnLedger, pending: number, nowMs: number, pacing: Pacing): NextStart {
  if (pending === 0) return { kind: "idle" };
  if (ledger.inFlight) return { kind: "busy" };
  const recent = ledger.starts.filter((t) => t > nowMs - HOUR_MS);
  if (recent.length >= pacing.maxTurnsPerHour) {
    return {
      kind: "wait",
      ms: recent[recent.length - pacing.maxTurnsPerHour]! + HOUR_MS - nowMs,
      cause: "hourly_cap",
    };
  }
  const last = recent[recent.length - 1];
  if (last !== undefined && nowMs - last < pacing.minIntervalMs) {
    return { kind: "wait", ms: last + pacing.minIntervalMs - nowMs, cause: "interval" };
  }
  return { kind: "now" };
}
