// The operator's replay desk: which stretches the history holds, a room as it was at a
// tick (in the live client's wire shapes, so the replay page draws it with the same scene), and the
// markers of a stretch (chat, joins and leaves, portal trips, object changes, resident turns,
// refused inputs). Every position is re-simulated by the replay engine (src/runtime/replay-engine.ts).
// Reached by the operator route (gateway token) and by the replay page's operator link
// (replay-link.ts); never by agents or visitors.
import { randomBytes } from "node:crypto";
import { toWire, toWireObjects, toWireRoom } from "../http/humans/wire-entity.ts";
import type { Frame, Marker } from "../http/replay-routes.ts";
import type { HistoryStats, Stretch } from "../runtime/history.ts";
import { OperatorError } from "../runtime/operator.ts";
import { ReplayError, Replayer } from "../runtime/replay-engine.ts";
import {
  type ExportDocument,
  type ExportSource,
  exportStretch,
  openExport,
} from "../runtime/replay-export.ts";
import type { RunManifest, SnapshotManifest } from "../runtime/store.ts";
import { agentEntityId } from "../world/ids.ts";
import type { Input, StepResult, WorldDefinition } from "../world/types.ts";
import type { World } from "../world/world.ts";
import { eventInWords, type Namer, namerOf, turnInWords } from "./in-words.ts";

/** What the desk reads: a live history, or an exported stretch opened from a file. */
export interface ReplayLibrary extends ExportSource {
  stretches(): Stretch[];
  turnTakers(segment: number, from: number, to: number): { agentId: string; turns: number }[];
  tickAtTime(segment: number, time: number): number | undefined;
  stats(): HistoryStats | Record<string, unknown>;
}

/** Markers are collected by re-simulating the stretch: at most this many ticks per request (20 minutes
 * at 20 Hz; about a second of replay for a demo room). */
export const MAX_MARKER_TICKS = 24_000;

export class ReplayDesk {
  readonly definition: WorldDefinition;
  private readonly library: ReplayLibrary;
  private readonly replayer: Replayer;
  private readonly records: () => { runs: RunManifest[]; checkpoints: SnapshotManifest[] };
  /** Avatar looks by entity id (residents' configured, people's picked): drawn as the live page
   * draws them. Asked per frame: people come and pick looks while the page is open. */
  private readonly looks: () => ReadonlyMap<string, number>;

  constructor(
    definition: WorldDefinition,
    library: ReplayLibrary,
    records: () => { runs: RunManifest[]; checkpoints: SnapshotManifest[] } = () => ({
      runs: [],
      checkpoints: [],
    }),
    looks: () => ReadonlyMap<string, number> = () => new Map(),
  ) {
    this.definition = definition;
    this.looks = looks;
    this.library = library;
    // Waypoints: the page opens a stretch by re-simulating it for its markers; the states passed on
    // the way make every later seek in it short (replay.ts WAYPOINT_TICKS).
    this.replayer = new Replayer(definition, library, { waypoints: true });
    this.records = records;
  }

  /** The rooms, the timelines held (with keyframes), runs and checkpoints, and what is kept. */
  overview() {
    return {
      world: this.definition.name,
      tickRate: this.definition.tickRate,
      rooms: Object.entries(this.definition.rooms).map(([roomId, r]) => ({ roomId, name: r.name })),
      stretches: this.library.stretches(),
      ...this.records(),
      history: this.library.stats(),
      waypoints: this.replayer.waypointStats(),
    };
  }

  /** A stretch named by ticks, the last N minutes, a run or a checkpoint, as ticks of one timeline. */
  resolve(query: URLSearchParams): { segment: number; from: number; to: number } {
    const stretches = this.library.stretches();
    const latest = stretches[stretches.length - 1];
    if (!latest) throw new OperatorError(404, "not_found", "the replay history holds nothing yet");
    const segment = query.has("segment") ? intParam(query, "segment") : latest.segment;
    const stretch = stretches.find((s) => s.segment === segment);
    if (!stretch) throw new OperatorError(404, "not_found", `no timeline ${segment} in the replay history`);
    const clamp = (t: number) => Math.min(stretch.lastTick, Math.max(stretch.firstTick, t));
    const run = query.get("run");
    if (run !== null) {
      const manifest = this.records().runs.find((r) => String(r.id) === run);
      if (!manifest) throw new OperatorError(404, "not_found", `no run ${JSON.stringify(run)}`);
      return { segment, from: clamp(manifest.start.tick), to: clamp(manifest.end?.tick ?? stretch.lastTick) };
    }
    const checkpoint = query.get("checkpoint");
    if (checkpoint !== null) {
      const kf = stretch.keyframes.find((k) => k.cause === "checkpoint" && k.label === checkpoint);
      if (!kf)
        throw new OperatorError(404, "not_found", `no checkpoint "${checkpoint}" in timeline ${segment}`);
      return { segment, from: kf.tick, to: stretch.lastTick };
    }
    if (query.has("lastMinutes")) {
      const minutes = Number(query.get("lastMinutes"));
      if (!(minutes > 0))
        throw new OperatorError(400, "bad_request", "lastMinutes must be a positive number");
      const from = this.library.tickAtTime(segment, stretch.lastTime - minutes * 60_000) ?? stretch.firstTick;
      return { segment, from: clamp(from), to: stretch.lastTick };
    }
    const from = query.has("from") ? clamp(intParam(query, "from")) : stretch.firstTick;
    const to = query.has("to") ? clamp(intParam(query, "to")) : stretch.lastTick;
    if (to < from) throw new OperatorError(400, "bad_request", `to (${to}) is before from (${from})`);
    return { segment, from, to };
  }

  /** The room as it was at `tick`: re-simulated, in the live client's wire shapes. */
  frame(segment: number, tick: number, roomId: string): Frame {
    const world = this.seek(segment, tick);
    // The world as it was defined then: a live reload since may have moved walls or removed the room.
    const { definition } = world;
    const room = definition.rooms[roomId];
    if (!room)
      throw new OperatorError(
        404,
        "not_found",
        `no room "${roomId}" in world ${definition.name} at tick ${tick}`,
      );
    const looks = this.looks();
    return {
      segment,
      tick,
      time: world.serverTsMs,
      room: toWireRoom(definition, roomId),
      entities: world.actorsInRoom(roomId).map((view, i) => {
        const look = looks.get(view.id);
        return { ...toWire(view, i + 1), ...(look === undefined ? {} : { look }) };
      }),
      objects: toWireObjects(world, roomId),
    };
  }

  /** What happened in (from, to] of a timeline, tick by tick, in one room (or all). */
  markers(segment: number, from: number, to: number, roomId?: string): Marker[] {
    const markers: Marker[] = [];
    this.walk(segment, from, to, (inputs, result, namer) =>
      markers.push(...markersOf(inputs, result, roomId, namer)),
    );
    return markers;
  }

  /** The room `entityId` was in at `tick`, if it was in the world then. */
  roomOf(segment: number, tick: number, entityId: string): string | undefined {
    return this.seek(segment, tick).getEntity(entityId)?.roomId;
  }

  /** What `entityId` could perceive in (from, to] of a timeline, tick by tick: the events of the
   * room it was in (as it went from room to room) and those addressed to it, in words (the follow
   * page's "watch again"). */
  perceived(segment: number, from: number, to: number, entityId: string): Marker[] {
    const markers: Marker[] = [];
    let roomId: string | undefined;
    this.walk(
      segment,
      from,
      to,
      (_inputs, result, namer) => {
        for (const e of result.events) {
          const mine = e.payload.entityId === entityId;
          if (e.type === "presence.join" && mine) roomId = e.roomId;
          const heard = e.audience.kind === "room" ? e.roomId === roomId : e.audience.ids.includes(entityId);
          if (heard) markers.push(...markersOf([], { ...result, events: [e] }, undefined, namer));
          if (e.type === "presence.leave" && mine) roomId = undefined;
        }
      },
      (start) => {
        roomId = start.getEntity(entityId)?.roomId;
      },
    );
    return markers;
  }

  /** The agents with turns in a stretch, and one agent's turns there (what it was shown, what it did
   * with the answers, what woke it), oldest first, each in words. */
  turns(segment: number, from: number, to: number, agentId?: string) {
    const agents = this.library.turnTakers(segment, from, to);
    if (agentId === undefined) return { agents, turns: [] };
    const turns = this.library.agentTurns(segment, from, to, agentId);
    if (turns.length === 0) return { agents, turns };
    // Names from at most the last MAX_MARKER_TICKS (someone met only before: its id's name).
    const namer = this.walk(segment, Math.max(from, to - MAX_MARKER_TICKS), to);
    const name = namer.entity(agentEntityId(agentId));
    return { agents, turns: turns.map((t) => ({ ...t, words: turnInWords(t, name, namer.entity) })) };
  }

  /** Re-simulates (from, to] of a timeline tick by tick, naming who the stretch met: those present at
   * its start, then each who joins (a name stays known after its bearer left). */
  private walk(
    segment: number,
    from: number,
    to: number,
    onTick?: (inputs: readonly Input[], result: StepResult, namer: Namer) => void,
    onStart?: (start: World) => void,
  ): Namer {
    if (to - from > MAX_MARKER_TICKS)
      throw new OperatorError(400, "bad_request", `at most ${MAX_MARKER_TICKS} ticks of markers at a time`);
    const start = this.seek(segment, from);
    onStart?.(start);
    const names = new Map<string, string>();
    for (const id of Object.keys(start.definition.rooms))
      for (const actor of start.actorsInRoom(id)) names.set(actor.id, actor.name);
    const namer = namerOf(start.definition, (id) => names.get(id));
    this.seek(segment, to, (inputs, result) => {
      for (const e of result.events)
        if (e.type === "presence.join") names.set(String(e.payload.entityId), String(e.payload.name));
      onTick?.(inputs, result, namer);
    });
    return namer;
  }

  /** A stretch as one file (snapshot, inputs, the agents' turns, a run record): replay-export.ts. */
  exportOf(stretch: { segment: number; from: number; to: number }, label: string): ExportDocument {
    try {
      return exportStretch(this.definition, this.library, stretch, {
        label,
        runs: this.records().runs,
        exportedAt: new Date().toISOString(),
      });
    } catch (error) {
      if (!(error instanceof ReplayError)) throw error;
      throw new OperatorError(404, "not_found", error.message);
    }
  }

  private seek(
    segment: number,
    tick: number,
    onTick?: (inputs: readonly Input[], result: StepResult) => void,
  ): World {
    try {
      return this.replayer.seek(segment, tick, onTick ? { onTick } : {}).world;
    } catch (error) {
      if (!(error instanceof ReplayError)) throw error;
      throw new OperatorError(
        error.code === "not_recorded" ? 404 : 409,
        error.code === "not_recorded" ? "not_found" : "conflict",
        error.message,
      );
    }
  }
}

function intParam(query: URLSearchParams, name: string): number {
  const value = Number(query.get(name));
  if (!Number.isSafeInteger(value) || value < 0)
    throw new OperatorError(400, "bad_request", `${name} must be a whole number >= 0`);
  return value;
}

/** The markers of one replayed tick: its events, its residents' turns, its refused inputs; with a
 * `namer`, each also in words. */
export function markersOf(
  inputs: readonly Input[],
  result: StepResult,
  roomId?: string,
  namer?: Namer,
): Marker[] {
  const out: Marker[] = [];
  for (const e of result.events) {
    if (roomId !== undefined && e.roomId !== roomId) continue;
    const before = out.length;
    const p = e.payload;
    const at = { tick: result.tick, roomId: e.roomId };
    if (e.type === "chat.message")
      out.push({ ...at, kind: "chat", who: String(p.fromEntityId), text: String(p.message) });
    else if (e.type === "presence.join")
      out.push(
        e.fromRoomId === undefined
          ? { ...at, kind: "join", who: String(p.entityId), text: `${String(p.name)} joined` }
          : {
              ...at,
              kind: "portal",
              who: String(p.entityId),
              text: `${String(p.name)} came from ${e.fromRoomId}`,
            },
      );
    else if (e.type === "presence.leave")
      out.push(
        e.toRoomId === undefined
          ? { ...at, kind: "leave", who: String(p.entityId), text: `left (${String(p.reason)})` }
          : {
              ...at,
              kind: "portal",
              who: String(p.entityId),
              text: `went to ${e.toWorldId ? `${e.toWorldId}/` : ""}${e.toRoomId}`,
            },
      );
    else if (e.type === "object.state_changed")
      out.push({
        ...at,
        kind: "object",
        ...(e.actorId ? { who: e.actorId } : {}),
        text: `${String(p.objectId)} ${JSON.stringify(p.patch)}`,
      });
    const words = namer && out.length > before ? eventInWords(e, namer) : undefined;
    if (words) out[out.length - 1]!.words = words;
  }
  inputs.forEach((input, i) => {
    const answer = result.results[i];
    if (input.kind === "thinking")
      out.push({
        tick: result.tick,
        kind: "turn",
        roomId: roomId ?? "",
        who: input.entityId,
        text: input.thinking ? "turn started" : "turn ended",
        ...(namer
          ? { words: `${namer.entity(input.entityId)} ${input.thinking ? "began a turn" : "ended its turn"}` }
          : {}),
      });
    else if (answer && !answer.ok && !answer.replayed)
      out.push({
        tick: result.tick,
        kind: "error",
        roomId: roomId ?? "",
        who: input.entityId,
        text: `${input.kind}: ${answer.error.code}`,
        ...(namer
          ? { words: `${namer.entity(input.entityId)}'s ${input.kind} was refused: ${answer.error.code}` }
          : {}),
      });
  });
  return out;
}

/** One read of the desk by its route (the operator route and the replay page's API share it):
 * `/` the overview, `/stretch` a stretch resolved, `/frame` a room at a tick, `/markers` a stretch's,
 * `/turns` the agents with turns in a stretch and one's turns (`agent`). */
export function replayRead(desk: ReplayDesk, route: string, query: URLSearchParams): unknown {
  if (route === "/" || route === "") return desk.overview();
  const stretch = desk.resolve(query);
  if (route === "/stretch") return stretch;
  const roomId = query.get("room") ?? undefined;
  if (route === "/frame") {
    const tick = query.has("tick") ? intParam(query, "tick") : stretch.from;
    return desk.frame(stretch.segment, tick, roomId ?? Object.keys(desk.definition.rooms)[0]!);
  }
  if (route === "/markers")
    return { ...stretch, markers: desk.markers(stretch.segment, stretch.from, stretch.to, roomId) };
  if (route === "/export")
    return desk.exportOf(
      stretch,
      query.get("label") ?? `${desk.definition.name}-${stretch.from}-${stretch.to}`,
    );
  if (route === "/turns")
    return {
      ...stretch,
      ...desk.turns(stretch.segment, stretch.from, stretch.to, query.get("agent") ?? undefined),
    };
  throw new OperatorError(404, "not_found", `no replay read ${JSON.stringify(route)}`);
}

/** Files opened for replay (an upload on the page, `openclaw ocw replay open`): each a desk of its
 * own, named by an id the page and the operator routes pass as `file`. Few are kept: opening one
 * more lets the oldest go. */
export class OpenedExports {
  static readonly MAX = 4;
  private readonly desks = new Map<string, ReplayDesk>();

  /** `kept`: the definitions this world ran with before a live reload (the history's). */
  async open(
    definition: WorldDefinition,
    document: unknown,
    kept?: (scene: string) => WorldDefinition | undefined,
  ) {
    const stretch = await openExport(definition, document, undefined, kept);
    const file = `file_${randomBytes(6).toString("hex")}`;
    this.desks.set(
      file,
      new ReplayDesk(definition, stretch, () => ({ runs: stretch.run.runs, checkpoints: [] })),
    );
    while (this.desks.size > OpenedExports.MAX) this.desks.delete(this.desks.keys().next().value!);
    const [whole] = stretch.stretches();
    return { file, run: stretch.run, stretch: whole!, verified: whole!.keyframes.length };
  }

  desk(file: string): ReplayDesk {
    const desk = this.desks.get(file);
    if (!desk)
      throw new OperatorError(404, "not_found", `no opened file ${JSON.stringify(file)} (open it again)`);
    return desk;
  }
}
