// Conformance CLI: runs the PRD 10.2 scenarios against an AIC server, checking every answer against
// the AIC JSON Schema and each trace against its golden file.
//   npx node conformance/cli.ts --base-url http://127.0.0.1:18789/aic/v0.1 --agent a:<token> --agent b:<token>
//   npx node conformance/cli.ts --in-process [--update-golden]
// Exit code 0 when every scenario passes; the last line is one JSON object with the results.
import { parseArgs } from "node:util";
import { httpClient, inProcessClient } from "./clients.ts";
import { runScenarios } from "./run.ts";
import type { ScenarioClient, ScenarioName } from "./scenarios.ts";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    agent: { type: "string", multiple: true },
    "in-process": { type: "boolean" },
    "update-golden": { type: "boolean" },
    only: { type: "string", multiple: true },
  },
});

const usage =
  "usage: conformance --in-process | --base-url <AIC base URL> --agent <id>:<token> --agent <id>:<token>";
let client: ScenarioClient;
let agentIds: string[];
if (values["in-process"]) {
  client = await inProcessClient();
  agentIds = ["conf_a", "conf_b"];
} else if (values["base-url"] && (values.agent?.length ?? 0) >= 2) {
  const tokens = Object.fromEntries(
    values.agent!.map((a) => [a.slice(0, a.indexOf(":")), a.slice(a.indexOf(":") + 1)]),
  );
  agentIds = Object.keys(tokens);
  client = httpClient(values["base-url"], tokens);
} else {
  console.error(usage);
  process.exit(2);
}

const reports = await runScenarios(client, () => ({ a: agentIds[0]!, b: agentIds[1]! }), {
  update: values["update-golden"] === true,
  ...(values.only ? { only: values.only as ScenarioName[] } : {}),
});
for (const r of reports)
  console.log(`${r.ok ? "PASS" : "FAIL"} ${r.scenario}${r.problem ? `: ${r.problem}` : ""}`);
const passed = reports.filter((r) => r.ok).length;
console.log(`${passed} passed, ${reports.length - passed} failed`);
console.log(
  JSON.stringify({
    passed,
    failed: reports.length - passed,
    scenarios: reports.map((r) => ({ scenario: r.scenario, ok: r.ok, problem: r.problem })),
  }),
);
process.exit(passed === reports.length ? 0 : 1);
