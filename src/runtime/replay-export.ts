// A stretch of the world's history as one file (issue #42): the keyframe it starts from (and those
// inside it), every logged tick of it, the agents' turns in it and a run record saying what it is.
// Opened on another gateway of the same world (same name and scene), it is re-simulated from its
// keyframe with every tick's digest and every keyframe's hash checked before anything is shown, so
// it shows exactly what the gateway that exported it showed. A file of another format or world, or
// one that does not replay to what it recorded, is refused with a typed reason.
import { gunzipSync, gzipSync } from "node:zlib";
import type { WorldDefinition } from "../world/types.ts";
import type { Keyframe, KeyframeCause, StoredAgentTurn, StoredKeyframe, Stretch } from "./history.ts";
import { type HistorySource, ReplayError, Replayer } from "./replay.ts";
import type { RunManifest, TickRow } from "./store.ts";

export const EXPORT_FORMAT = "openclawworld.replay-export.v1";
/** The longest stretch one file holds: six hours of ticks at 20 Hz. */
export const MAX_EXPORT_TICKS = 6 * 3600 * 20;
/** The agents' turns one file holds at most (the oldest of a longer stretch are left out, and counted). */
export const MAX_EXPORT_TURNS = 200_000;

/** What an export reads: a history (history.ts) or an opened export. */
export interface ExportSource extends HistorySource {
  agentTurns(segment: number, from: number, to: number, agentId?: string, limit?: number): StoredAgentTurn[];
}

export interface ExportRun {
  label: string;
  segment: number;
  from: number;
  to: number;
  /** The keyframe the file starts from (at or before `from`). */
  keyframeTick: number;
  ticks: number;
  agentTurns: number;
  /** The runs (run records) that overlap the stretch. */
  runs: RunManifest[];
  exportedAt: string;
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  world: string;
  sceneHash: string;
  tickRate: number;
  run: ExportRun;
  keyframes: (Keyframe & { body: string })[];
  /** gzip, base64: JSON [tick, time, body, checksum][] */
  ticks: string;
  /** gzip, base64: JSON StoredAgentTurn[] */
  turns: string;
}

/** Why a file was refused: `other_format` (not an export of this format), `other_world` (another
 * world or scene), `damaged` (damaged or cut), `diverged` (it does not replay to what it recorded).
 * Answered as HTTP 422 with that code (operator-routes.ts `refusal`). */
export class ExportRefused extends Error {
  readonly status = 422;
  readonly code: "other_format" | "other_world" | "damaged" | "diverged";
  constructor(code: ExportRefused["code"], message: string) {
    super(message);
    this.name = "ExportRefused";
    this.code = code;
  }
}

const packed = (value: unknown) => gzipSync(JSON.stringify(value)).toString("base64");
const unpacked = (text: string): unknown =>
  JSON.parse(gunzipSync(Buffer.from(text, "base64")).toString("utf8"));

/** One stretch of `source` as a file. */
export function exportStretch(
  definition: WorldDefinition,
  source: ExportSource,
  stretch: { segment: number; from: number; to: number },
  record: { label: string; runs: RunManifest[]; exportedAt: string },
): ExportDocument {
  const { segment, from, to } = stretch;
  const start = source.keyframeAtOrBefore(segment, from);
  if (!start)
    throw new ReplayError("not_recorded", `no keyframe at or before tick ${from} of timeline ${segment}`);
  if (to - start.tick > MAX_EXPORT_TICKS)
    throw new ReplayError(
      "not_recorded",
      `at most ${MAX_EXPORT_TICKS} ticks in one file (this is ${to - start.tick})`,
    );
  const inside = source.keyframes(segment).filter((k) => k.tick > start.tick && k.tick <= to);
  const keyframes = [start, ...inside.map((k) => source.keyframeAtOrBefore(segment, k.tick)!)];
  const rows = source.rows(segment, start.tick, to);
  const turns = source.agentTurns(segment, from, to, undefined, MAX_EXPORT_TURNS);
  return {
    format: EXPORT_FORMAT,
    world: definition.name,
    sceneHash: definition.sceneHash,
    tickRate: definition.tickRate,
    run: {
      label: record.label,
      segment,
      from,
      to,
      keyframeTick: start.tick,
      ticks: rows.length,
      agentTurns: turns.length,
      runs: record.runs.filter((r) => r.start.tick <= to && (r.end?.tick ?? to) >= from),
      exportedAt: record.exportedAt,
    },
    keyframes: keyframes.map(({ segment: s, tick, time, hash, cause, label, body }) => ({
      segment: s,
      tick,
      time,
      hash,
      cause,
      label,
      body: Buffer.from(body).toString("base64"),
    })),
    ticks: packed(rows.map((r) => [r.tick, r.time, r.body, r.checksum])),
    turns: packed(turns),
  };
}

/** An opened export: what a replay desk reads, within the stretch the file holds. */
export class ExportedStretch implements ExportSource {
  readonly run: ExportRun;
  readonly bytes: number;
  private readonly frames: StoredKeyframe[];
  private readonly ticks: (TickRow & { time: number })[];
  private readonly turns: StoredAgentTurn[];

  constructor(
    run: ExportRun,
    frames: StoredKeyframe[],
    ticks: (TickRow & { time: number })[],
    turns: StoredAgentTurn[],
    bytes: number,
  ) {
    this.run = run;
    this.frames = frames;
    this.ticks = ticks;
    this.turns = turns;
    this.bytes = bytes;
  }

  stretches(): Stretch[] {
    const first = this.frames[0]!;
    const last = this.ticks.at(-1);
    return [
      {
        segment: this.run.segment,
        firstTick: first.tick,
        lastTick: last?.tick ?? first.tick,
        firstTime: first.time,
        lastTime: last?.time ?? first.time,
        keyframes: this.keyframes(this.run.segment),
      },
    ];
  }

  keyframes(segment: number): Keyframe[] {
    return segment === this.run.segment ? this.frames.map(({ body: _body, ...k }) => k) : [];
  }

  keyframeAtOrBefore(segment: number, tick: number): StoredKeyframe | undefined {
    if (segment !== this.run.segment) return undefined;
    return this.frames.filter((k) => k.tick <= tick).at(-1);
  }

  rows(segment: number, after: number, upTo: number): (TickRow & { time: number })[] {
    if (segment !== this.run.segment) return [];
    return this.ticks.filter((r) => r.tick > after && r.tick <= upTo);
  }

  tickAtTime(segment: number, time: number): number | undefined {
    if (segment !== this.run.segment) return undefined;
    return this.ticks.filter((r) => r.time <= time).at(-1)?.tick;
  }

  agentTurns(
    segment: number,
    from: number,
    to: number,
    agentId?: string,
    limit = MAX_EXPORT_TURNS,
  ): StoredAgentTurn[] {
    if (segment !== this.run.segment) return [];
    return this.turns
      .filter((t) => t.tick >= from && t.tick <= to && (agentId === undefined || t.agentId === agentId))
      .slice(0, limit);
  }

  turnTakers(segment: number, from: number, to: number): { agentId: string; turns: number }[] {
    const counts = new Map<string, number>();
    for (const t of this.agentTurns(segment, from, to))
      counts.set(t.agentId, (counts.get(t.agentId) ?? 0) + 1);
    return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([agentId, turns]) => ({ agentId, turns }));
  }

  stats() {
    return {
      file: `export "${this.run.label}"`,
      bytes: this.bytes,
      ticks: this.ticks.length,
      keyframes: this.frames.length,
      segments: 1,
      agentTurns: { count: this.turns.length },
    };
  }
}

/** Opens an export for this world: checked (format, world and scene) and re-simulated from its first
 * keyframe through every tick, each digest and keyframe hash compared, before it is handed out. */
export function openExport(definition: WorldDefinition, document: unknown): ExportedStretch {
  const doc = (typeof document === "object" && document !== null ? document : {}) as Partial<ExportDocument>;
  if (doc.format !== EXPORT_FORMAT)
    throw new ExportRefused(
      "other_format",
      `not a replay export of format ${EXPORT_FORMAT} (its format: ${JSON.stringify(doc.format ?? null)})`,
    );
  if (doc.world !== definition.name || doc.sceneHash !== definition.sceneHash)
    throw new ExportRefused(
      "other_world",
      `the file is of world "${String(doc.world)}" (scene ${String(doc.sceneHash)}); this gateway runs "${definition.name}" (scene ${definition.sceneHash})`,
    );
  let stretch: ExportedStretch;
  try {
    const run = doc.run as ExportRun;
    const frames = (doc.keyframes ?? []).map((k) => ({
      segment: run.segment,
      tick: k.tick,
      time: k.time,
      hash: k.hash,
      cause: k.cause as KeyframeCause,
      label: k.label,
      body: new Uint8Array(Buffer.from(k.body, "base64")),
    }));
    const ticks = (unpacked(doc.ticks as string) as [number, number, string, string][]).map(
      ([tick, time, body, checksum]) => ({ tick, time, body, checksum }),
    );
    const turns = unpacked(doc.turns as string) as StoredAgentTurn[];
    if (frames.length === 0 || !Number.isSafeInteger(run.segment) || !Array.isArray(turns))
      throw new Error("it holds no keyframe");
    const bytes =
      (doc.ticks as string).length +
      (doc.turns as string).length +
      (doc.keyframes ?? []).reduce((n, k) => n + k.body.length, 0);
    stretch = new ExportedStretch(run, frames, ticks, turns, bytes);
  } catch (error) {
    throw new ExportRefused("damaged", `the file is damaged or cut: ${(error as Error).message}`);
  }
  const [whole] = stretch.stretches();
  try {
    new Replayer(definition, stretch).seek(whole!.segment, whole!.lastTick, {
      verify: true,
      fromFirstKeyframe: true,
    });
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    throw new ExportRefused("diverged", `the file does not replay to what it recorded: ${error.message}`);
  }
  return stretch;
}
