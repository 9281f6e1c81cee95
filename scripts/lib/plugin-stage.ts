// The plugin as a gateway loads an installed one: a folder of its own holding exactly what `npm pack`
// ships (package.json `files`: the whole built dist/, the web client, the bundled world, the skill,
// the manifest, the contract documents), with `node_modules` linked to the checkout's. Every gateway
// the project starts (npm start, the e2e suite, benchmarks, the load harness) loads this folder, never
// the checkout, for two reasons seen with openclaw 2026.9.6 (docs/differences.md has the details):
//   - the gateway copies the plugin folder (all but node_modules and .git) when it loads the plugin and
//     refuses it ("Plugin source changed while preparing its reload") if a file changes meanwhile: an
//     edit, a build, or the gateway's own state written inside the checkout;
//   - from a checkout that holds node_modules/openclaw, every agent turn failed with "Plugin entry is
//     outside its captured source package".
// What ships is decided in one place (package.json `files`, read by npm itself), so the staged folder
// and the tarball cannot drift apart: a file a new built entry writes under dist/ is carried along.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, rename, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { buildPlugin } from "../build-plugin.ts";
import { PROJECT_DIR } from "./project.ts";
import { runCommand } from "./run-command.ts";
import { buildWebIfNeeded } from "./web-build.ts";

interface PackedFile {
  path: string;
}

/** The files `npm pack` would put in the tarball now, relative to the project (runs no scripts). */
export async function packedFiles(projectDir = PROJECT_DIR): Promise<string[]> {
  const { code, stdout, stderr } = await runCommand(
    "npm",
    ["pack", "--dry-run", "--json", "--ignore-scripts"],
    projectDir,
  );
  if (code !== 0) throw new Error(`npm pack --dry-run exited ${code}: ${stderr.trim()}`);
  const [result] = JSON.parse(stdout) as { files: PackedFile[] }[];
  if (!result) throw new Error("npm pack --dry-run listed no package");
  return result.files.map((f) => f.path).sort();
}

export interface StagedPlugin {
  /** The folder to give the gateway (`plugins.load.paths`). */
  dir: string;
  files: string[];
  ms: number;
}

/**
 * Builds the plugin (dist/ and the web client) and stages it at `dir`, replacing what was there.
 * The folder is assembled beside `dir` and renamed into place, so it is never seen half-written;
 * no gateway may be running from `dir` meanwhile (each gateway stages its own).
 */
export async function stagePlugin(dir: string, projectDir = PROJECT_DIR): Promise<StagedPlugin> {
  const started = Date.now();
  await buildPlugin(projectDir);
  if (projectDir === PROJECT_DIR) await buildWebIfNeeded();
  const files = await packedFiles(projectDir);
  const target = path.resolve(dir);
  const suffix = randomBytes(4).toString("hex");
  const next = `${target}.new-${suffix}`;
  const old = `${target}.old-${suffix}`;
  await mkdir(path.dirname(target), { recursive: true });
  try {
    for (const file of files) {
      await mkdir(path.dirname(path.join(next, file)), { recursive: true });
      await copyFile(path.join(projectDir, file), path.join(next, file));
    }
    await symlink(path.join(projectDir, "node_modules"), path.join(next, "node_modules"), "dir");
    if (existsSync(target)) await rename(target, old);
    await rename(next, target);
  } finally {
    await rm(next, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return { dir: target, files, ms: Date.now() - started };
}
