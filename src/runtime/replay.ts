// The replay engine (issue #42): a position in the world's history is the world re-simulated from the
// nearest keyframe at or before it through the logged inputs, never a picture stored for it. Each
// replayed tick is checked against the digest the live tick logged (results and event positions,
// persistence.ts `replayRow`), and each keyframe passed on the way against the state hash the live
// world had there: a replay that does not reproduce the record says so instead of showing something.
import type { Input, StepResult, WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import type { Keyframe, StoredKeyframe } from "./history.ts";
import { checkStoredSnapshot, replayRow } from "./persistence.ts";
import type { TickRow } from "./store.ts";

/** What a replay reads: the live history (history.ts) or an exported stretch. */
export interface HistorySource {
  keyframes(segment: number): Keyframe[];
  keyframeAtOrBefore(segment: number, tick: number): StoredKeyframe | undefined;
  rows(segment: number, after: number, upTo: number): (TickRow & { time: number })[];
}

export class ReplayError extends Error {
  /** `not_recorded`: the history does not hold that tick (pruned, never kept, or a gap);
   * `diverged`: re-simulating did not reproduce what the world recorded (a defect, or a damaged record). */
  readonly code: "not_recorded" | "diverged";
  constructor(code: ReplayError["code"], message: string) {
    super(message);
    this.name = "ReplayError";
    this.code = code;
  }
}

export interface SeekResult {
  world: World;
  /** Where the re-simulation started: a keyframe's tick, or the previous position's. */
  from: number;
  stepped: number;
  /** Keyframes passed (and the target, when it is one) whose recorded state hash was compared. */
  verified: { tick: number; hash: string }[];
}

/** Seeks in one history, keeping its last position: a seek forward close to it steps on from there
 * (playing is a seek to the next tick), anything else starts again from the nearest keyframe. */
export class Replayer {
  private readonly definition: WorldDefinition;
  private readonly source: HistorySource;
  private position: { segment: number; world: World } | undefined;

  constructor(definition: WorldDefinition, source: HistorySource) {
    this.definition = definition;
    this.source = source;
  }

  /** The world as it was at `tick` of timeline `segment`. `verify`: compare the state hash at every
   * keyframe passed (and at the target when it is one) with the one recorded; `fromFirstKeyframe`:
   * re-simulate from the timeline's first keyframe (to check the whole record up to `tick`). */
  seek(
    segment: number,
    tick: number,
    options: {
      verify?: boolean;
      fromFirstKeyframe?: boolean;
      /** Each tick stepped on the way, with its inputs and result (markers on a timeline). */
      onTick?: (inputs: readonly Input[], result: StepResult) => void;
    } = {},
  ): SeekResult {
    const first = options.fromFirstKeyframe ? this.source.keyframes(segment)[0] : undefined;
    const keyframe = this.source.keyframeAtOrBefore(segment, first && first.tick <= tick ? first.tick : tick);
    if (!keyframe)
      throw new ReplayError("not_recorded", `tick ${tick} of timeline ${segment} is not in the history`);
    const here = this.position;
    const resume =
      !first &&
      here &&
      here.segment === segment &&
      here.world.tick <= tick &&
      here.world.tick >= keyframe.tick;
    const world = resume ? here.world : restoreKeyframe(this.definition, keyframe);
    const from = world.tick;
    const verified: SeekResult["verified"] = [];
    const checkpoints = options.verify
      ? new Map(
          this.source
            .keyframes(segment)
            .filter((k) => k.tick > from && k.tick <= tick)
            .map((k) => [k.tick, k.hash]),
        )
      : new Map<number, string>();
    if (options.verify && !resume && keyframe.tick === tick) verified.push({ tick, hash: keyframe.hash });
    const rows = tick > from ? this.source.rows(segment, from, tick) : [];
    for (const row of rows) {
      const gap = row.tick !== world.tick + 1;
      const problem = replayRow(world, row, options.onTick);
      if (problem) {
        this.position = undefined;
        const code = gap ? "not_recorded" : "diverged";
        throw new ReplayError(code, `replaying tick ${row.tick} of timeline ${segment}: ${problem}`);
      }
      const expected = checkpoints.get(row.tick);
      if (expected !== undefined) {
        const actual = world.snapshotHash();
        if (actual !== expected) {
          this.position = undefined;
          throw new ReplayError(
            "diverged",
            `the replayed state at tick ${row.tick} has hash ${actual}; the world recorded ${expected}`,
          );
        }
        verified.push({ tick: row.tick, hash: actual });
      }
    }
    if (world.tick !== tick) {
      this.position = { segment, world };
      throw new ReplayError(
        "not_recorded",
        `the history of timeline ${segment} has no tick ${world.tick + 1} (it reaches tick ${world.tick})`,
      );
    }
    this.position = { segment, world };
    return { world, from, stepped: rows.length, verified };
  }
}

function restoreKeyframe(definition: WorldDefinition, keyframe: StoredKeyframe): World {
  const check = checkStoredSnapshot({
    id: 0,
    kind: "auto",
    label: null,
    tick: keyframe.tick,
    time: keyframe.time,
    format: "",
    hash: keyframe.hash,
    savedAt: "",
    body: keyframe.body,
  });
  if (!check.ok)
    throw new ReplayError(
      "diverged",
      `the keyframe at tick ${keyframe.tick} does not check out: ${check.reason}`,
    );
  return World.restore(definition, check.snapshot);
}
