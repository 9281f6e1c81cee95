// Saves and restores the world under the service's state directory, so a gateway restart keeps the
// world as it was (positions, doors, chat, event logs, idempotency records).
import { readFile, rename } from "node:fs/promises";
import path from "node:path";
import type { WorldSnapshot } from "../world/types.ts";
import { ensurePrivateDir, writePrivateFile } from "./private-files.ts";

export async function readSnapshotFile(file: string): Promise<WorldSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return JSON.parse(text) as WorldSnapshot;
}

/** Atomic: a crash mid-write leaves the previous snapshot intact. */
export async function writeSnapshotFile(file: string, snapshot: WorldSnapshot): Promise<void> {
  await ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  // The saved world holds chat and idempotency records: private, like the gateway's own state.
  await writePrivateFile(tmp, JSON.stringify(snapshot));
  await rename(tmp, file);
}

/** Keeps a snapshot that could not be restored next to the live one instead of overwriting it. */
export async function setAsideSnapshotFile(file: string, label: string): Promise<string> {
  const aside = `${file}.${label}`;
  await rename(file, aside);
  return aside;
}
