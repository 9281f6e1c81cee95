// Stage 2 of the PRD's CI order (unit, contract, scenario replay): the contract cases in-process.
import { describe, expect, it } from "vitest";
import { DOOR_ACTIONS } from "../src/world/actions/registry.ts";
import { PRD_ENDPOINTS } from "./capabilities.ts";
import { inProcessClient } from "./clients.ts";
import { runContract } from "./contract.ts";

describe("conformance contract cases in-process (PRD 10.1)", () => {
  it("every valid request passes and every invalid one is bad_request", async () => {
    const client = await inProcessClient();
    const reports = await runContract(client, "conf_a", client.room);
    for (const r of reports) expect(r, `${r.name}: ${r.problem}`).toMatchObject({ ok: true });
    expect(reports.length).toBeGreaterThan(30);
    const endpoints = new Set(reports.map((r) => r.name.split(":")[0]));
    for (const e of [...PRD_ENDPOINTS, "join", "leave", ...DOOR_ACTIONS.map((a) => a.kind)])
      expect(endpoints).toContain(e);
  });
});
