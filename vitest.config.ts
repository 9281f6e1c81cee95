import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "src/**/*.test.ts",
            "conformance/**/*.test.ts",
            "web/client/**/*.test.ts",
            "scripts/**/*.test.ts",
          ],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The packed plugin installed into a fresh gateway: its own gateway, so it runs in a group of
        // its own instead of competing with the unit and e2e files for the 2 cores. Vitest 5.1.1 runs
        // the higher groupOrder first (checked, although its doc comment says lowest first), so -1
        // puts it after them: unit and e2e report first, and its `npm pack` (which rebuilds web/dist)
        // never runs under the browser tests.
        test: {
          name: "install",
          include: ["test/install/**/*.test.ts"],
          sequence: { groupOrder: -1 },
          testTimeout: 120_000,
          hookTimeout: 480_000,
        },
      },
    ],
  },
});
