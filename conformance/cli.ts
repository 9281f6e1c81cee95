// Conformance CLI: checks an AIC server against the PRD's conformance suite (section 10). It asks the
// server which of this project's extensions it has (join, leave, heartbeat, memory/reflect, the human
// WebSocket): against a server with only the PRD's six endpoints it runs the PRD's cases and reports
// the ones that need an extension as SKIP, with the reason (conformance/capabilities.ts).
//   contract   10.1: valid and invalid requests per endpoint (bounds, patterns, enums)
//   scenarios  10.2: sign reading, proximity chat (the human is a real WebSocket client of
//              /world/ws), portal movement against golden traces, every answer checked against the
//              AIC JSON Schema, cursors checked to progress
//   policy     10.3: required tools present, optional tools gated, denylist wins (needs the gateway)
//   npx node conformance/cli.ts --base-url http://127.0.0.1:18789/aic/v0.1 --agent a:<token> --agent b:<token>
//        [--gateway-url http://127.0.0.1:18789 --gateway-token <operator token> --policy-agent main ...]
//   npx node conformance/cli.ts --in-process [--update-golden]
//   --suite contract|scenarios|policy (repeatable) picks suites; --only <scenario> picks scenarios.
// Exit code 0 when every case passes, 1 when one fails, 2 on bad usage; the last line is one JSON
// object with the results.
import { parseArgs } from "node:util";
import { httpClient, inProcessClient } from "./clients.ts";
import type { ScenarioClient, ScenarioName } from "./scenarios.ts";
import { type ConformanceReport, runConformance, SUITES, type SuiteName } from "./suite.ts";

const usage = [
  "usage: conformance --in-process",
  "       conformance --base-url <AIC base URL> --agent <id>:<token> --agent <id>:<token>",
  "                   [--world-url <ws URL of /world/ws>] [--join-code <code>]",
  "                   [--gateway-url <gateway URL> --gateway-token <operator token> [--policy-agent <id>]...]",
  `       [--suite ${SUITES.join("|")}]... [--only <scenario>]... [--update-golden]`,
].join("\n");

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

let values: ReturnType<typeof parse>["values"];
function parse() {
  return parseArgs({
    options: {
      "base-url": { type: "string" },
      agent: { type: "string", multiple: true },
      "in-process": { type: "boolean" },
      "update-golden": { type: "boolean" },
      only: { type: "string", multiple: true },
      suite: { type: "string", multiple: true },
      "gateway-url": { type: "string" },
      "gateway-token": { type: "string" },
      "policy-agent": { type: "string", multiple: true },
      "world-url": { type: "string" },
      "join-code": { type: "string" },
    },
  });
}
try {
  values = parse().values;
} catch (error) {
  fail((error as Error).message);
}

const suites = (values.suite ?? [
  ...SUITES.filter((s) => s !== "policy"),
  ...(values["gateway-url"] ? ["policy"] : []),
]) as SuiteName[];
for (const s of suites) if (!SUITES.includes(s)) fail(`unknown suite "${s}"`);
if (suites.includes("policy") && (!values["gateway-url"] || !values["gateway-token"])) {
  fail("the policy suite needs --gateway-url and --gateway-token");
}

let client: ScenarioClient | undefined;
let agentIds: string[] = [];
if (values["in-process"]) {
  client = await inProcessClient();
  agentIds = ["conf_a", "conf_b"];
} else if (values["base-url"] && (values.agent?.length ?? 0) >= 2) {
  const pairs = values.agent!.map((a) => [a.slice(0, a.indexOf(":")), a.slice(a.indexOf(":") + 1)] as const);
  if (pairs.some(([id, token]) => !id || !token)) fail("--agent takes <agentId>:<token>");
  agentIds = pairs.map(([id]) => id);
  client = httpClient(values["base-url"], Object.fromEntries(pairs), {
    ...(values["world-url"] ? { worldUrl: values["world-url"] } : {}),
    ...(values["join-code"] ? { joinCode: values["join-code"] } : {}),
  });
} else if (suites.some((s) => s !== "policy")) {
  fail("give --in-process, or --base-url with two --agent <id>:<token>");
}

const reports: ConformanceReport[] = await runConformance({
  suites,
  ...(client ? { client } : {}),
  agents: { a: agentIds[0] ?? "", b: agentIds[1] ?? "" },
  updateGolden: values["update-golden"] === true,
  ...(values.only ? { only: values.only as ScenarioName[] } : {}),
  ...(values["gateway-url"] && values["gateway-token"]
    ? {
        gateway: { url: values["gateway-url"], token: values["gateway-token"] },
        policyAgents: values["policy-agent"] ?? ["main"],
      }
    : {}),
});
await client?.close?.();
const skippedWhy = (r: ConformanceReport) => ("skipped" in r ? r.skipped : undefined);
for (const r of reports) {
  const skipped = skippedWhy(r);
  const verdict = skipped ? "SKIP" : r.ok ? "PASS" : "FAIL";
  const why = skipped ?? r.problem;
  console.log(`${verdict} ${r.suite} ${r.name}${why ? `: ${why}` : ""}`);
}
const skipped = reports.filter((r) => skippedWhy(r)).length;
const failed = reports.filter((r) => !r.ok).length;
const passed = reports.length - skipped - failed;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
console.log(
  JSON.stringify({
    passed,
    failed,
    skipped,
    suites,
    cases: reports.map((r) => ({
      suite: r.suite,
      name: r.name,
      ok: r.ok,
      ...(r.problem ? { problem: r.problem } : {}),
      ...(skippedWhy(r) ? { skipped: skippedWhy(r) } : {}),
    })),
  }),
);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
