// The README is for users and stays short (issue #24: at most 150 lines; everything else lives under
// docs/), and no document sends a reader to a file that is not in the repository.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Our own Markdown: the README and docs/, without the copied specification. */
function documents(): string[] {
  const docs = readdirSync(path.join(root, "docs"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith(path.join("docs", "spec") + path.sep));
  return ["README.md", ...docs];
}

describe("documentation", () => {
  it("the README fits in 150 lines", () => {
    expect(
      readFileSync(path.join(root, "README.md"), "utf8").trimEnd().split("\n").length,
    ).toBeLessThanOrEqual(150);
  });

  it("every relative link in the README and docs/ names a file or folder in the repository", () => {
    const broken: string[] = [];
    for (const doc of documents()) {
      const text = readFileSync(path.join(root, doc), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
        const file = path.resolve(path.dirname(path.join(root, doc)), target.split("#")[0] as string);
        if (!file.startsWith(root) || !existsSync(file)) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
