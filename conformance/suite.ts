// The conformance suites in one call, for the CLI and the tests. One AnswerJudge for the run: an
// answer's deviation fails the first case of any suite that meets it, once.
import { AnswerJudge } from "./answer-check.ts";
import { type Capabilities, EVERYTHING } from "./capabilities.ts";
import { type CaseReport, runContract } from "./contract.ts";
import { type GatewayTarget, type PolicyReport, runPolicy } from "./policy.ts";
import { runScenarios } from "./run.ts";
import type { ScenarioAgents, ScenarioClient, ScenarioName } from "./scenarios.ts";

export const SUITES = ["contract", "scenarios", "policy"] as const;
export type SuiteName = (typeof SUITES)[number];

export type ConformanceReport =
  | CaseReport
  | PolicyReport
  | { suite: "scenarios"; name: string; ok: boolean; problem?: string; skipped?: string };

export interface ConformanceOptions {
  suites: readonly SuiteName[];
  /** The AIC server's client; the contract and scenario suites need it, the policy suite does not. */
  client?: ScenarioClient;
  agents: ScenarioAgents;
  /** The room the agents play in (the server's; nothing is assumed of its map). */
  room: string;
  updateGolden?: boolean;
  only?: ScenarioName[];
  gateway?: GatewayTarget;
  /** OpenClaw agent ids whose tool policy is checked (default "main"). */
  policyAgents?: string[];
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport[]> {
  const reports: ConformanceReport[] = [];
  const { client } = options;
  // What the server has beyond the PRD decides which cases run; the rest are reported as skipped.
  const caps: Capabilities =
    client?.capabilities && options.suites.some((s) => s !== "policy")
      ? await client.capabilities(options.agents.a, options.room)
      : EVERYTHING;
  const answers = new AnswerJudge();
  // Contract first: the scenarios end with agent a in another room (portal movement).
  if (client && options.suites.includes("contract"))
    reports.push(...(await runContract(client, options.agents.a, options.room, caps, answers)));
  if (client && options.suites.includes("scenarios")) {
    const scenarios = await runScenarios(client, () => options.agents, {
      update: options.updateGolden === true,
      caps,
      room: options.room,
      answers,
      ...(options.only ? { only: options.only } : {}),
    });
    for (const s of scenarios) {
      reports.push({
        suite: "scenarios",
        name: s.scenario,
        ok: s.ok,
        ...(s.problem ? { problem: s.problem } : {}),
        ...(s.skipped ? { skipped: s.skipped } : {}),
      });
    }
  }
  if (options.suites.includes("policy") && options.gateway) {
    reports.push(
      ...(await runPolicy(
        options.gateway,
        options.policyAgents ?? ["main"],
        client?.runId ?? `p${Date.now().toString(36)}`,
      )),
    );
  }
  return reports;
}
