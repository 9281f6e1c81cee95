// `npm install` on a fresh clone must leave the committed package-lock.json as it is. It did not:
// npm 11 (on the machine that last changed a dependency) wrote the lock without other platforms'
// optional binaries (@biomejs/cli-darwin-arm64, ...), and every install elsewhere added them back.
// A complete lock lists every optional dependency of every locked package, whatever the platform.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

interface LockedPackage {
  optionalDependencies?: Record<string, string>;
}

/** Where npm would place `name` for the package at `key` (its own node_modules, then upwards). */
function resolves(packages: Record<string, LockedPackage>, key: string, name: string): boolean {
  let base = key;
  for (;;) {
    if (`${base ? `${base}/` : ""}node_modules/${name}` in packages) return true;
    if (!base) return false;
    const at = base.lastIndexOf("node_modules/");
    base = at <= 0 ? "" : base.slice(0, at - 1);
  }
}

describe("package-lock.json", () => {
  it("holds every platform's optional binaries, so npm install elsewhere has nothing to add", () => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockedPackage>;
    };
    const missing: string[] = [];
    for (const [key, pkg] of Object.entries(lock.packages)) {
      for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
        if (!resolves(lock.packages, key, name)) missing.push(`${key || "(root)"} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
