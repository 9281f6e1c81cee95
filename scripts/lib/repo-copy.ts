// A copy of the repository as a clone has it (every file git would commit), with the checkout's
// node_modules linked in: for tests that must change or move the tree without touching this one.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";

/** Every file git would commit (tracked or new, not ignored): what a clone has. */
export function repositoryFiles(root: string): string[] {
  return execFileSync("git", ["ls-files", "-z", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && existsSync(path.join(root, f)));
}

/** Copies the repository at `root` into `copy` and links its node_modules there. */
export function copyRepository(root: string, copy: string): void {
  for (const file of repositoryFiles(root)) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(copy, file));
  }
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
}

/** Runs this Node on `args` in `cwd`: its exit code and what it printed. */
export function runNode(
  cwd: string,
  args: string[],
  timeoutMs = 180_000,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}
