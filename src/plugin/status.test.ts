// The public status (GET /world/api/status, unauthenticated) keeps internals for the operator: a
// failed tick is counted there, but its exception text only reaches the log (issue #9).
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/config.ts";
import { createHost } from "./host.ts";
import { operatorStatus, worldStatus } from "./status.ts";

describe("world status", () => {
  it("counts a failed tick without showing its exception text", async () => {
    const logged: string[] = [];
    const logger = { info() {}, warn() {}, error: (m: string) => logged.push(m) };
    const config = resolveConfig({ snapshot: { enabled: false } });
    const host = await createHost({ config, logger, stateDir: undefined });
    host.runtime.beforeStep = () => {
      throw new Error("secret internal detail /home/op/state.json");
    };
    host.runtime.stepNow();
    host.runtime.beforeStep = undefined;
    // The public status (agents, unauthenticated route) has no health at all; the operator's counts it.
    expect(JSON.stringify(worldStatus(host, config))).not.toContain("secret internal detail");
    const operator = operatorStatus(host);
    expect(operator.health.failedTicks).toBe(1);
    expect(JSON.stringify(operator)).not.toContain("secret internal detail");
    expect(logged.some((line) => line.includes("secret internal detail"))).toBe(true);
  });
});
