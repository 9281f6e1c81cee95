// The end of `npm test`: the lanes' vitest JSON reports (scripts/test.sh runs the unit stage, then the
// end-to-end files beside the install files) merged into one `.test-artifacts/vitest.json`, the run's
// time, the slowest files (where the next minutes are to be won), and the closing line CI reads.
//   node scripts/test-report.ts <started-at-epoch-seconds> <report.json>...
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

interface AssertionResult {
  fullName?: string;
  title?: string;
  status: string;
  failureMessages?: string[];
}

interface FileResult {
  name: string;
  status: string;
  message?: string;
  startTime: number;
  endTime: number;
  assertionResults: AssertionResult[];
}

interface Report {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  numTotalTestSuites: number;
  numFailedTestSuites: number;
  startTime: number;
  success: boolean;
  testResults: FileResult[];
}

/** Several vitest JSON reports as one; a lane whose report is missing (it could not start) fails. */
export function mergeReports(reports: (Report | undefined)[]): Report {
  const present = reports.filter((r): r is Report => r !== undefined);
  const sum = (key: keyof Report) => present.reduce((n, r) => n + ((r[key] as number | undefined) ?? 0), 0);
  return {
    numTotalTests: sum("numTotalTests"),
    numPassedTests: sum("numPassedTests"),
    numFailedTests: sum("numFailedTests"),
    numPendingTests: sum("numPendingTests"),
    numTodoTests: sum("numTodoTests"),
    numTotalTestSuites: sum("numTotalTestSuites"),
    numFailedTestSuites: sum("numFailedTestSuites"),
    startTime: Math.min(...present.map((r) => r.startTime)),
    success: present.length === reports.length && present.every((r) => r.success),
    testResults: present.flatMap((r) => r.testResults),
  };
}

/** The `count` files that took longest, with their seconds. */
export function slowestFiles(report: Report, root: string, count = 10): { file: string; seconds: number }[] {
  return report.testResults
    .map((f) => ({ file: path.relative(root, f.name), seconds: (f.endTime - f.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

/**
 * Every failed test (or file that failed outside a test) with the first lines of its message: CI keeps
 * only the end of a run's output, and a failure scrolled out of it could not be told from the summary.
 */
export function failures(report: Report, root: string, lines = 4): string[] {
  const out: string[] = [];
  const firstLines = (message: string | undefined) =>
    (message ?? "")
      .split("\n")
      .map((l) => l.trimEnd())
      .filter((l) => l.trim() !== "")
      .slice(0, lines)
      .map((l) => `      ${l.length > 300 ? `${l.slice(0, 300)}…` : l}`);
  for (const f of report.testResults) {
    const file = path.relative(root, f.name);
    const failed = f.assertionResults.filter((a) => a.status === "failed");
    for (const a of failed)
      out.push(`  ${file} > ${a.fullName ?? a.title ?? "?"}`, ...firstLines(a.failureMessages?.[0]));
    if (failed.length === 0 && f.status === "failed") out.push(`  ${file}`, ...firstLines(f.message));
  }
  return out;
}

function main(): void {
  const [startedAt, ...files] = process.argv.slice(2);
  const root = process.cwd();
  const reports = files.map((file) =>
    existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Report) : undefined,
  );
  for (const [i, report] of reports.entries()) if (!report) console.log(`no report from ${files[i]}`);
  const merged = mergeReports(reports);
  writeFileSync(path.join(root, ".test-artifacts", "vitest.json"), JSON.stringify(merged));
  const seconds = Math.round(Date.now() / 1000 - Number(startedAt));
  console.log("\nslowest files:");
  for (const { file, seconds: s } of slowestFiles(merged, root))
    console.log(`  ${s.toFixed(1).padStart(7)} s  ${file}`);
  const failed = failures(merged, root);
  if (failed.length > 0) console.log(`\nfailed:\n${failed.join("\n")}`);
  console.log(`npm test took ${Math.floor(seconds / 60)} min ${seconds % 60} s (${seconds} s)`);
  console.log(
    `${merged.numPassedTests} passed, ${merged.numFailedTests} failed, ${merged.numPendingTests + (merged.numTodoTests ?? 0)} skipped`,
  );
}

if (import.meta.main) main();
