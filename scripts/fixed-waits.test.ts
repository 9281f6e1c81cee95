import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixedWaits, fixedWaitsIn, isTestSource } from "./lib/fixed-waits.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("fixed waits in the tests", () => {
  it("there are none: every test waits on a condition (test/support/wait.ts)", () => {
    const found = fixedWaits(root).map((w) => `${w.file}:${w.line} ${w.what}`);
    console.log(JSON.stringify({ fixedWaits: found.length }));
    expect(found).toEqual([]);
  });

  it("counts timers that resolve a promise, sleeps and waitForTimeout, not deadlines", () => {
    const text = [
      "await new Promise((r) => setTimeout(r, 500));",
      "const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));",
      'ws.once("open", () => setTimeout(() => resolve(undefined), 150));',
      "await page.waitForTimeout(300);",
      'import { setTimeout as sleep } from "node:timers/promises";',
      // A deadline rejects: no wait.
      'const timer = setTimeout(() => reject(new Error("late")), 5000);',
      "setTimeout(() => controller.abort(), 100);",
    ].join("\n");
    expect(fixedWaitsIn("x.test.ts", text).map((w) => [w.line, w.what])).toEqual([
      [1, "setTimeout resolving a promise"],
      [2, "setTimeout resolving a promise"],
      [3, "setTimeout resolving a promise"],
      [4, "waitForTimeout"],
      [5, "sleep from node:timers/promises"],
    ]);
  });

  it("looks at tests, test support and testing folders only", () => {
    expect(isTestSource("src/aic/world.test.ts")).toBe(true);
    expect(isTestSource("test/support/browser.ts")).toBe(true);
    expect(isTestSource("src/http/humans/testing/serve-loopback.ts")).toBe(true);
    expect(isTestSource("src/aic/event-feed.ts")).toBe(false);
  });
});
