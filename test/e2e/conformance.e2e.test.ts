// The conformance scenarios over HTTP against the real gateway: every answer is checked against the
// AIC JSON Schema and each normalised trace against the same golden files as the in-process run.
import { describe, expect, it } from "vitest";
import { httpClient } from "../../conformance/clients.ts";
import { runScenarios } from "../../conformance/run.ts";
import { gateway } from "./fixtures.ts";

describe("conformance against the live gateway", () => {
  it("PRD scenarios A, B and C pass over HTTP", async () => {
    const gw = gateway();
    const tokens = { agent_helper: gw.agents.agent_helper!.token, agent_other: gw.agents.agent_other!.token };
    const reports = await runScenarios(httpClient(`${gw.baseUrl}/aic/v0.1`, tokens), () => ({
      a: "agent_helper",
      b: "agent_other",
    }));
    for (const r of reports) expect(r, r.problem).toMatchObject({ ok: true });
  }, 240_000);
});
