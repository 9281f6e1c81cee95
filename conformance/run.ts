// Runs the scenarios and compares each normalised trace with its golden file.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Capabilities, EVERYTHING, missing } from "./capabilities.ts";
import {
  SCENARIO_NEEDS,
  SCENARIOS,
  type ScenarioAgents,
  type ScenarioClient,
  type ScenarioName,
  type TraceEntry,
} from "./scenarios.ts";

export interface ScenarioReport {
  scenario: ScenarioName;
  ok: boolean;
  trace?: TraceEntry[];
  problem?: string;
  /** Why it did not run (the server lacks what it needs); ok stays true. */
  skipped?: string;
}

export const goldenPath = (name: ScenarioName) =>
  fileURLToPath(new URL(`./golden/${name}.json`, import.meta.url));

/** Golden traces hold run-independent facts only; the runId in chat text is masked. */
export function normalise(trace: TraceEntry[], runId: string): TraceEntry[] {
  return JSON.parse(JSON.stringify(trace).replaceAll(runId, "<run>")) as TraceEntry[];
}

export async function runScenarios(
  client: ScenarioClient,
  agentsFor: (name: ScenarioName) => ScenarioAgents,
  opts: { update?: boolean; only?: ScenarioName[]; caps?: Capabilities } = {},
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  const caps = opts.caps ?? EVERYTHING;
  for (const name of opts.only ?? (Object.keys(SCENARIOS) as ScenarioName[])) {
    const skipped = missing(caps, SCENARIO_NEEDS[name] ?? {});
    if (skipped) {
      reports.push({ scenario: name, ok: true, skipped });
      continue;
    }
    try {
      const trace = normalise(await SCENARIOS[name](client, agentsFor(name), caps), client.runId);
      const file = goldenPath(name);
      if (opts.update) await writeFile(file, `${JSON.stringify(trace, null, 2)}\n`);
      const golden = JSON.parse(await readFile(file, "utf8")) as TraceEntry[];
      const same = JSON.stringify(golden) === JSON.stringify(trace);
      reports.push({
        scenario: name,
        ok: same,
        trace,
        ...(same ? {} : { problem: `trace differs from ${file}` }),
      });
    } catch (error) {
      reports.push({
        scenario: name,
        ok: false,
        problem: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return reports;
}
