// The repository runs on its own: a copy of it, somewhere with no ../shared beside it, passes the
// conformance CLI and the tests that read the PRD's oracle schemas. (Specs live outside the repo
// during development; code and tests must never reach for them.)
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, repositoryFiles, runNode } from "./lib/repo-copy.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
let parent: string;
let copy: string;

function run(args: string[]): Promise<{ code: number; out: string }> {
  return runNode(copy, args);
}

beforeAll(() => {
  parent = mkdtempSync(path.join(os.tmpdir(), "ocw-portable-"));
  copy = path.join(parent, "repo");
  copyRepository(root, copy);
});

afterAll(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("a copy of the repository with no ../shared", () => {
  it("has no ../shared beside it", () => {
    expect(existsSync(path.join(parent, "shared"))).toBe(false);
  });

  it("no source or test reads ../shared", () => {
    const offenders = repositoryFiles(root)
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
