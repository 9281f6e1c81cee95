// The operator's save/load (seed 001): snapshots with top-level `format`, `time` (sim time) and the
// scene hash; named checkpoints with a manifest (label, tick, sim time, hash); restoring one. Only
// the gateway-authenticated admin route reaches these. Transport-free: failures are OperatorError
// values carrying the HTTP status the adapter answers with.
import { SnapshotMismatchError } from "../world/errors.ts";
import type { WorldSnapshot } from "../world/types.ts";
import { World } from "../world/world.ts";
import type { OpenedWorld } from "./open-world.ts";
import { checkStoredSnapshot, parseForeignSnapshot, snapshotEntry } from "./persistence.ts";
import type { SnapshotManifest } from "./store.ts";

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
    recovery: host.recovery,
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
  store.saveAutoSnapshot(entry);
  return describeSnapshot(snapshot, entry.hash);
}

export function listCheckpoints(host: OpenedWorld): SnapshotManifest[] {
  return requireStore(host).checkpoints();
}

export function createCheckpoint(host: OpenedWorld, label: unknown): SnapshotManifest {
  const store = requireStore(host);
  if (typeof label !== "string" || !LABEL.test(label))
    throw new OperatorError(400, "bad_request", "label must match ^[A-Za-z0-9._-]{1,64}$");
  store.saveCheckpoint(label, snapshotEntry(host.runtime.world.snapshot()));
  return store.checkpoints().find((c) => c.label === label)!;
}

export function restoreCheckpoint(host: OpenedWorld, label: string): SavedSnapshot {
  const stored = requireStore(host).checkpoint(label);
  if (!stored) throw new OperatorError(404, "not_found", `no checkpoint labelled "${label}"`);
  const check = checkStoredSnapshot(stored);
  if (!check.ok)
    throw new OperatorError(409, "conflict", `checkpoint "${label}" is damaged: ${check.reason}`);
  return adopt(host, check.snapshot);
}

/** Restores a snapshot handed in by the operator; another world's or format's is refused. */
export function loadSnapshot(host: OpenedWorld, value: unknown): SavedSnapshot {
  const parsed = parseForeignSnapshot(host.definition, value);
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
  host.store?.resetTimeline(entry);
  host.runtime.replaceWorld(world);
  host.origin = "restored";
  return describeSnapshot(world.snapshot(), entry.hash);
}

function requireStore(host: OpenedWorld) {
  if (!host.store) throw new OperatorError(409, "conflict", "persistence is off (snapshot.enabled: false)");
  return host.store;
}
