// The tests' one way to wait: on a condition, with a deadline. Nothing in a test sleeps for a guessed
// time (scripts/lib/fixed-waits.ts counts any other timer used as a wait, and `npm test` allows none):
// a guess is too short on a busy machine and too long on an idle one.

export interface UntilOptions {
  /** Give up after this long (default 15 s), naming what was awaited and the last value seen. */
  timeoutMs?: number;
  /** How often to look again (default 20 ms). A probe that costs the server something (a rate-limited
   * read) says so by asking for a slower pace. A list is used in turn, round and round: looks at uneven
   * intervals cannot keep landing on the same phase of something periodic (an animation's frame). */
  everyMs?: number | readonly number[];
  /** A probe that throws counts as "not yet" (a server still starting, a socket not open yet). */
  ignoreErrors?: boolean;
}

type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/** Resolves with the first truthy value `probe` returns; rejects once the deadline has passed, naming
 * `what` was awaited (the probe's own source when no words are given) and the last value seen. */
export function until<T>(probe: Probe<T>, options?: UntilOptions | number): Promise<T>;
export function until<T>(what: string, probe: Probe<T>, options?: UntilOptions | number): Promise<T>;
export async function until<T>(
  first: string | Probe<T>,
  second?: Probe<T> | UntilOptions | number,
  third?: UntilOptions | number,
): Promise<T> {
  const [what, probe, options = {}] =
    typeof first === "string"
      ? [first, second as Probe<T>, third]
      : [first.toString().replace(/\s+/g, " "), first, second as UntilOptions | number | undefined];
  const {
    timeoutMs = 15_000,
    everyMs = 20,
    ignoreErrors = false,
  } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  const intervals = typeof everyMs === "number" ? [everyMs] : everyMs;
  let last: unknown;
  for (let look = 0; ; look++) {
    try {
      last = await probe();
      if (last) return last as T;
    } catch (error) {
      if (!ignoreErrors) throw error;
      last = error instanceof Error ? `threw: ${error.message}` : error;
    }
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${describe(last)})`);
    await pause(Math.min(intervals[look % intervals.length]!, Math.max(1, deadline - Date.now())));
  }
}

/** Checks `probe` again and again for `forMs` and fails the first time it is false: what must NOT
 * happen (a timer that must not fire, a message that must not arrive) is watched for the whole
 * window, not looked at once after a sleep. */
export async function holdsFor(
  what: string,
  probe: () => unknown,
  forMs: number,
  everyMs = 20,
): Promise<void> {
  const end = Date.now() + forMs;
  for (;;) {
    if (!(await probe())) throw new Error(`${what}: no longer true after ${forMs - (end - Date.now())} ms`);
    if (Date.now() >= end) return;
    await pause(Math.min(everyMs, Math.max(1, end - Date.now())));
  }
}

/** A pause that shapes load in a traffic generator (requests out of step with the ticks, a client's
 * think time): what the test is about, never a wait for something to happen. */
export function pace(ms: number): Promise<void> {
  return pause(ms);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
