// A world directory on disk from a fixture's files (src/world/testing/fixtures.ts builds them pure).
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Writes `files` (path in the world directory -> text) under `dir`; returns `dir`. */
export async function writeWorldDir(dir: string, files: Map<string, string>): Promise<string> {
  for (const [file, text] of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}
