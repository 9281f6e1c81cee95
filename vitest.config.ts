import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// A user's program imports the client as the package exports it (examples/); tests take it from the
// sources, as tsconfig's "paths" does.
const CLIENT_ALIAS = {
  "openclawworld/client": fileURLToPath(new URL("./src/client/index.ts", import.meta.url)),
};

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on this 2-core machine, so every file
    // ran after the other. With two, the unit files run two at a time. `npm test` (scripts/test.sh)
    // runs the unit, contract and scenario projects first (vitest runs them as groups in their
    // groupOrder: unit 0, contract 1, scenario replay 2), then the e2e files and the install files as
    // two vitest runs side by side, each one file at a time (fileParallelism false).
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias: CLIENT_ALIAS },
        test: {
          name: "unit",
          include: [
            "src/**/*.test.ts",
            "web/client/**/*.test.ts",
            "scripts/**/*.test.ts",
            "test/support/**/*.test.ts",
            "examples/**/*.test.ts",
          ],
          testTimeout: 30_000,
          // Each worker runs its files one after another in one module graph instead of a fresh one per
          // file (vitest measured ~2 s of start-up per file here, over 100 files). Unit files restore
          // what they change (fake timers, stubbed globals) and share no state through modules.
          isolate: false,
        },
      },
      // The PRD's CI order (section 10): unit, then contract, then scenario replay, each its own
      // group (integer groupOrder: a fractional one left its files out in vitest 5.1.1), so the
      // output shows the stages in that order. The conformance files are a few seconds of the unit
      // group's old share; taken apart they cost no more time.
      {
        resolve: { alias: CLIENT_ALIAS },
        test: {
          name: "contract",
          include: [
            "conformance/contract.test.ts",
            "conformance/cli.test.ts",
            "conformance/fairness.test.ts",
            "conformance/other-server.test.ts",
          ],
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "scenario replay",
          include: ["conformance/scenarios.test.ts"],
          sequence: { groupOrder: 2 },
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
        // What a user does first: the packed plugin installed into a fresh gateway, and `npm start`
        // started and stopped in a row; and what an operator does next: change the plugin config on
        // a running gateway (hot-reload.test.ts); and the gateway's other tool mode, Tool Search off
        // (direct-tools.test.ts). Each file runs gateways of its own, one file at a time; `npm test`
        // runs this project beside the e2e files (scripts/test.sh).
        test: {
          name: "install",
          include: ["test/install/**/*.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 3 },
          testTimeout: 120_000,
          hookTimeout: 480_000,
        },
      },
    ],
  },
});
