import { describe, expect, it } from "vitest";
import { inProcessClient } from "./clients.ts";
import { runScenarios } from "./run.ts";

describe("conformance scenarios in-process (PRD 10.2)", () => {
  it("sign reading, proximity chat and portal movement match their golden traces", async () => {
    const client = await inProcessClient();
    const reports = await runScenarios(client, () => ({ a: "conf_a", b: "conf_b" }));
    for (const r of reports) expect(r, r.problem).toMatchObject({ ok: true });
    expect(reports.map((r) => r.scenario)).toEqual(["signReading", "proximityChat", "portalMovement"]);
  });

  it("two runs produce identical world states (the replay is deterministic)", async () => {
    const hashes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const client = await inProcessClient();
      await runScenarios(client, () => ({ a: "conf_a", b: "conf_b" }));
      hashes.push(client.runtime.world.snapshotHash());
    }
    expect(hashes[0]).toBe(hashes[1]);
  });
});
