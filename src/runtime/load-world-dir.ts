// Reads a world directory (world.toml + maps + assets) and hands the bytes to the pure parser.
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseWorld } from "../world/definition.ts";
import type { WorldDefinition } from "../world/types.ts";
import { WorldLoadError } from "../world/world-errors.ts";

/** The world shipped with the plugin (rooms `lobby` and `garden`), used when config names none. */
export const BUNDLED_WORLD_DIR = fileURLToPath(new URL("../../worlds/lobby", import.meta.url));

async function collect(root: string, dir: string, out: Map<string, Uint8Array>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await collect(root, full, out);
    else if (entry.isFile()) out.set(relative(root, full).split(sep).join("/"), await readFile(full));
  }
}

/** Load a world directory; throws WorldLoadError naming the file and field on any problem. */
export async function loadWorldDir(dir: string): Promise<WorldDefinition> {
  const files = new Map<string, Uint8Array>();
  try {
    await collect(dir, dir, files);
  } catch (error) {
    throw new WorldLoadError(dir, undefined, `cannot read world directory: ${(error as Error).message}`);
  }
  return parseWorld(files);
}
