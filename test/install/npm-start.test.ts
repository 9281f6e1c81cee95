// The first hour: `npm start` comes up every time in one checkout, stops cleanly on SIGTERM, and does
// not care that files in the checkout change while it starts or runs. A short bounded version (two
// cycles) of `npm run cycles -- --count 10`, the same code; each cycle is a real `npm start` and a
// real gateway, given the README's example gateway config overlay (a model provider and an agent).
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_DIR } from "../../scripts/lib/project.ts";
import { type CycleResult, startCycles } from "../../scripts/lib/start-cycles.ts";

let stateDir: string | undefined;
afterAll(async () => {
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("npm start, stop, start again in one checkout", () => {
  it("two cycles each bring the world up (a tool call answers), with a checkout file changing throughout and the example gateway config; SIGTERM stops npm and the gateway", async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), "ocw-npm-start-"));
    const lines: string[] = [];
    let results: CycleResult[] = [];
    try {
      results = await startCycles({
        count: 2,
        stateDir,
        churn: true,
        gatewayConfigFile: path.join(PROJECT_DIR, "examples", "gateway-config.example.json"),
        onLine: (line) => lines.push(line),
      });
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : error}\n${lines.join("\n")}`);
    }
    expect(results.map((r) => r.exitCode)).toEqual([0, 0]);
    // The overlay reached the gateway: the example's model is the agents' model.
    for (const r of results)
      expect(r.output).toContain("Model:        local/qwen3:8b: the gateway's agents can take turns");
    // The checkout did change while each gateway started and ran.
    for (const r of results) expect(r.churnWrites, JSON.stringify(r)).toBeGreaterThan(10);
    // The staged plugin folder sits beside the gateway's state, which is not inside it; the pid file
    // of the last npm start is gone.
    const plugin = path.join(stateDir, "plugin");
    expect(existsSync(path.join(plugin, "dist", "index.js"))).toBe(true);
    expect((await readdir(plugin)).sort()).not.toContain("state");
    expect(existsSync(path.join(stateDir, "state", "openclawworld", "world.db"))).toBe(true);
    expect(existsSync(path.join(stateDir, "npm-start.pid"))).toBe(false);
  }, 1_800_000);
});
