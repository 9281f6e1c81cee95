// The last snapshot generation, kept a second time outside the database: a database whose
// header is scrambled, or a file replaced by garbage, cannot be opened at all, and every snapshot
// inside it goes with it. This file lives next to the store and is replaced whole (written to a
// temporary file, fsynced, renamed) after every auto snapshot, so it always holds one complete
// generation; recovery falls back to it when the store has no usable snapshot.
// Layout: the line MAGIC, one line of JSON (the manifest), then the body exactly as the store keeps it
// (canonical JSON, gzipped). The snapshot's own hash proves the body (checkStoredSnapshot).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import type { StoredSnapshot, StoreIdentity } from "./store.ts";

const MAGIC = "openclawworld.snapshot-copy.v1";

export interface SnapshotCopyEntry {
  tick: number;
  time: number;
  format: string;
  hash: string;
  body: Uint8Array;
}

interface CopyManifest extends StoreIdentity {
  tick: number;
  time: number;
  format: string;
  hash: string;
  bytes: number;
}

/** Where the copy of a store's last snapshot lives. */
export function snapshotCopyFile(storeFile: string): string {
  return `${storeFile}.last-snapshot`;
}

function encode(identity: StoreIdentity, entry: SnapshotCopyEntry): Buffer {
  const manifest: CopyManifest = {
    world: identity.world,
    sceneHash: identity.sceneHash,
    tick: entry.tick,
    time: entry.time,
    format: entry.format,
    hash: entry.hash,
    bytes: entry.body.byteLength,
  };
  return Buffer.concat([Buffer.from(`${MAGIC}\n${JSON.stringify(manifest)}\n`, "utf8"), entry.body]);
}

/** The copies of one file, in the order they were asked for: a slow write (the periodic one) never
 * replaces one asked for after it (a shutdown's, an operator restore's). */
const writeOrder = new Map<string, { asked: number; placed: number }>();

function nextWrite(file: string): { seq: number; placeIfNewest(place: () => void): boolean } {
  const order = writeOrder.get(file) ?? { asked: 0, placed: 0 };
  writeOrder.set(file, order);
  const seq = ++order.asked;
  return {
    seq,
    placeIfNewest(place) {
      if (order.placed > seq) return false;
      place();
      order.placed = seq;
      return true;
    },
  };
}

let tmpCounter = 0;
const tmpName = (file: string) => `${file}.tmp-${process.pid}-${++tmpCounter}`;

/** Writes the copy at once (start-up, shutdown, operator actions). Throws if it cannot. */
export function writeSnapshotCopySync(file: string, identity: StoreIdentity, entry: SnapshotCopyEntry): void {
  const write = nextWrite(file);
  const tmp = tmpName(file);
  try {
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, encode(identity, entry));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (!write.placeIfNewest(() => renameSync(tmp, file))) rmSync(tmp, { force: true });
    syncDir(path.dirname(file));
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** The same without holding the event loop for the write and its fsync (the periodic snapshot). */
export async function writeSnapshotCopy(
  file: string,
  identity: StoreIdentity,
  entry: SnapshotCopyEntry,
): Promise<void> {
  const write = nextWrite(file);
  const tmp = tmpName(file);
  try {
    const handle = await open(tmp, "w", 0o600);
    try {
      await handle.writeFile(encode(identity, entry));
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!write.placeIfNewest(() => renameSync(tmp, file))) await rm(tmp, { force: true });
    syncDir(path.dirname(file));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** A rename is durable once its directory is fsynced. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export type SnapshotCopyRead =
  | { ok: true; identity: StoreIdentity; snapshot: Omit<StoredSnapshot, "id" | "kind" | "label"> }
  | { ok: false; missing: boolean; reason: string };

/** Reads the copy; a missing, truncated or foreign file is a reason, never a throw. The body is
 * checked later, like any stored snapshot (its hash). */
export function readSnapshotCopy(file: string): SnapshotCopyRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, reason: missing ? "no copy" : (error as Error).message };
  }
  const first = bytes.indexOf(0x0a);
  const second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1);
  if (second < 0 || bytes.subarray(0, first).toString("utf8") !== MAGIC)
    return { ok: false, missing: false, reason: "not a snapshot copy" };
  let manifest: CopyManifest;
  try {
    manifest = JSON.parse(bytes.subarray(first + 1, second).toString("utf8")) as CopyManifest;
  } catch {
    return { ok: false, missing: false, reason: "its manifest is not JSON" };
  }
  const body = bytes.subarray(second + 1);
  const fields = [manifest.tick, manifest.time, manifest.bytes];
  if (
    !fields.every(Number.isSafeInteger) ||
    typeof manifest.world !== "string" ||
    typeof manifest.sceneHash !== "string" ||
    typeof manifest.format !== "string" ||
    typeof manifest.hash !== "string"
  )
    return { ok: false, missing: false, reason: "its manifest is incomplete" };
  if (body.byteLength !== manifest.bytes)
    return { ok: false, missing: false, reason: `body is ${body.byteLength} bytes, not ${manifest.bytes}` };
  return {
    ok: true,
    identity: { world: manifest.world, sceneHash: manifest.sceneHash },
    snapshot: {
      tick: manifest.tick,
      time: manifest.time,
      format: manifest.format,
      hash: manifest.hash,
      savedAt: "",
      body: new Uint8Array(body),
    },
  };
}
