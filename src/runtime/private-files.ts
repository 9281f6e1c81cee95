// Files that hold secrets (the gateway config with every agent's token, tokens, the saved world with
// its chat) are the owner's alone: directories 0700, files 0600 — also when they already existed
// with looser modes (mkdir/writeFile apply a mode only when they create).
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

export async function writePrivateFile(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: PRIVATE_FILE_MODE });
  await chmod(file, PRIVATE_FILE_MODE);
}

/** Synchronous forms, for the database the store opens synchronously. Call privateFileSync right
 * after creating the database and before WAL mode: SQLite gives its -wal/-shm files the db's mode. */
export function privateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

export function privateFileSync(file: string): void {
  if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}

/** Writes `text` as the whole of `file`, the owner's alone: a new file renamed over the old, so a
 * reader (or a crash) never meets it half written. For small files written rarely. */
export function replacePrivateFileSync(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, text, { mode: PRIVATE_FILE_MODE });
  renameSync(next, file);
}
