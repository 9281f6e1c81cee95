// `npm start`, then stop, again and again in one checkout, as a person would: each cycle runs the real
// `npm start` (a child process, without the test runner's environment) on a free port with one state
// directory for all cycles, waits until it prints that the world is up, checks that the world says
// `running: true` and that a tool call through the gateway answers, then sends npm SIGTERM and waits
// until npm and the gateway have both exited. Meanwhile a file in the checkout keeps changing (when
// `churn` is on): the gateway used to copy the checkout as the plugin's folder and refuse the plugin
// when a file changed during the copy.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { freePort, randomToken } from "./gateway.ts";
import { PROJECT_DIR } from "./project.ts";

export interface CycleOptions {
  count: number;
  /** Kept across cycles: the same world, token files and staged plugin folder. */
  stateDir: string;
  churn?: boolean;
  /** OCW_GATEWAY_CONFIG for every cycle (a gateway config overlay file). */
  gatewayConfigFile?: string;
  onLine?: (line: string) => void;
}

export interface CycleResult {
  cycle: number;
  /** From spawning npm to it printing that the world is up. */
  readyMs: number;
  /** What the gateway itself reported (spawn to running). */
  gatewayReadyMs: number;
  /** From SIGTERM to npm's exit (the gateway stopped and saved the world). */
  stopMs: number;
  exitCode: number | null;
  /** The checkout file's changes while the cycle ran. */
  churnWrites: number;
  /** What npm start printed. */
  output: string;
}

/** The environment a person's shell would give npm: no test runner variables. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key, value]) => !/^VITEST/.test(key) && !(key === "NODE_ENV" && value === "test"),
    ),
  );
  return { ...env, ...extra };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What `npmStart` is given: the environment npm start documents. */
export interface NpmStartOptions {
  stateDir: string;
  /** Default: a free one. */
  port?: number;
  /** OPENCLAW_GATEWAY_TOKEN; unset lets npm start generate one (and keep it in stateDir). */
  gatewayToken?: string;
  /** OCW_GATEWAY_CONFIG and OCW_CONFIG: files of gateway and plugin config. */
  gatewayConfigFile?: string;
  pluginConfigFile?: string;
  onLine?: (line: string) => void;
}

/** A running `npm start`, once it has printed that the world is up. */
export interface NpmStarted {
  baseUrl: string;
  /** From spawning npm to it printing that the world is up. */
  readyMs: number;
  /** What the gateway itself reported (spawn to running). */
  gatewayReadyMs: number;
  gatewayPid: number;
  /** The gateway token npm start printed (the one given, or the one it generated). */
  gatewayToken: string;
  /** What npm start printed so far. */
  output(): string;
  /** SIGTERM to npm, then waits for npm and the gateway to exit; npm's exit code. */
  stop(): Promise<number | null>;
}

/** Runs the real `npm start` (a child process, without the test runner's environment) and waits
 * until it prints that the world is up; a start that fails is stopped and thrown with its output. */
export async function npmStart(options: NpmStartOptions): Promise<NpmStarted> {
  const port = options.port ?? (await freePort());
  const started = Date.now();
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: PROJECT_DIR,
    env: userEnv({
      OCW_PORT: String(port),
      OCW_STATE_DIR: options.stateDir,
      ...(options.gatewayToken ? { OPENCLAW_GATEWAY_TOKEN: options.gatewayToken } : {}),
      ...(options.gatewayConfigFile ? { OCW_GATEWAY_CONFIG: options.gatewayConfigFile } : {}),
      ...(options.pluginConfigFile ? { OCW_CONFIG: options.pluginConfigFile } : {}),
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let output = "";
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  try {
    const up = await new Promise<{ gatewayPid: number; gatewayReadyMs: number }>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk;
        for (const line of String(chunk).split("\n"))
          if (line.includes("still waiting")) options.onLine?.(line.trim());
        const match = /OpenClawWorld is up \(gateway ready in ([\d.]+) s, pid (\d+)\)/.exec(output);
        if (match && output.includes("Press Ctrl-C to stop."))
          resolve({ gatewayReadyMs: Number(match[1]) * 1000, gatewayPid: Number(match[2]) });
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      void exited.then((code) =>
        reject(new Error(`npm start exited (code ${code}) before the world was up:\n${output}`)),
      );
    });
    const token = /Gateway token[^:]*: (\S+)/.exec(output)?.[1];
    if (!token) throw new Error(`npm start printed no gateway token:\n${output}`);
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      readyMs: Date.now() - started,
      ...up,
      gatewayToken: token,
      output: () => output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A file in the checkout rewritten every 100 ms until stopped: the gateway used to copy the checkout
 * as the plugin's folder and refuse the plugin when a file changed during the copy. */
export interface CheckoutChurn {
  writes(): number;
  stop(): void;
}

export async function checkoutChurn(label: string): Promise<CheckoutChurn> {
  const churnFile = path.join(PROJECT_DIR, ".test-artifacts", `checkout-churn-${process.pid}.txt`);
  await mkdir(path.dirname(churnFile), { recursive: true });
  let writes = 0;
  const timer = setInterval(() => {
    writes += 1;
    writeFile(churnFile, `${label} write ${writes} at ${Date.now()}\n`).catch(() => {});
  }, 100);
  return { writes: () => writes, stop: () => clearInterval(timer) };
}

async function oneCycle(cycle: number, options: CycleOptions): Promise<CycleResult> {
  const token = randomToken();
  const churn = options.churn ? await checkoutChurn(`cycle ${cycle}`) : undefined;
  const say = (line: string) => options.onLine?.(`cycle ${cycle}: ${line}`);
  let npm: NpmStarted | undefined;
  try {
    npm = await npmStart({
      stateDir: options.stateDir,
      gatewayToken: token,
      ...(options.gatewayConfigFile ? { gatewayConfigFile: options.gatewayConfigFile } : {}),
      onLine: say,
    });
    const base = npm.baseUrl;
    const status = (await (await fetch(`${base}/world/api/status`)).json()) as { running?: boolean };
    if (status.running !== true)
      throw new Error(`the world is not running after npm start: ${JSON.stringify(status)}`);
    const invoke = await fetch(`${base}/tools/invoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "ocw_status", args: {} }),
    });
    const answer = (await invoke.json()) as { ok?: boolean; result?: { details?: { running?: boolean } } };
    if (invoke.status !== 200 || answer.result?.details?.running !== true) {
      throw new Error(
        `ocw_status through /tools/invoke answered ${invoke.status}: ${JSON.stringify(answer)}`,
      );
    }
    say(
      `up in ${(npm.readyMs / 1000).toFixed(1)} s (gateway ${(npm.gatewayReadyMs / 1000).toFixed(1)} s); ocw_status answers`,
    );
    const stopping = Date.now();
    const exitCode = await npm.stop();
    const stopMs = Date.now() - stopping;
    if (alive(npm.gatewayPid)) throw new Error(`the gateway (pid ${npm.gatewayPid}) outlived npm start`);
    say(`stopped in ${(stopMs / 1000).toFixed(1)} s (exit code ${exitCode})`);
    return {
      cycle,
      readyMs: npm.readyMs,
      gatewayReadyMs: npm.gatewayReadyMs,
      stopMs,
      exitCode,
      churnWrites: churn?.writes() ?? 0,
      output: npm.output(),
    };
  } finally {
    churn?.stop();
    await npm?.stop();
  }
}

export async function startCycles(options: CycleOptions): Promise<CycleResult[]> {
  const results: CycleResult[] = [];
  for (let cycle = 1; cycle <= options.count; cycle++) results.push(await oneCycle(cycle, options));
  return results;
}
