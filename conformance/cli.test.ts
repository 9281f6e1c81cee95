// The conformance CLI against servers on 127.0.0.1: a correct one passes, deliberately broken ones
// fail with messages that say what is wrong. As a user runs it (a child process) where the exit code
// and the process's output are the point; in-process otherwise, since each child costs a node start.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEnv, silentLogger, type TestEnv } from "../src/aic/testing/local-world.ts";
import { createAicHttpHandler } from "../src/http/aic/aic-app.ts";
import { NO_HUMAN, PRD_ENDPOINTS } from "./capabilities.ts";
import { conformanceCommand } from "./command.ts";

const CLI = fileURLToPath(new URL("./cli.ts", import.meta.url));
const TOKENS: Record<string, string> = { "token-of-conf-a-0001": "conf_a", "token-of-conf-b-0001": "conf_b" };
const AGENT_ARGS = [
  "--room",
  "lobby",
  "--agent",
  "conf_a:token-of-conf-a-0001",
  "--agent",
  "conf_b:token-of-conf-b-0001",
];

const servers: Server[] = [];
const envs: TestEnv[] = [];
afterEach(async () => {
  for (const env of envs.splice(0)) env.runtime.stop();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function runInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await conformanceCommand(args, {
    log: (line) => stdout.push(`${line}\n`),
    error: (line) => stderr.push(`${line}\n`),
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/aic/v0.1`;
}

/** A real AIC server over a ticking world; `breakService` may swap a handler for a faulty one. */
async function aicServer(breakService: (env: TestEnv) => void = () => {}): Promise<string> {
  const env = await createTestEnv({ agents: (id) => ({ name: id }) });
  envs.push(env);
  breakService(env);
  const aic = createAicHttpHandler({ service: env.service, tokens: (t) => TOKENS[t], logger: silentLogger });
  env.runtime.start();
  return listen((req, res) => void aic.handle(req, res));
}

describe("conformance CLI", () => {
  it("bad usage exits 2 and says how to call it", async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("usage: conformance");
  });

  it("passes the contract suite against this server over HTTP", async () => {
    const baseUrl = await aicServer();
    const run = await runCli(["--base-url", baseUrl, ...AGENT_ARGS, "--suite", "contract"]);
    expect(run.code, run.stdout).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(summary).toMatchObject({ failed: 0, suites: ["contract"] });
    expect(summary.passed).toBeGreaterThan(30);
  });

  it("runs the PRD's suites against a server with only the PRD's six endpoints, and names what it skips", async () => {
    // The real service behind a router that serves the PRD's endpoints and nothing else (no join,
    // leave, heartbeat, memory/reflect, status, SSE, human WebSocket); its agents are pre-provisioned
    // and in the lobby, as PRD section 14 has it.
    const env = await createTestEnv({ agents: (id) => ({ name: id }) });
    envs.push(env);
    await env.join("conf_a", "conf_b");
    const aic = createAicHttpHandler({
      service: env.service,
      tokens: (t) => TOKENS[t],
      logger: silentLogger,
    });
    env.runtime.start();
    const prdOnly = new Set(PRD_ENDPOINTS.map((name) => `/aic/v0.1/${name}`));
    const baseUrl = await listen((req, res) => {
      if (req.method === "POST" && prdOnly.has(new URL(req.url ?? "/", "http://x").pathname)) {
        void aic.handle(req, res);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    });
    const run = await runInProcess(["--base-url", baseUrl, ...AGENT_ARGS]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
      passed: number;
      failed: number;
      skipped: number;
      cases: { suite: string; name: string; ok: boolean; skipped?: string }[];
    };
    expect(summary.failed).toBe(0);
    const ran = summary.cases.filter((c) => !c.skipped).map((c) => c.name);
    const skipped = summary.cases.filter((c) => c.skipped);
    // Every PRD endpoint's cases ran and passed, and the two scenarios a PRD server can play.
    for (const endpoint of PRD_ENDPOINTS)
      expect(
        ran.some((n) => n.startsWith(`${endpoint}: `)),
        endpoint,
      ).toBe(true);
    expect(ran).toEqual(expect.arrayContaining(["signReading", "portalMovement"]));
    // What needs an extension is skipped, by name, with the reason.
    expect(skipped.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "join: the room it is in",
        "heartbeat: memory 20 (max)",
        "observe: memory 1 (min)",
        "proximityChat",
      ]),
    );
    expect(run.stdout).toContain(
      "SKIP contract join: the room it is in: needs the join extension, which this server does not serve",
    );
    expect(run.stdout).toContain(`SKIP scenarios proximityChat: ${NO_HUMAN}`);
    expect(skipped.every((c) => c.ok)).toBe(true);
    expect(summary.passed).toBeGreaterThan(25);
  });

  it("fails, naming the case, against a server that accepts an out-of-range radius", async () => {
    const baseUrl = await aicServer((env) => {
      const call = env.service.call.bind(env.service);
      // The broken part: it "helpfully" clamps radius instead of refusing it.
      env.service.call = ((name, caller, body, opts) => {
        const b = body as { radius?: number };
        const clamped = name === "observe" ? { ...b, radius: Math.min(2000, Math.max(1, b.radius ?? 1)) } : b;
        return call(name, caller, clamped, opts);
      }) as typeof env.service.call;
    });
    const run = await runInProcess(["--base-url", baseUrl, ...AGENT_ARGS, "--suite", "contract"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "FAIL contract observe: radius 2001 (above max): expected bad_request, got status ok (an invalid request was accepted)",
    );
    expect(run.stdout).toContain("PASS contract observe: radius 2000 (max)");
  });

  it("fails each case on its own against a server whose answers are empty, and goes on", async () => {
    const baseUrl = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", data: {} }));
    });
    const run = await runInProcess(["--base-url", baseUrl, ...AGENT_ARGS]);
    expect(run.code).toBe(1);
    // Asked, it showed none of the extensions as ours: the PRD's cases run, each judged on its own;
    // the empty observe answer is reported once, by the first case that got it.
    expect(run.stdout).toMatch(
      /FAIL contract observe: radius 1 \(min\): observe \(PRD 6\.3 POST \/observe; .*PRD ObserveResponseData at \/: must have required property 'self'/,
    );
    expect(run.stdout).toContain(
      "FAIL contract observe: radius 0.5 (below min): expected bad_request, got status ok (an invalid request was accepted)",
    );
    expect(run.stdout).toContain(
      "FAIL scenarios signReading: observe of lobby: no nearby list or no self.tile to go by",
    );
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(summary.ran + summary.skipped).toBe(summary.cases.length);
    expect(summary.failed).toBeGreaterThan(20);
  });

  it("fails each case with a clear message when nothing answers", async () => {
    const run = await runInProcess([
      "--base-url",
      "http://127.0.0.1:9/aic/v0.1",
      ...AGENT_ARGS,
      "--suite",
      "contract",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "FAIL contract observe: radius 1 (min): a valid request must be answered ok, got timeout: AIC server unreachable: fetch failed",
    );
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(summary.passed).toBe(0);
  });
});
