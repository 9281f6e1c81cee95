// The public status (GET /world/api/status, unauthenticated) keeps internals for the operator: a
// failed tick is counted there, but its exception text only reaches the log (issue #9).
import { describe, expect, it, vi } from "vitest";
import { RoomSignals } from "../aic/schemas.ts";
import { resolveConfig } from "../config/config.ts";
import { statusText } from "../tools/status-tool.ts";
import { createHost } from "./host.ts";
import { operatorStatus, worldStatus } from "./status.ts";

describe("world status", () => {
  it("counts a failed tick without showing its exception text", async () => {
    const logged: string[] = [];
    const logger = { info() {}, warn() {}, error: (m: string) => logged.push(m) };
    const config = resolveConfig({ snapshot: { enabled: false } });
    const host = await createHost({ config, logger, stateDir: undefined });
    vi.spyOn(host.runtime.world, "step").mockImplementationOnce(() => {
      throw new Error("secret internal detail /home/op/state.json");
    });
    host.runtime.stepNow();
    // The public status (agents, unauthenticated route) has no health at all; the operator's counts it.
    expect(JSON.stringify(worldStatus(host, config))).not.toContain("secret internal detail");
    const operator = operatorStatus(host);
    expect(operator.health.failedTicks).toBe(1);
    expect(JSON.stringify(operator)).not.toContain("secret internal detail");
    expect(logged.some((line) => line.includes("secret internal detail"))).toBe(true);
  });
});

describe("world signals in the status", () => {
  it("ocw_status (a caller) gets every room's signals and its region; the unauthenticated status none", async () => {
    const logger = { info() {}, warn() {}, error() {} };
    const config = resolveConfig({ snapshot: { enabled: false } });
    const host = await createHost({ config, logger, stateDir: undefined });
    const joined = host.runtime.submit({
      kind: "join",
      entityId: "agt_scout",
      actorKind: "agent",
      name: "Scout",
    });
    host.runtime.stepNow();
    await joined;
    const status = worldStatus(host, config, "scout");
    expect(status.caller?.location?.region).toBe("plaza");
    expect(status.signals?.map((s) => s.roomId)).toEqual(["lobby", "garden", "town"]); // the order of `rooms`
    for (const room of status.signals!) expect(RoomSignals.parse(room)).toEqual(room);
    const lobby = status.signals!.find((s) => s.roomId === "lobby")!;
    expect(lobby.room.arrive).toBe(1);
    expect(lobby.regions.find((r) => r.id === "plaza")).toMatchObject({
      name: "Plaza",
      counts: { arrive: 1 },
    });
    expect(lobby.windowSec).toBe(60);
    const text = statusText({ ...status, running: true }); // this host is stepped by hand
    expect(text).toMatch(/You are agt_scout in lobby at tile \(\d+, \d+\), region plaza\./);
    expect(text).toContain("- plaza: 1 arrive (Plaza)");
    expect(text).toContain("garden: quiet");
    // GET /world/api/status (no caller) leaves activity out.
    expect(worldStatus(host, config)).not.toHaveProperty("signals");
    host.runtime.stop();
  });
});
