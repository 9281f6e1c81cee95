// The conformance CLI against the live gateway, as a user runs it: contract cases (PRD 10.1), the
// scenarios over HTTP against the same golden files as the in-process run (10.2) and the tool policy
// through the gateway's /tools/invoke (10.3).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { gateway } from "./fixtures.ts";

const CLI = fileURLToPath(new URL("../../conformance/cli.ts", import.meta.url));

describe("conformance against the live gateway", () => {
  it("contract, scenarios A/B/C and policy pass", async () => {
    const gw = gateway();
    const args = [
      CLI,
      "--base-url",
      `${gw.baseUrl}/aic/v0.1`,
      "--room",
      "lobby",
      "--agent",
      `agent_helper:${gw.agents.agent_helper!.token}`,
      "--agent",
      `agent_other:${gw.agents.agent_other!.token}`,
      "--gateway-url",
      gw.baseUrl,
      // One argument, not two: a token may start with "-", which a parser takes for an option.
      `--gateway-token=${gw.gatewayToken}`,
      ...["main", "walker", "mover", "denied", "thinker"].flatMap((id) => ["--policy-agent", id]),
    ];
    const run = await new Promise<{ code: number | string; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        args,
        { timeout: 230_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number | string }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    const failures = run.stdout.split("\n").filter((line) => line.startsWith("FAIL"));
    expect(failures, run.stdout.slice(-2000)).toEqual([]);
    // Once it ended with 2 and no FAIL line: what it wrote to stderr says why.
    expect(run.code, `stderr: ${run.stderr.slice(-3000)}\nstdout: ${run.stdout.slice(-1000)}`).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(summary.suites).toEqual(["contract", "scenarios", "policy"]);
    const policy = summary.cases.filter((c: { suite: string }) => c.suite === "policy");
    expect(policy.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining([
        "main: required ocw_observe answers",
        "main: ocw_move_to is refused (not enabled or denied)",
        "walker: ocw_move_to is allowed (enabled)",
        "denied: ocw_chat_send is refused (not enabled or denied)",
        "denied: a refused ocw_chat_send puts nothing in the world",
        "thinker: ocw_reflect is allowed (enabled)",
        "thinker: ocw_reflect stores (own working memory)",
        "main: ocw_reflect stores nothing when refused (own working memory)",
        "denied: ocw_reflect is refused (not enabled or denied)",
      ]),
    );
  }, 240_000);
});
