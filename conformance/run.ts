// Runs the scenarios; in the world a golden trace was recorded in, compares the normalised trace with
// it, and elsewhere holds the scenario to the PRD's steps it checks itself.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { AnswerJudge } from "./answer-check.ts";
import { type Capabilities, EVERYTHING, missing } from "./capabilities.ts";
import { type Discovered, discover } from "./discover.ts";
import {
  GOLDEN_WORLD,
  judgedCalls,
  SCENARIO_NEEDS,
  SCENARIOS,
  type ScenarioAgents,
  type ScenarioClient,
  type ScenarioName,
  ScenarioUnmet,
  type TraceEntry,
} from "./scenarios.ts";

export interface ScenarioReport {
  scenario: ScenarioName;
  ok: boolean;
  trace?: TraceEntry[];
  problem?: string;
  /** Why it did not run (the server or its room lacks what it needs); ok stays true. */
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
  opts: { update?: boolean; only?: ScenarioName[]; caps?: Capabilities; room: string; answers?: AnswerJudge },
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  const caps = opts.caps ?? EVERYTHING;
  const ask = judgedCalls(client, opts.answers ?? new AnswerJudge());
  let seen: Discovered | undefined;
  for (const name of opts.only ?? (Object.keys(SCENARIOS) as ScenarioName[])) {
    const skipped = missing(caps, SCENARIO_NEEDS[name] ?? {});
    if (skipped) {
      reports.push({ scenario: name, ok: true, skipped });
      continue;
    }
    const golden = GOLDEN_WORLD[name];
    if (golden && golden.room === opts.room)
      seen ??= await discover(client, agentsFor(name).a, opts.room, caps);
    const compared =
      !golden || (golden.room === opts.room && seen !== undefined && isGoldenWorld(golden, seen));
    try {
      const trace = normalise(
        await SCENARIOS[name](client, agentsFor(name), caps, opts.room, ask),
        client.runId,
      );
      if (!compared) {
        reports.push({ scenario: name, ok: true, trace });
        continue;
      }
      const file = goldenPath(name);
      if (opts.update) await writeFile(file, `${JSON.stringify(trace, null, 2)}\n`);
      const expected = JSON.parse(await readFile(file, "utf8")) as TraceEntry[];
      const same = JSON.stringify(expected) === JSON.stringify(trace);
      reports.push({
        scenario: name,
        ok: same,
        trace,
        ...(same ? {} : { problem: `trace differs from ${file}` }),
      });
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      reports.push(
        error instanceof ScenarioUnmet
          ? { scenario: name, ok: true, skipped: problem }
          : { scenario: name, ok: false, problem },
      );
    }
  }
  return reports;
}

/** Whether the room is the world a golden trace was recorded in (it shows what the trace used). */
function isGoldenWorld(golden: { object?: string; portalTo?: string }, seen: Discovered): boolean {
  if (golden.object && !seen.objects.some((o) => o.id === golden.object)) return false;
  return !golden.portalTo || seen.objects.some((o) => o.portalTo === golden.portalTo);
}
