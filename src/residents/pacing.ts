// When a resident's next turn may start, and whose words may start one: one turn in flight, a least
// interval between starts, a most per hour, a most per hour above all residents (the world's budget),
// and a share per person, so one talker cannot use every turn. Pure: the scheduler passes the time in
// and keeps the ledgers.
export interface Pacing {
  minIntervalMs: number;
  maxTurnsPerHour: number;
}

export interface TurnLedger {
  inFlight: boolean;
  /** Start times (ms) of the turns of the last hour, oldest first. */
  starts: number[];
}

/** The turns of the last hour above every resident, and how many an hour may hold. */
export interface WorldBudget {
  starts: number[];
  maxTurnsPerHour: number;
}

/** The residents' talk budget, shared by every scheduler (the gateway's residents and each remote
 * one), with who of them last answered another resident: their words wake no resident, so an
 * exchange is a line each wherever the two residents live. */
export interface TalkBudget extends WorldBudget {
  replying: Set<string>;
}

export type NextStart =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "now" }
  | { kind: "wait"; ms: number; cause: "interval" | "hourly_cap" | "world_budget" };

const HOUR_MS = 3_600_000;

/** Forgets starts older than an hour (mutates the ledger: it is the scheduler's own). */
export function pruneLedger(ledger: { starts: number[] }, nowMs: number): void {
  while (ledger.starts.length > 0 && ledger.starts[0]! <= nowMs - HOUR_MS) ledger.starts.shift();
}

/** How long until fewer than `max` of `starts` lie within the last hour (0: already). */
function untilBelow(starts: readonly number[], max: number, nowMs: number): number {
  const recent = starts.filter((t) => t > nowMs - HOUR_MS);
  return recent.length < max ? 0 : recent[recent.length - max]! + HOUR_MS - nowMs;
}

export function nextStart(
  ledger: TurnLedger,
  pending: number,
  nowMs: number,
  pacing: Pacing,
  world?: WorldBudget,
): NextStart {
  if (pending === 0) return { kind: "idle" };
  if (ledger.inFlight) return { kind: "busy" };
  const capped = untilBelow(ledger.starts, pacing.maxTurnsPerHour, nowMs);
  if (capped > 0) return { kind: "wait", ms: capped, cause: "hourly_cap" };
  const budget = world ? untilBelow(world.starts, world.maxTurnsPerHour, nowMs) : 0;
  if (budget > 0) return { kind: "wait", ms: budget, cause: "world_budget" };
  const last = ledger.starts.filter((t) => t > nowMs - HOUR_MS).at(-1);
  if (last !== undefined && nowMs - last < pacing.minIntervalMs) {
    return { kind: "wait", ms: last + pacing.minIntervalMs - nowMs, cause: "interval" };
  }
  return { kind: "now" };
}

/** Whether one more turn fits `budget` now: fewer than its most lie in the last hour (a most of 0
 * allows none). The residents' talk budget is asked this as their words arrive and as a turn starts. */
export function withinBudget(budget: WorldBudget, nowMs: number): boolean {
  return budget.maxTurnsPerHour > 0 && untilBelow(budget.starts, budget.maxTurnsPerHour, nowMs) === 0;
}

/** The turns each person's words started in the last hour, by entity id. */
export type PersonLedger = Map<string, number[]>;

/** Whether what `person` says may still wake the resident: fewer than `share` of its turns in the
 * last hour answered them. Past their share their words are refused (the scheduler counts them), and
 * the turns left go to everyone else. */
export function withinShare(people: PersonLedger, person: string, nowMs: number, share: number): boolean {
  return untilBelow(people.get(person) ?? [], share, nowMs) === 0;
}

/** Counts a turn started at `nowMs` against each person it answers; forgets hour-old entries. */
export function chargePeople(people: PersonLedger, persons: Iterable<string>, nowMs: number): void {
  for (const person of new Set(persons)) {
    const starts = people.get(person) ?? [];
    starts.push(nowMs);
    people.set(person, starts);
  }
  for (const [person, starts] of people) {
    pruneLedger({ starts }, nowMs);
    if (starts.length === 0) people.delete(person);
  }
}
