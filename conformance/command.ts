// The conformance command, apart from the process: `cli.ts` runs it with the process's arguments and
// exits with its code; tests run it in-process, since a child process costs a node start-up each.
import { parseArgs } from "node:util";
import { httpClient, inProcessClient } from "./clients.ts";
import type { ScenarioClient, ScenarioName } from "./scenarios.ts";
import { type ConformanceReport, runConformance, SUITES, type SuiteName } from "./suite.ts";

const usage = [
  "usage: conformance --in-process [--room <room id>]",
  "       conformance --base-url <AIC base URL> --room <room id> --agent <id>:<token> --agent <id>:<token>",
  "                   [--world-url <ws URL of /world/ws>] [--join-code <code>]",
  "                   [--gateway-url <gateway URL> --gateway-token <operator token> [--policy-agent <id>]...]",
  `       [--suite ${SUITES.join("|")}]... [--only <scenario>]... [--update-golden]`,
].join("\n");

class UsageError extends Error {}

function fail(message: string): never {
  throw new UsageError(message);
}

function parse(args: string[]) {
  return parseArgs({
    args,
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
      room: { type: "string" },
    },
  });
}

export interface Output {
  log(line: string): void;
  error(line: string): void;
}

/** Runs the conformance command; its exit code: 0 all passed, 1 a case failed, 2 bad usage. */
export async function conformanceCommand(args: string[], out: Output): Promise<number> {
  try {
    return await run(args, out);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out.error(`${error.message}\n${usage}`);
    return 2;
  }
}

async function run(args: string[], out: Output): Promise<number> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(args).values;
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
  const aicSuites = suites.some((s) => s !== "policy");
  if (values["in-process"]) {
    client = await inProcessClient();
    agentIds = ["conf_a", "conf_b"];
  } else if (values["base-url"] && (values.agent?.length ?? 0) >= 2) {
    if (aicSuites && !values.room) fail("--room names the room of the server the agents play in");
    const pairs = values.agent!.map(
      (a) => [a.slice(0, a.indexOf(":")), a.slice(a.indexOf(":") + 1)] as const,
    );
    if (pairs.some(([id, token]) => !id || !token)) fail("--agent takes <agentId>:<token>");
    agentIds = pairs.map(([id]) => id);
    client = httpClient(values["base-url"], Object.fromEntries(pairs), {
      ...(values["world-url"] ? { worldUrl: values["world-url"] } : {}),
      ...(values["join-code"] ? { joinCode: values["join-code"] } : {}),
    });
  } else if (aicSuites) {
    fail("give --in-process, or --base-url with two --agent <id>:<token>");
  }

  const reports: ConformanceReport[] = await runConformance({
    suites,
    ...(client ? { client } : {}),
    agents: { a: agentIds[0] ?? "", b: agentIds[1] ?? "" },
    room: values.room ?? client?.room ?? "",
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
    out.log(`${verdict} ${r.suite} ${r.name}${why ? `: ${why}` : ""}`);
  }
  const skipped = reports.filter((r) => skippedWhy(r)).length;
  const failed = reports.filter((r) => !r.ok).length;
  const passed = reports.length - skipped - failed;
  const ran = passed + failed;
  out.log(
    `${reports.length} cases: ${ran} ran (${passed} passed, ${failed} failed), ${skipped} skipped, each with its reason`,
  );
  out.log(
    JSON.stringify({
      ran,
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
  return failed === 0 && passed > 0 ? 0 : 1;
}
