// The one way into an action, for every door. A txId the world already answered is answered from its
// store at once (the world's own replay rule, asked first, before the rate limit); anything else
// takes its rate class's token and is queued for the next tick and answered after it, or `timeout`.
import { InputQueueFullError, RuntimeUnavailableError, type WorldRuntime } from "../runtime/world-runtime.ts";
import type { InputResult, WorldApi } from "../world/types.ts";
import {
  ACTION_RATE_CLASS,
  type ActActionT,
  type ActData,
  type ActionExtras,
  type Actor,
  buildInput,
  mapResult,
} from "./actions.ts";
import type { RateGate } from "./admission.ts";
import { type AicResult, aicError } from "./errors.ts";
import { type Timers, wallTimers } from "./timers.ts";

export interface AicClock extends Timers {
  /** Monotonic milliseconds. */
  nowMs(): number;
}

export const realClock: AicClock = { nowMs: () => performance.now(), ...wallTimers };

export class ActionPath {
  private readonly runtime: WorldRuntime;
  private readonly rates: RateGate;
  private readonly clock: AicClock;
  private readonly timeoutMs: number;

  constructor(runtime: WorldRuntime, rates: RateGate, clock: AicClock, timeoutMs: number) {
    this.runtime = runtime;
    this.rates = rates;
    this.clock = clock;
    this.timeoutMs = timeoutMs;
  }

  async perform(actor: Actor, action: ActActionT, extras: ActionExtras): Promise<AicResult<ActData>> {
    // A txId the world already answered is answered from its record before the rate limit: it
    // changes nothing, and the retries that follow a crash (a page resending what was in flight, an
    // agent retrying) come all at once, when a limit would refuse the very answers they need.
    const replayed = extras.tx ? this.runtime.world.replayTx(extras.tx) : undefined;
    if (replayed) return mapResult(action, replayed, extras, undefined);
    const limited = this.rates.take(actor.rateKey, ACTION_RATE_CLASS[action.kind]);
    if (limited) return limited;
    const answer = await this.execute(actor, action, extras);
    // An answer that came with its tick was saved with it (the tick commit writes the buckets that
    // changed); one that did not (refused before its tick) must not leave before its grant is.
    return (await this.rates.settled()) ?? answer;
  }

  private async execute(actor: Actor, action: ActActionT, extras: ActionExtras): Promise<AicResult<ActData>> {
    const world = this.runtime.world;
    const input = buildInput(actor, action, extras);
    // No tick runs between submit() and the tick that applies the input, so this is the room's
    // position just before the join: the joiner's cursor.
    const seqBefore = action.kind === "join" ? latestSeqByRoom(world) : undefined;
    const roomBefore =
      action.kind === "leave" ? (world.getEntity(actor.entityId)?.roomId ?? extras.roomId) : undefined;
    let result: InputResult | "timeout";
    try {
      result = await this.awaitTick(this.runtime.submit(input), extras.signal);
    } catch (error) {
      if (error instanceof RuntimeUnavailableError) return aicError(error.code, error.message);
      // The same answer as a rate limit, so every door already tells its caller when to retry
      // (HTTP Retry-After, the tools' "try again in", the browser's retryable error).
      if (error instanceof InputQueueFullError)
        return aicError("rate_limited", error.message, {
          retryAfterMs: error.retryAfterMs,
          reason: "input_queue_full",
        });
      throw error;
    }
    if (result === "timeout") {
      return aicError(
        "timeout",
        "the action was queued but not applied in time; retry with the same txId to learn its result",
      );
    }
    extras.onApplied?.({ tick: result.tick, time: result.serverTsMs });
    return mapResult(action, result, extras, { seqBefore, roomBefore });
  }

  private awaitTick(pending: Promise<InputResult>, signal?: AbortSignal): Promise<InputResult | "timeout"> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = () => {
        settled = true;
        this.clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        if (settled) return;
        done();
        resolve("timeout");
      };
      const timer = this.clock.setTimeout(onAbort, this.timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
      pending.then(
        (value) => {
          if (settled) return;
          done();
          resolve(value);
        },
        (error) => {
          if (settled) return;
          done();
          reject(error);
        },
      );
    });
  }
}

function latestSeqByRoom(world: WorldApi): Map<string, number> {
  const seqs = new Map<string, number>();
  for (const roomId of Object.keys(world.definition.rooms)) seqs.set(roomId, world.latestSeq(roomId));
  return seqs;
}
