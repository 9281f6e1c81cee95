// The operator's save/load (seed 001): snapshots with top-level `format`, `time` (sim time) and the
// scene hash; named checkpoints with a manifest (label, tick, sim time, hash); restoring one. Only
// the gateway-authenticated admin route reaches these. Transport-free: failures are OperatorError
// values carrying the HTTP status the adapter answers with.

import { ENTITY_ID_PATTERN, OPERATOR_ENTITY_ID } from "../world/ids.ts";
import { type Note, notesOf } from "../world/objects/notice-board.ts";
import type { WorldSnapshot } from "../world/types.ts";
import { World } from "../world/world.ts";
import { SnapshotMismatchError } from "../world/world-errors.ts";
import { type OpenedWorld, storeAutoSnapshot } from "./open-world.ts";
import { checkStoredSnapshot, parseForeignSnapshot, snapshotEntry } from "./persistence.ts";
import type { RunManifest, SnapshotManifest } from "./store.ts";

export class OperatorError extends Error {
  readonly status: 400 | 404 | 409;
  readonly code: "bad_request" | "not_found" | "conflict";
  constructor(status: OperatorError["status"], code: OperatorError["code"], message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const LABEL = /^[A-Za-z0-9._-]{1,64}$/;

/** What a saved snapshot is, in the manifest's terms. */
export interface SavedSnapshot {
  format: string;
  world: string;
  sceneHash: string;
  tick: number;
  time: number;
  hash: string;
}

function describeSnapshot(snapshot: WorldSnapshot, hash: string): SavedSnapshot {
  return {
    format: snapshot.format,
    world: snapshot.world,
    sceneHash: snapshot.sceneHash,
    tick: snapshot.tick,
    time: snapshot.time,
    hash,
  };
}

/** What the operator (never an agent) is told about durability: the store and the last recovery. */
export function durabilityStatus(host: OpenedWorld) {
  if (!host.store) return { off: true as const };
  return {
    file: host.store.file,
    log: host.store.logStats(),
    checkpoints: host.store.checkpoints().length,
    quarantined: host.store.quarantined(),
    problems: host.problems,
    recovery: host.recovery,
    /** What replay can show (history.ts): its bytes, ticks, keyframes, oldest and newest tick, retention. */
    history: host.history?.stats(),
  };
}

export function currentSnapshot(host: OpenedWorld): WorldSnapshot {
  return host.runtime.world.snapshot();
}

/** Saves the live world as the newest auto snapshot (compacting the log) and says what was saved. */
export function saveNow(host: OpenedWorld): SavedSnapshot {
  const store = requireStore(host);
  const snapshot = host.runtime.world.snapshot();
  const entry = snapshotEntry(snapshot);
  storeAutoSnapshot({ ...host, store }, entry);
  return describeSnapshot(snapshot, entry.hash);
}

export function listCheckpoints(host: OpenedWorld): SnapshotManifest[] {
  return requireStore(host).checkpoints();
}

export function createCheckpoint(host: OpenedWorld, label: unknown): SnapshotManifest {
  const store = requireStore(host);
  if (typeof label !== "string" || !LABEL.test(label))
    throw new OperatorError(400, "bad_request", "label must match ^[A-Za-z0-9._-]{1,64}$");
  const entry = snapshotEntry(host.runtime.world.snapshot());
  store.saveCheckpoint(label, entry);
  host.history?.keyframe(entry, "checkpoint", label);
  const saved = store.checkpoints().find((c) => c.label === label)!;
  store.addRunCheckpoint({ label, tick: saved.tick, time: saved.time, hash: saved.hash });
  return saved;
}

// ---- runs (seed 001 record_run) ----------------------------------------------------------------

function worldAt(host: OpenedWorld) {
  const world = host.runtime.world;
  return { tick: world.tick, time: world.serverTsMs };
}

function labelOf(label: unknown): string {
  if (typeof label !== "string" || !LABEL.test(label))
    throw new OperatorError(400, "bad_request", "label must match ^[A-Za-z0-9._-]{1,64}$");
  return label;
}

function requireRun(host: OpenedWorld, id: string): RunManifest {
  const run = /^[1-9]\d{0,15}$/.test(id) ? requireStore(host).run(Number(id)) : undefined;
  if (!run) throw new OperatorError(404, "not_found", `no run ${JSON.stringify(id)}`);
  return run;
}

/** Starts a bounded run at the current tick; one at a time (close the open one first). */
export function startRun(host: OpenedWorld, label: unknown): RunManifest {
  const store = requireStore(host);
  const name = labelOf(label);
  const open = store.openRun();
  if (open)
    throw new OperatorError(
      409,
      "conflict",
      `run ${open.id} ("${open.label}") is still open: close it first`,
    );
  return store.startRun(name, host.definition.sceneHash, worldAt(host));
}

export function labelRun(host: OpenedWorld, id: string, label: unknown): RunManifest {
  const run = requireRun(host, id);
  requireStore(host).labelRun(run.id, labelOf(label));
  return requireStore(host).run(run.id)!;
}

/** Closes a run at the current tick: its manifest is then complete. */
export function closeRun(host: OpenedWorld, id: string): RunManifest {
  const run = requireRun(host, id);
  if (run.state === "closed") throw new OperatorError(409, "conflict", `run ${run.id} is already closed`);
  requireStore(host).closeRun(run.id, worldAt(host));
  return requireStore(host).run(run.id)!;
}

export function listRuns(host: OpenedWorld): RunManifest[] {
  return requireStore(host).runs();
}

export function getRun(host: OpenedWorld, id: string): RunManifest {
  return requireRun(host, id);
}

export function restoreCheckpoint(host: OpenedWorld, label: string): SavedSnapshot {
  const stored = requireStore(host).checkpoint(label);
  if (!stored) throw new OperatorError(404, "not_found", `no checkpoint labelled "${label}"`);
  const check = checkStoredSnapshot(stored);
  if (!check.ok)
    throw new OperatorError(409, "conflict", `checkpoint "${label}" is damaged: ${check.reason}`);
  return adopt(host, check.snapshot);
}

/** A snapshot saved from an operator answer (`{"status":"ok","data":{format,...}}`, what GET
 * /snapshot answered before it gave the document itself) is the document inside it. */
function unwrapAnswer(value: unknown): unknown {
  const answer = value as { status?: unknown; data?: { format?: unknown } } | null;
  return answer &&
    typeof answer === "object" &&
    answer.status === "ok" &&
    typeof answer.data?.format === "string"
    ? answer.data
    : value;
}

/** Restores a snapshot handed in by the operator; another world's or format's is refused. */
export function loadSnapshot(host: OpenedWorld, value: unknown): SavedSnapshot {
  const parsed = parseForeignSnapshot(host.definition, unwrapAnswer(value));
  if (!parsed.ok) throw new OperatorError(409, "conflict", parsed.reason);
  return adopt(host, parsed.snapshot);
}

/** Makes `snapshot` the live world between two ticks and starts the store's timeline there. */
function adopt(host: OpenedWorld, snapshot: WorldSnapshot): SavedSnapshot {
  let world: World;
  try {
    world = World.restore(host.definition, snapshot);
  } catch (error) {
    if (error instanceof SnapshotMismatchError) throw new OperatorError(409, "conflict", error.message);
    throw error;
  }
  const entry = snapshotEntry(world.snapshot());
  storeAutoSnapshot(host, entry, "new-timeline");
  host.runtime.replaceWorld(world);
  host.origin = "restored";
  return describeSnapshot(world.snapshot(), entry.hash);
}

/** A notice board as the operator reviews it. */
export interface BoardNotes {
  objectId: string;
  roomId: string;
  title: string;
  notes: Note[];
}

/** Every notice board's notes, oldest first, by room and board. */
export function listNotes(host: OpenedWorld): BoardNotes[] {
  const world = host.runtime.world;
  return Object.values(world.definition.rooms).flatMap((room) =>
    room.objects
      .filter((o) => o.objectType === "notice_board")
      .map((o) => {
        const state = world.objectView(o.id)?.state ?? {};
        return {
          objectId: o.id,
          roomId: room.roomId,
          title: String(state.title ?? o.name),
          notes: notesOf(state as Parameters<typeof notesOf>[0]),
        };
      }),
  );
}

/** Takes a note down. A moderation input like any other: journaled, applied by the next tick, in
 * every snapshot after; so a removal survives a restart and replays the same. */
export async function removeNote(
  host: OpenedWorld,
  body: unknown,
): Promise<{ objectId: string; noteId: string; removed: true }> {
  const { objectId, noteId } = (typeof body === "object" && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  if (typeof objectId !== "string" || !ENTITY_ID_PATTERN.test(objectId) || typeof noteId !== "string")
    throw new OperatorError(400, "bad_request", 'expected {"objectId": "obj_...", "noteId": "n..."}');
  const result = await host.runtime.submit({
    kind: "moderate",
    entityId: OPERATOR_ENTITY_ID,
    targetId: objectId,
    action: "remove",
    params: { noteId },
  });
  if (!result.ok) {
    const status = result.error.code === "not_found" ? 404 : 400;
    throw new OperatorError(status, status === 404 ? "not_found" : "bad_request", result.error.message);
  }
  const outcome = result.value.kind === "moderate" ? result.value.outcome : undefined;
  if (outcome?.type === "no_effect")
    throw new OperatorError(404, "not_found", outcome.message ?? "no such note");
  if (outcome?.type !== "ok")
    throw new OperatorError(400, "bad_request", outcome?.message ?? "not a notice board");
  return { objectId, noteId, removed: true };
}

function requireStore(host: OpenedWorld) {
  if (!host.store) throw new OperatorError(409, "conflict", "persistence is off (snapshot.enabled: false)");
  return host.store;
}
