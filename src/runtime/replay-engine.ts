// The replay engine: a position in the world's history is the world re-simulated from the
// nearest keyframe at or before it through the logged inputs, never a picture stored for it. Each
// replayed tick is checked against the digest the live tick logged (results and event positions,
// persistence.ts `replayRow`), and each keyframe passed on the way against the state hash the live
// world had there: a replay that does not reproduce the record says so instead of showing something.
import { gunzipSync, gzipSync } from "node:zlib";
import type { Input, StepResult, WorldDefinition } from "../world/types.ts";
import { type CheckedSnapshot, World } from "../world/world.ts";
import type { Keyframe, StoredKeyframe } from "./history.ts";
import { checkStoredSnapshot, replayRow } from "./persistence.ts";
import type { TickRow } from "./store.ts";

/** What a replay reads: the live history (history.ts) or an exported stretch. */
export interface HistorySource {
  keyframes(segment: number): Keyframe[];
  keyframeAtOrBefore(segment: number, tick: number): StoredKeyframe | undefined;
  rows(segment: number, after: number, upTo: number): (TickRow & { time: number })[];
  /** The definition of another scene the world ran with before a live reload (history.ts). */
  definitionFor?(sceneHash: string): WorldDefinition | undefined;
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

/** Waypoints: while it re-simulates, a replayer that keeps them takes the world's snapshot every this
 * many ticks (in memory, as gzipped JSON: a busy room's snapshot is over a megabyte of JSON, a tenth
 * of that gzipped at the fastest level), so a later seek near one re-simulates at most this many ticks
 * instead of up to a keyframe interval (60 s = 1,200 ticks at 20 Hz). */
export const WAYPOINT_TICKS = 200;
/** Their memory bound: beyond it the oldest taken go first. */
export const MAX_WAYPOINT_BYTES = 64 * 1024 * 1024;

/** Start states kept parsed and checked (the last used first): jumping about near the same place
 * restores without reading or checking again. A busy room's is a few megabytes in memory. */
export const RECENT_STATES = 4;

interface Waypoint {
  tick: number;
  gzipped: Buffer;
}

/** Seeks in one history, keeping its last position: a seek forward close to it steps on from there
 * (playing is a seek to the next tick), anything else starts again from the nearest keyframe or
 * waypoint. A waypoint is a state the replay itself reached, every tick of the way checked against
 * the record, so starting from one shows exactly what starting from the keyframe would. */
export class Replayer {
  private readonly definition: WorldDefinition;
  private readonly source: HistorySource;
  private position: { segment: number; world: World } | undefined;
  /** Per timeline, by tick; insertion order is age (eviction). Only when `waypoints` was asked. */
  private readonly waypoints: Map<number, Map<number, Waypoint>> | undefined;
  private waypointBytes = 0;
  /** By `segment:tick`; insertion order is last use. */
  private readonly recent = new Map<string, CheckedSnapshot>();

  constructor(definition: WorldDefinition, source: HistorySource, options: { waypoints?: boolean } = {}) {
    this.definition = definition;
    this.source = source;
    if (options.waypoints) this.waypoints = new Map();
  }

  /** Waypoints held: how many and their bytes (the desk's figures). */
  waypointStats(): { count: number; bytes: number } {
    let count = 0;
    for (const m of this.waypoints?.values() ?? []) count += m.size;
    return { count, bytes: this.waypointBytes };
  }

  private nearestWaypoint(segment: number, tick: number, after: number): Waypoint | undefined {
    let best: Waypoint | undefined;
    for (const w of this.waypoints?.get(segment)?.values() ?? [])
      if (w.tick <= tick && w.tick > after && (!best || w.tick > best.tick)) best = w;
    return best;
  }

  private keepWaypoint(segment: number, world: World): void {
    if (!this.waypoints || world.tick % WAYPOINT_TICKS !== 0) return;
    let held = this.waypoints.get(segment);
    if (!held) {
      held = new Map();
      this.waypoints.set(segment, held);
    }
    if (held.has(world.tick)) return;
    const gzipped = gzipSync(JSON.stringify(world.checkedSnapshot()), { level: 1 });
    held.set(world.tick, { tick: world.tick, gzipped });
    this.waypointBytes += gzipped.byteLength;
    while (this.waypointBytes > MAX_WAYPOINT_BYTES) {
      const oldest = [...this.waypoints.values()].find((m) => m.size > 0);
      const first = oldest?.values().next().value;
      if (!oldest || !first) break;
      oldest.delete(first.tick);
      this.waypointBytes -= first.gzipped.byteLength;
    }
  }

  /** A world at the start a seek chose: a state restored lately (kept checked), else a waypoint (this
   * replayer's own snapshot, never read from outside: not checked again), else the keyframe, checked
   * as it is read. Checking a busy room's snapshot takes most of a restore (over 100 ms). */
  private startAt(segment: number, keyframe: StoredKeyframe, waypoint: Waypoint | undefined): World {
    const key = `${segment}:${waypoint?.tick ?? keyframe.tick}`;
    let snapshot = this.recent.get(key);
    if (snapshot) this.recent.delete(key);
    else
      snapshot = waypoint
        ? (JSON.parse(gunzipSync(waypoint.gzipped).toString("utf8")) as CheckedSnapshot)
        : checkKeyframe((scene) => this.definitionOf(scene), keyframe);
    this.recent.set(key, snapshot);
    for (const old of this.recent.keys()) {
      if (this.recent.size <= RECENT_STATES) break;
      this.recent.delete(old);
    }
    return World.restoreChecked(this.definitionOf(snapshot.sceneHash), snapshot);
  }

  /** The definition a state was taken under: the one in force, or one a live reload replaced (the
   * ticks after it carry the change as an input, so the replay crosses it). */
  private definitionOf(scene: string): WorldDefinition {
    if (scene === this.definition.sceneHash) return this.definition;
    return this.source.definitionFor?.(scene) ?? this.definition;
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
      /** Each tick stepped on the way, with its inputs and result (markers on a timeline). With it,
       * a seek forward from the last position steps on from there even past a nearer keyframe, so
       * every tick in between is told. */
      onTick?: (inputs: readonly Input[], result: StepResult) => void;
    } = {},
  ): SeekResult {
    const first = options.fromFirstKeyframe ? this.source.keyframes(segment)[0] : undefined;
    const keyframe = this.source.keyframeAtOrBefore(segment, first && first.tick <= tick ? first.tick : tick);
    if (!keyframe)
      throw new ReplayError("not_recorded", `tick ${tick} of timeline ${segment} is not in the history`);
    // Verifying compares keyframes on the way: it starts from one, never from a waypoint.
    const waypoint = first || options.verify ? undefined : this.nearestWaypoint(segment, tick, keyframe.tick);
    const here = this.position;
    const resume =
      !first &&
      here &&
      here.segment === segment &&
      here.world.tick <= tick &&
      (options.onTick !== undefined || here.world.tick >= (waypoint?.tick ?? keyframe.tick));
    const world = resume ? here.world : this.startAt(segment, keyframe, waypoint);
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
      this.keepWaypoint(segment, world);
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

/** A keyframe read from the history (a database or a file): its body is checked against its hash,
 * then the snapshot against the world's definition, before anything is restored from it. */
function checkKeyframe(
  definitionOf: (sceneHash: string) => WorldDefinition,
  keyframe: StoredKeyframe,
): CheckedSnapshot {
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
  return World.checkSnapshot(definitionOf(String(check.snapshot.sceneHash)), check.snapshot);
}
