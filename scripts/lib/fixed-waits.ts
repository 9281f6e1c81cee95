// Fixed sleeps used as waits in the tests: a timer that resolves a promise (`setTimeout(resolve, ms)`,
// `setTimeout(() => r(), ms)`), a sleep from `node:timers/promises`, or Playwright's `waitForTimeout`.
// A test waits on a condition through test/support/wait.ts (`until`, `holdsFor`, `pace`), the one place allowed
// to hold a timer; a timer that rejects (a deadline) is no wait and is not counted. `npm test` runs
// scripts/fixed-waits.test.ts, which allows none.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The one place a test's wait may hold a timer. */
export const WAIT_HELPER = "test/support/wait.ts";
// This check's own test, whose examples are the patterns.
const OWN_TEST = "scripts/fixed-waits.test.ts";

const PATTERNS: readonly { what: string; re: RegExp }[] = [
  { what: "waitForTimeout", re: /\bwaitForTimeout\s*\(/g },
  // The timer's callback is the promise's resolve, or an arrow that calls it.
  {
    what: "setTimeout resolving a promise",
    re: /\bsetTimeout\s*\(\s*(?:(?:r|res|resolve|done|ok|wake)\s*[,)]|\(\s*\)\s*=>\s*\{?\s*(?:r|res|resolve|done|ok|wake)\s*\()/g,
  },
  {
    what: "sleep from node:timers/promises",
    re: /\b(?:setTimeout|scheduler)\b[^;]*from\s+["']node:timers\/promises["']/g,
  },
];

/** A test's own file, or what only tests run: a support module or a `testing/` folder. */
export function isTestSource(rel: string): boolean {
  if (!rel.endsWith(".ts") || rel.endsWith(".d.ts")) return false;
  return rel.endsWith(".test.ts") || rel.startsWith("test/") || rel.split("/").includes("testing");
}

function walk(root: string, rel: string): string[] {
  return readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return ["node_modules", "dist", ".git", ".test-artifacts"].includes(entry.name) ||
        entry.name.startsWith(".")
        ? []
        : walk(root, child);
    return isTestSource(child) ? [child] : [];
  });
}

export interface FixedWait {
  file: string;
  line: number;
  what: string;
}

/** The fixed waits in one source text. */
export function fixedWaitsIn(file: string, text: string): FixedWait[] {
  const found: FixedWait[] = [];
  for (const { what, re } of PATTERNS)
    for (const match of text.matchAll(re))
      found.push({ file, line: text.slice(0, match.index).split("\n").length, what });
  return found.sort((a, b) => a.line - b.line);
}

/** Every fixed wait in the repository's tests and test support, the wait helper aside. */
export function fixedWaits(root: string): FixedWait[] {
  return walk(root, "")
    .filter((file) => file !== WAIT_HELPER && file !== OWN_TEST)
    .flatMap((file) => fixedWaitsIn(file, readFileSync(path.join(root, file), "utf8")));
}
