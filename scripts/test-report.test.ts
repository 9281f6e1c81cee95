import { describe, expect, it } from "vitest";
import { failures, mergeReports, slowestFiles } from "./test-report.ts";

const file = (name: string, seconds: number, status = "passed") => ({
  name: `/repo/${name}`,
  status,
  startTime: 1_000,
  endTime: 1_000 + seconds * 1000,
  assertionResults: [] as { fullName?: string; status: string; failureMessages?: string[] }[],
  message: undefined as string | undefined,
});
const report = (passed: number, failed: number, files: ReturnType<typeof file>[]) => ({
  numTotalTests: passed + failed,
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: 1,
  numTodoTests: 0,
  numTotalTestSuites: files.length,
  numFailedTestSuites: failed > 0 ? 1 : 0,
  startTime: 500 + passed,
  success: failed === 0,
  testResults: files,
});

describe("the lanes' reports as one", () => {
  it("adds the counts, keeps every file, and fails if any lane failed or left no report", () => {
    const unit = report(10, 0, [file("a.test.ts", 2), file("b.test.ts", 30)]);
    const e2e = report(5, 1, [file("test/e2e/c.e2e.test.ts", 90, "failed")]);
    const merged = mergeReports([unit, e2e]);
    expect(merged).toMatchObject({
      numPassedTests: 15,
      numFailedTests: 1,
      numPendingTests: 2,
      success: false,
    });
    expect(merged.startTime).toBe(505);
    expect(merged.testResults).toHaveLength(3);
    expect(mergeReports([unit]).success).toBe(true);
    expect(mergeReports([unit, undefined]).success).toBe(false);
  });

  it("names the slowest files first", () => {
    const merged = mergeReports([
      report(3, 0, [file("a.test.ts", 2), file("b.test.ts", 30), file("c.test.ts", 9)]),
    ]);
    expect(slowestFiles(merged, "/repo", 2)).toEqual([
      { file: "b.test.ts", seconds: 30 },
      { file: "c.test.ts", seconds: 9 },
    ]);
  });

  it("names each failed test, and a file that failed outside its tests, with the first lines of why", () => {
    const failedTest = file("test/e2e/c.e2e.test.ts", 90, "failed");
    failedTest.assertionResults = [
      { fullName: "c > passes", status: "passed" },
      {
        fullName: "c > draws",
        status: "failed",
        failureMessages: ["AssertionError: 5% differs\n\n  at c.ts:1\n  at x\n  at y\n  at z"],
      },
    ];
    const failedFile = file("test/e2e/d.e2e.test.ts", 1, "failed");
    failedFile.message = "Error: the gateway did not start";
    const merged = mergeReports([report(1, 1, [failedTest, failedFile, file("a.test.ts", 2)])]);
    expect(failures(merged, "/repo", 3)).toEqual([
      "  test/e2e/c.e2e.test.ts > c > draws",
      "      AssertionError: 5% differs",
      "        at c.ts:1",
      "        at x",
      "  test/e2e/d.e2e.test.ts",
      "      Error: the gateway did not start",
    ]);
  });
});
