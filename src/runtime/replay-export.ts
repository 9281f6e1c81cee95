// A stretch of the world's history as one file: the keyframe it starts from (and those
// inside it), every logged tick of it, the agents' turns in it and a run record saying what it is.
// Opened on another gateway of the same world (same name, and a scene it runs or ran), it is
// re-simulated from its keyframe with every tick's digest and every keyframe's hash checked before
// anything is shown, so it shows exactly what the gateway that exported it showed. A stretch that
// crosses a live reload carries the definitions its keyframes were taken under (the ticks carry the
// new one in their redefine input). A file of another format or world, or one that does not replay
// to what it recorded, is refused with a typed reason.
import { setImmediate as nextTurn } from "node:timers/promises";
import { promisify } from "node:util";
import { gunzip, gunzipSync, gzipSync } from "node:zlib";
import { definitionFromWire, definitionToWire, type WorldDefinitionWire } from "../world/definition-wire.ts";
import type { WorldDefinition } from "../world/types.ts";
import type { Keyframe, KeyframeCause, StoredAgentTurn, StoredKeyframe, Stretch } from "./history.ts";
import { type HistorySource, ReplayError, Replayer } from "./replay-engine.ts";
import type { RunManifest, TickRow } from "./store.ts";

export const EXPORT_FORMAT = "openclawworld.replay-export.v1";
/** The longest stretch one file holds: six hours of ticks at 20 Hz. */
export const MAX_EXPORT_TICKS = 6 * 3600 * 20;
/** The agents' turns one file holds at most (the oldest of a longer stretch are left out, and counted). */
export const MAX_EXPORT_TURNS = 200_000;
/** What one packed part of a file (its ticks, its turns, one keyframe) unpacks to at most: an export
 * never writes a larger part, and an opener stops unpacking there, so a small file cannot unpack to
 * gigabytes (a gzip bomb). */
export const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;
/** How deep arrays and objects nest in a part: a tick row is 2 deep, a turn or a snapshot a few
 * levels more. Checked before parsing, so a file of a million brackets never reaches a recursive
 * walk (hashing, checking) that would overflow the stack. */
export const MAX_JSON_DEPTH = 256;

/** The bounds an opener applies (smaller in tests). */
export interface ExportLimits {
  unpackedBytes: number;
  depth: number;
}
const FORMAT_LIMITS: ExportLimits = { unpackedBytes: MAX_UNPACKED_BYTES, depth: MAX_JSON_DEPTH };

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
  /** The definitions of the scenes its keyframes were taken under other than `sceneHash`: those a
   * live reload replaced (absent in files of a stretch without one). */
  definitions?: WorldDefinitionWire[];
  /** gzip, base64: JSON [tick, time, body, checksum][] */
  ticks: string;
  /** gzip, base64: JSON StoredAgentTurn[] */
  turns: string;
}

/** Why a file was refused: `other_format` (not an export of this format), `other_world` (another
 * world or scene), `damaged` (damaged or cut), `too_deep` (nested deeper than the format allows),
 * `diverged` (it does not replay to what it recorded): HTTP 422; `too_large` (a part unpacks to more
 * than the format allows): HTTP 413. Answered with that code (operator-routes.ts `refusal`). */
export class ExportRefused extends Error {
  readonly status: 413 | 422;
  readonly code: "other_format" | "other_world" | "damaged" | "too_deep" | "too_large" | "diverged";
  constructor(code: ExportRefused["code"], message: string) {
    super(message);
    this.name = "ExportRefused";
    this.code = code;
    this.status = code === "too_large" ? 413 : 422;
  }
}

function packed(value: unknown, part: string): string {
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > MAX_UNPACKED_BYTES)
    throw new ReplayError(
      "not_recorded",
      `the stretch's ${part} exceed the ${MAX_UNPACKED_BYTES} bytes one file holds: export a shorter stretch`,
    );
  return gzipSync(text).toString("base64");
}

const gunzipAsync = promisify(gunzip);
/** Unpacked in steps this large: each step is a round trip between the thread pool and the main
 * thread, and zlib's 16 KiB default made a capped 256 MiB take seconds on a busy machine. */
const GUNZIP_CHUNK_BYTES = 1024 * 1024;

/** A gzipped part, unpacked off the main thread and no further than the limit. */
async function gunzipWithin(gzipped: Uint8Array, part: string, limits: ExportLimits): Promise<Buffer> {
  try {
    return await gunzipAsync(gzipped, {
      maxOutputLength: limits.unpackedBytes,
      chunkSize: GUNZIP_CHUNK_BYTES,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE")
      throw new ExportRefused(
        "too_large",
        `the file's ${part} unpack to more than the ${limits.unpackedBytes} bytes the format allows`,
      );
    throw new ExportRefused("damaged", `the file's ${part} are not gzip: ${(error as Error).message}`);
  }
}

/** Bytes scanned between two yields to the event loop. */
const SCAN_SLICE_BYTES = 4 * 1024 * 1024;

/** Refuses JSON nested deeper than the limit, scanning the bytes without recursion (and yielding to
 * the event loop now and then) before anything parses or walks it. */
async function checkDepth(json: Buffer, part: string, limits: ExportLimits): Promise<void> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let at = 0; at < json.length; at++) {
    if (at % SCAN_SLICE_BYTES === SCAN_SLICE_BYTES - 1) await nextTurn();
    const byte = json[at]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limits.depth)
        throw new ExportRefused(
          "too_deep",
          `the file's ${part} nest deeper than the ${limits.depth} levels the format allows`,
        );
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
}

/** A packed part as JSON: unpacked within the limit, its depth checked, then parsed. */
async function unpacked(gzipped: Uint8Array, part: string, limits: ExportLimits): Promise<unknown> {
  const json = await gunzipWithin(gzipped, part, limits);
  await checkDepth(json, part, limits);
  try {
    return JSON.parse(json.toString("utf8"));
  } catch (error) {
    throw new ExportRefused("damaged", `the file's ${part} are not JSON: ${(error as Error).message}`);
  }
}

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
  const definitions = replacedDefinitions(definition, source, keyframes);
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
    ...(definitions.length > 0 ? { definitions } : {}),
    ticks: packed(
      rows.map((r) => [r.tick, r.time, r.body, r.checksum]),
      "ticks",
    ),
    turns: packed(turns, "agents' turns"),
  };
}

/** The definitions of the keyframes' scenes other than the one in force, from the source's kept ones. */
function replacedDefinitions(
  definition: WorldDefinition,
  source: ExportSource,
  keyframes: StoredKeyframe[],
): WorldDefinitionWire[] {
  const scenes = new Set<string>();
  for (const k of keyframes) {
    const scene = String(
      (JSON.parse(gunzipSync(k.body).toString("utf8")) as { sceneHash?: unknown }).sceneHash,
    );
    if (scene !== definition.sceneHash) scenes.add(scene);
  }
  return [...scenes].map((scene) => {
    const kept = source.definitionFor?.(scene);
    if (!kept)
      throw new ReplayError(
        "not_recorded",
        `the definition of scene ${scene.slice(0, 12)} (before a live reload) is no longer kept: export a stretch after it`,
      );
    return definitionToWire(kept);
  });
}

/** An opened export: what a replay desk reads, within the stretch the file holds. */
export class ExportedStretch implements ExportSource {
  readonly run: ExportRun;
  readonly bytes: number;
  private readonly frames: StoredKeyframe[];
  private readonly ticks: (TickRow & { time: number })[];
  private readonly turns: StoredAgentTurn[];
  private readonly definitions: (scene: string) => WorldDefinition | undefined;

  constructor(
    run: ExportRun,
    frames: StoredKeyframe[],
    ticks: (TickRow & { time: number })[],
    turns: StoredAgentTurn[],
    bytes: number,
    definitions: (scene: string) => WorldDefinition | undefined = () => undefined,
  ) {
    this.run = run;
    this.frames = frames;
    this.ticks = ticks;
    this.turns = turns;
    this.bytes = bytes;
    this.definitions = definitions;
  }

  definitionFor(sceneHash: string): WorldDefinition | undefined {
    return this.definitions(sceneHash);
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

/** Opens an export for this world: checked (format, world, and a scene this gateway runs or ran:
 * `kept` gives the definitions a live reload replaced), every packed part unpacked within the
 * format's limits, and re-simulated from its first keyframe through every tick, each digest and
 * keyframe hash compared, before it is handed out. */
export async function openExport(
  definition: WorldDefinition,
  document: unknown,
  limits: ExportLimits = FORMAT_LIMITS,
  kept: (scene: string) => WorldDefinition | undefined = () => undefined,
): Promise<ExportedStretch> {
  const doc = (typeof document === "object" && document !== null ? document : {}) as Partial<ExportDocument>;
  if (doc.format !== EXPORT_FORMAT)
    throw new ExportRefused(
      "other_format",
      `not a replay export of format ${EXPORT_FORMAT} (its format: ${JSON.stringify(doc.format ?? null)})`,
    );
  if (
    doc.world !== definition.name ||
    (doc.sceneHash !== definition.sceneHash && !kept(String(doc.sceneHash)))
  )
    throw new ExportRefused(
      "other_world",
      `the file is of world "${String(doc.world)}" (scene ${String(doc.sceneHash)}); this gateway runs "${definition.name}" (scene ${definition.sceneHash})`,
    );
  const stretch = await readStretch(doc, limits, kept);
  const [whole] = stretch.stretches();
  try {
    new Replayer(definition, stretch).seek(whole!.segment, whole!.lastTick, {
      verify: true,
      fromFirstKeyframe: true,
    });
  } catch (error) {
    if (error instanceof ReplayError)
      throw new ExportRefused("diverged", `the file does not replay to what it recorded: ${error.message}`);
    // Whatever else a foreign file makes the re-simulation throw is the file's fault, not the gateway's.
    throw new ExportRefused("damaged", `the file could not be re-simulated: ${(error as Error).message}`);
  }
  return stretch;
}

const textOf = (value: unknown, field: string): string => {
  if (typeof value !== "string")
    throw new ExportRefused("damaged", `the file is damaged or cut: no ${field}`);
  return value;
};

/** The document's parts, unpacked and checked, as a stretch (not yet re-simulated). */
async function readStretch(
  doc: Partial<ExportDocument>,
  limits: ExportLimits,
  kept: (scene: string) => WorldDefinition | undefined,
): Promise<ExportedStretch> {
  const packedTicks = textOf(doc.ticks, "ticks");
  const packedTurns = textOf(doc.turns, "turns");
  const rawTicks = await unpacked(Buffer.from(packedTicks, "base64"), "ticks", limits);
  const turns = await unpacked(Buffer.from(packedTurns, "base64"), "agents' turns", limits);
  try {
    const run = doc.run as ExportRun;
    const frames: StoredKeyframe[] = [];
    for (const k of doc.keyframes ?? []) {
      const body = new Uint8Array(Buffer.from(k.body, "base64"));
      // The replayer unpacks a keyframe on the main thread: only once it is known to fit.
      await checkDepth(await gunzipWithin(body, `keyframe at tick ${k.tick}`, limits), "keyframes", limits);
      frames.push({
        segment: run.segment,
        tick: k.tick,
        time: k.time,
        hash: k.hash,
        cause: k.cause as KeyframeCause,
        label: k.label,
        body,
      });
    }
    const ticks = (rawTicks as [number, number, string, string][]).map(([tick, time, body, checksum]) => ({
      tick,
      time,
      body,
      checksum,
    }));
    if (frames.length === 0 || !Number.isSafeInteger(run.segment) || !Array.isArray(turns))
      throw new Error("it holds no keyframe");
    const carried = new Map<string, WorldDefinition>();
    for (const wire of doc.definitions ?? []) {
      const replaced = definitionFromWire(wire);
      if (typeof replaced === "string") throw new Error(`a definition it carries: ${replaced}`);
      carried.set(replaced.sceneHash, replaced);
    }
    const bytes =
      packedTicks.length + packedTurns.length + (doc.keyframes ?? []).reduce((n, k) => n + k.body.length, 0);
    // A definition this gateway kept is preferred to the file's copy of it.
    return new ExportedStretch(
      run,
      frames,
      ticks,
      turns as StoredAgentTurn[],
      bytes,
      (scene) => kept(scene) ?? carried.get(scene),
    );
  } catch (error) {
    if (error instanceof ExportRefused) throw error;
    throw new ExportRefused("damaged", `the file is damaged or cut: ${(error as Error).message}`);
  }
}
