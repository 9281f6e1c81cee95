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
  /** No turn before this (ms): the gateway refused the last one for now (a reload draining). */
  retryAtMs?: number;
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
  /** The least time between two exchanges of the same two residents (none: any time). */
  pairIntervalMs?: number;
  /** Each pair's last exchange: when it started and its turns so far (an opener and its reply). */
  pairs?: Map<string, { atMs: number; turns: number }>;
}

export type NextStart =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "now" }
  | { kind: "wait"; ms: number; cause: WaitCause };

export type WaitCause = "interval" | "hourly_cap" | "world_budget" | "gateway_busy";

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
  if (ledger.retryAtMs !== undefined && ledger.retryAtMs > nowMs)
    return { kind: "wait", ms: ledger.retryAtMs - nowMs, cause: "gateway_busy" };
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

/** Turns of talk the budget lets out at once: one exchange (an opener and its reply). */
const TALK_BURST = 2;

/** How long until the talk budget lets one more turn out (0: now; Infinity: a most of 0). The hour's
 * turns come back gradually, not all at once: at most TALK_BURST of them in any stretch of
 * TALK_BURST / maxTurnsPerHour of an hour (6 an hour: an exchange per 20 minutes), and at most
 * maxTurnsPerHour in the hour. */
export function talkWaitMs(budget: TalkBudget, nowMs: number): number {
  if (budget.maxTurnsPerHour <= 0) return Number.POSITIVE_INFINITY;
  const burst = Math.min(TALK_BURST, budget.maxTurnsPerHour);
  const spreadMs = (burst * HOUR_MS) / budget.maxTurnsPerHour;
  const recent = budget.starts.filter((t) => t > nowMs - spreadMs);
  const spread = recent.length < burst ? 0 : recent[recent.length - burst]! + spreadMs - nowMs;
  return Math.max(spread, untilBelow(budget.starts, budget.maxTurnsPerHour, nowMs));
}

const pairKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);

/** How long until `self` and `other` may talk (0: now): their last exchange is pairIntervalMs old,
 * or it still lacks its reply. */
export function pairWaitMs(budget: TalkBudget, self: string, other: string, nowMs: number): number {
  const last = budget.pairs?.get(pairKey(self, other));
  const next = (last?.atMs ?? 0) + (budget.pairIntervalMs ?? 0);
  if (!last || next <= nowMs || last.turns < TALK_BURST) return 0;
  return next - nowMs;
}

/** Whether `self` may take a turn of talk with `other` now: the budget and the pair allow it. The
 * scheduler asks this as another resident's words arrive and as the turn starts. */
export function mayTalk(budget: TalkBudget, self: string, other: string, nowMs: number): boolean {
  return talkWaitMs(budget, nowMs) === 0 && pairWaitMs(budget, self, other, nowMs) === 0;
}

/** The pairs that must wait before they talk again, and until when. */
export function talkingPairs(
  budget: TalkBudget,
  nowMs: number,
): { between: [string, string]; nextAtMs: number }[] {
  return [...(budget.pairs?.keys() ?? [])].flatMap((key) => {
    const [a, b] = key.split(" ") as [string, string];
    const wait = pairWaitMs(budget, a, b, nowMs);
    return wait > 0 ? [{ between: [a, b] as [string, string], nextAtMs: nowMs + wait }] : [];
  });
}

/** Counts a turn of talk of `self` with `others` started at `nowMs`: on the budget, and on each pair
 * (a pair past its interval starts a new exchange). */
export function chargeTalk(budget: TalkBudget, self: string, others: Iterable<string>, nowMs: number): void {
  pruneLedger(budget, nowMs);
  budget.starts.push(nowMs);
  budget.pairs ??= new Map();
  for (const other of new Set(others)) {
    const key = pairKey(self, other);
    const last = budget.pairs.get(key);
    // Within its interval, a pair's exchange that lacks its reply gets it; otherwise a new one starts.
    if (last && last.turns < TALK_BURST && nowMs - last.atMs < (budget.pairIntervalMs ?? 0)) last.turns += 1;
    else budget.pairs.set(key, { atMs: nowMs, turns: 1 });
  }
  const horizon = nowMs - Math.max(HOUR_MS, budget.pairIntervalMs ?? 0);
  for (const [key, last] of budget.pairs) if (last.atMs <= horizon) budget.pairs.delete(key);
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
