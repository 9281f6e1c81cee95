// The repository runs on its own: a copy of it, somewhere with no ../shared beside it, passes the
// conformance CLI and the tests that read the PRD's oracle schemas. (Specs live outside the repo
// during development; code and tests must never reach for them.)
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
let parent: string;
let copy: string;

/** Every file git would commit (tracked or new, not ignored): what a clone has. */
function repositoryFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && existsSync(path.join(root, f)));
}

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: copy, timeout: 180_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

beforeAll(() => {
  parent = mkdtempSync(path.join(os.tmpdir(), "ocw-portable-"));
  copy = path.join(parent, "repo");
  for (const file of repositoryFiles()) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(copy, file));
  }
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
});

afterAll(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("a copy of the repository with no ../shared", () => {
  it("has no ../shared beside it", () => {
    expect(existsSync(path.join(parent, "shared"))).toBe(false);
  });

  it("no source or test reads ../shared", () => {
    const offenders = repositoryFiles()
      .filter((f) => /\.(ts|js|mjs|json|sh)$/.test(f) && !f.startsWith("docs/"))
      .filter((f) => /\.\.\/shared\/|shared\/seeds/.test(readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("npm run conformance -- --in-process passes", async () => {
    const result = await run(["conformance/cli.ts", "--in-process"]);
    expect(result.code, result.out.slice(-1500)).toBe(0);
    expect(result.out).toMatch(/\d+ passed, 0 failed/);
  }, 200_000);

  it("the tests that check the PRD's oracle schemas pass", async () => {
    const vitest = path.join(copy, "node_modules", "vitest", "vitest.mjs");
    const result = await run([
      vitest,
      "run",
      "--project",
      "unit",
      "src/aic/schemas.test.ts",
      "src/aic/errors.test.ts",
    ]);
    expect(result.code, result.out.slice(-1500)).toBe(0);
  }, 200_000);
});
