// biome-ignore-all lint/style/noRestrictedImports: this test reads the sources it checks.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL(".", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

const FORBIDDEN: [RegExp, string][] = [
  [/\bDate\s*\.\s*now\b/, "Date.now"],
  [/\bnew\s+Date\b/, "new Date"],
  [/\bDate\s*\(/, "Date()"],
  [/\bMath\s*\.\s*random\b/, "Math.random"],
  [/\bperformance\s*\./, "performance"],
  [/\bprocess\s*\./, "process"],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\s*\(/, "timers"],
  [
    /from\s+["']node:(fs|fs\/promises|net|http|https|timers|child_process|worker_threads)["']/,
    "node I/O import",
  ],
  [/from\s+["'](fs|net|http|https|child_process)["']/, "node I/O import"],
];

describe("src/world purity", () => {
  const files = sources(root);
  it("finds the sources", () => {
    expect(files.length).toBeGreaterThan(15);
  });
  it.each(files.map((f) => [f.slice(root.length), f]))(
    "%s uses no clock, randomness, timers or I/O",
    (_name, file) => {
      const text = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !line.trim().startsWith("//") && !line.trim().startsWith("*"))
        .join("\n");
      const hits = FORBIDDEN.filter(([re]) => re.test(text)).map(([, what]) => what);
      expect(hits).toEqual([]);
    },
  );
});
