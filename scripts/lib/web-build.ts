// Builds the web client bundle when it is missing or older than its sources (the page's own and the
// world rules it bundles).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { PROJECT_DIR } from "./project.ts";

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export async function buildWebIfNeeded(): Promise<void> {
  const script = path.join(PROJECT_DIR, "scripts", "build-client.ts");
  if (!existsSync(script)) return;
  const dist = path.join(PROJECT_DIR, "web", "dist");
  const builtAt = existsSync(dist) ? newestMtime(dist) : 0;
  // The page bundles src/world's pure rules too (places, a plot's words, the time of day).
  const sources = ["web/client", "src/world"].map((dir) => newestMtime(path.join(PROJECT_DIR, dir)));
  if (builtAt && builtAt >= Math.max(...sources)) return;
  const result = spawnSync(process.execPath, [script], { cwd: PROJECT_DIR, stdio: "inherit" });
  if (result.status !== 0) throw new Error("building the web client failed");
}
