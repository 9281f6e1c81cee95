// Stage 3 of the PRD's CI order (unit, contract, scenario replay): the golden-trace scenarios.
import { describe, expect, it } from "vitest";
import { inProcessClient } from "./clients.ts";
import { runScenarios } from "./run.ts";

describe("conformance scenarios in-process (PRD 10.2)", () => {
  it("sign reading, proximity chat and portal movement match their golden traces", async () => {
    const client = await inProcessClient();
    const reports = await runScenarios(client, () => ({ a: "conf_a", b: "conf_b" }), { room: client.room });
    await client.close?.();
    for (const r of reports) expect(r, r.problem).toMatchObject({ ok: true });
    expect(reports.map((r) => r.scenario)).toEqual(["signReading", "proximityChat", "portalMovement"]);
  });

  it("two runs produce identical world states (the replay is deterministic)", async () => {
    const hashes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const client = await inProcessClient();
      await runScenarios(client, () => ({ a: "conf_a", b: "conf_b" }), { room: client.room });
      await client.close?.();
      hashes.push(client.runtime.world.snapshotHash());
    }
    expect(hashes[0]).toBe(hashes[1]);
  });

  it("scenario B's human came in over the WebSocket and is in the world as a human", async () => {
    const client = await inProcessClient();
    await runScenarios(client, () => ({ a: "conf_a", b: "conf_b" }), {
      only: ["proximityChat"],
      room: client.room,
    });
    await client.close?.();
    expect(client.runtime.world.getEntity("hum_conformance_1")).toMatchObject({
      kind: "human",
      name: "Conformance human",
    });
  });
});
