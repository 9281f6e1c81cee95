// Runs the scenarios and compares each normalised trace with its golden file.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Capabilities, EVERYTHING, missing } from "./capabilities.ts";
import { type Discovered, discover } from "./discover.ts";
import {
  GOLDEN_WORLD,
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
  opts: { update?: boolean; only?: ScenarioName[]; caps?: Capabilities; room: string },
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  const caps = opts.caps ?? EVERYTHING;
  let seen: Discovered | { problem: string } | undefined;
  for (const name of opts.only ?? (Object.keys(SCENARIOS) as ScenarioName[])) {
    let skipped = missing(caps, SCENARIO_NEEDS[name] ?? {});
    const golden = GOLDEN_WORLD[name];
    if (!skipped && golden) {
      if (golden.room !== opts.room) {
        skipped = `its golden trace is of room ${golden.room} of the bundled world; this run is in room ${opts.room}`;
      } else {
        seen ??= await discover(client, agentsFor(name).a, opts.room, caps).catch((error: unknown) => ({
          problem: String(error instanceof Error ? error.message : error),
        }));
        skipped = notTheGoldenWorld(golden, seen);
      }
    }
    if (skipped) {
      reports.push({ scenario: name, ok: true, skipped });
      continue;
    }
    try {
      const trace = normalise(await SCENARIOS[name](client, agentsFor(name), caps, opts.room), client.runId);
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

/** Why the room is not the world a golden trace was recorded in, or undefined when it is. */
function notTheGoldenWorld(
  golden: { room: string; object?: string; portalTo?: string },
  seen: Discovered | { problem: string },
): string | undefined {
  // A room that cannot be looked at is no reason to skip: the scenario runs and fails on it.
  if ("problem" in seen) return undefined;
  const ids = new Set(seen.objects.map((o) => o.id));
  if (golden.object && !ids.has(golden.object))
    return `room ${golden.room} shows no ${golden.object}: not the world of its golden trace`;
  if (golden.portalTo && !seen.objects.some((o) => o.portalTo === golden.portalTo))
    return `room ${golden.room} shows no portal to ${golden.portalTo}: not the world of its golden trace`;
  return undefined;
}
