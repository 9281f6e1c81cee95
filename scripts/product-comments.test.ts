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

/** The product's files (tests and test helpers left out). */
const productFiles = () =>
  execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter(
      (f) =>
        PRODUCT.test(f) &&
        !f.endsWith(".test.ts") &&
        !f.includes("/testing/") &&
        existsSync(path.join(root, f)),
    );

describe("product code", () => {
  it("names no issue numbers", () => {
    const files = productFiles();
    const found = files.flatMap((file) =>
      readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (ISSUE_NUMBER.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  // A name says what a file holds: two files of one name in different folders (admission.ts, service.ts
  // were) make a reader open the wrong one. An entry point may be index.ts anywhere.
  it("gives each source file a name of its own", () => {
    const byName = new Map<string, string[]>();
    for (const f of productFiles().filter((f) => /^(src|web\/client)\/.*\.ts$/.test(f))) {
      const name = path.basename(f);
      if (name !== "index.ts") byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });
});
