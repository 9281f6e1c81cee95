// History belongs in DECISIONS.md and the commits: product code and its comments say why in words,
// never "issue #NN" (a reader of the code cannot open the issue, and the number goes stale).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const PRODUCT = /^(index\.ts|(src|web\/client|scripts|conformance|bench)\/.*\.(ts|css|html))$/;
const ISSUE_NUMBER = /\b[Ii]ssues? #?\d+|\(#\d+[),;:]|, #\d+\)/;

describe("product code", () => {
  it("names no issue numbers", () => {
    const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\n")
      .filter(
        (f) =>
          PRODUCT.test(f) &&
          !f.endsWith(".test.ts") &&
          !f.includes("/testing/") &&
          existsSync(path.join(root, f)),
      );
    const found = files.flatMap((file) =>
      readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (ISSUE_NUMBER.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
