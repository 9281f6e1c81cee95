// Starts a real OpenClaw gateway with this plugin loaded from the working tree, in an isolated
// state directory, bound to 127.0.0.1. Shared by `npm start`, the e2e global setup and benchmarks;
// the packed-install test uses its pieces (isolated dirs, env, CLI, run) with an installed plugin.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, createWriteStream, existsSync, openSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePrivateDir, writePrivateFile } from "../../src/runtime/private-files.ts";
import { buildPlugin } from "../build-plugin.ts";

export const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const OPENCLAW_BIN = path.join(PROJECT_DIR, "node_modules", ".bin", "openclaw");
const NODE_BIN = path.join(PROJECT_DIR, "node_modules", ".bin", "node");

export interface LaunchOptions {
  /** Where home, state, tmp and logs go; created if missing. */
  stateRoot: string;
  port?: number;
  gatewayToken?: string;
  pluginConfig?: Record<string, unknown>;
  /** Extra top-level gateway config (merged shallowly). */
  gatewayConfig?: Record<string, unknown>;
  /** Mirror the gateway's stdout/stderr here as well as into the log file. */
  echo?: NodeJS.WritableStream;
  readyTimeoutMs?: number;
  /** See RunOptions.cpuProfileDir. */
  cpuProfileDir?: string;
  /** See RunOptions.nodeFlags. */
  nodeFlags?: string[];
}

export interface LaunchedGateway {
  baseUrl: string;
  port: number;
  gatewayToken: string;
  pid: number;
  logFile: string;
  startupMs: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/** Where an isolated gateway keeps everything: nothing outside `root` is written (except npm's lock dir). */
export interface GatewayDirs {
  root: string;
  home: string;
  state: string;
  tmp: string;
  configPath: string;
  logFile: string;
}

export async function prepareGatewayDirs(stateRoot: string): Promise<GatewayDirs> {
  const root = path.resolve(stateRoot);
  const dirs = {
    root,
    home: path.join(root, "home"),
    state: path.join(root, "state"),
    tmp: path.join(root, "tmp"),
    configPath: path.join(root, "state", "openclaw.json"),
    logFile: path.join(root, "gateway.log"),
  };
  // The config holds every agent's token: the whole tree is private (issue #9).
  for (const dir of [dirs.root, dirs.home, dirs.state, dirs.tmp]) await ensurePrivateDir(dir);
  return dirs;
}

/**
 * The environment that keeps the gateway and its CLI inside `dirs`, on the project's Node 24.
 * `asUser` drops the test runner's variables: under `VITEST*` (and partly `NODE_ENV=test`) OpenClaw
 * switches to test behaviour (its CLI, for one, prints nothing, not even `--json` answers).
 */
export function gatewayEnv(
  dirs: GatewayDirs,
  gatewayToken: string,
  options: { asUser?: boolean } = {},
): NodeJS.ProcessEnv {
  const inherited = options.asUser
    ? Object.fromEntries(
        Object.entries(process.env).filter(
          ([key, value]) => !/^VITEST/.test(key) && !(key === "NODE_ENV" && value === "test"),
        ),
      )
    : process.env;
  return {
    ...inherited,
    HOME: dirs.home,
    OPENCLAW_STATE_DIR: dirs.state,
    OPENCLAW_CONFIG_PATH: dirs.configPath,
    OPENCLAW_GATEWAY_TOKEN: gatewayToken,
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    TMPDIR: dirs.tmp,
    // The gateway must run on the project's Node 24 even when started from a Node 20 shell.
    PATH: `${path.dirname(NODE_BIN)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
}

/**
 * Gateway config entries that keep a test or dev gateway lean. Per-request cost: for every HTTP
 * request the gateway canonicalizes each registered plugin route path three times (URL parse,
 * lower-casing, decode loop), so each route makes every request slower (profiled: ~14% of a trivial
 * plugin route's CPU with the 7 default routes). These two bundled plugins register routes this world
 * never uses (macOS-panel widget hosting under /__openclaw__/a2ui, a gateway-auth geolocation lookup);
 * turning them off leaves our two routes plus the browser and OpenAI-realtime ones, and removes nothing
 * agents rely on.
 */
export const LEAN_BUNDLED_PLUGIN_ENTRIES = {
  canvas: { config: { host: { enabled: false } } },
  geolocation: { enabled: false },
};

export async function launchGateway(options: LaunchOptions): Promise<LaunchedGateway> {
  if (!existsSync(OPENCLAW_BIN))
    throw new Error(`openclaw is not installed (${OPENCLAW_BIN}); run npm install`);
  // package.json pairs ./index.ts with the built ./dist/index.js (openclaw.runtimeExtensions), and
  // the gateway loads that built file even from plugins.load.paths: build it from the current sources.
  await buildPlugin(PROJECT_DIR);
  const dirs = await prepareGatewayDirs(options.stateRoot);
  const config = {
    gateway: { mode: "local", auth: { mode: "token" } },
    logging: { file: path.join(dirs.root, "openclaw.log") },
    // Optional tools are hidden from models until allowed here; the plugin's own policy hook still
    // decides whether a call runs.
    tools: { alsoAllow: ["openclawworld"] },
    plugins: {
      load: { paths: [PROJECT_DIR] },
      entries: {
        openclawworld: { enabled: true, config: options.pluginConfig ?? {} },
        ...LEAN_BUNDLED_PLUGIN_ENTRIES,
      },
    },
    ...options.gatewayConfig,
  };
  await writePrivateFile(dirs.configPath, `${JSON.stringify(config, null, 2)}\n`);
  return runGateway({ ...options, dirs });
}

export interface RunOptions {
  /** Directories from prepareGatewayDirs, with the gateway config already written. */
  dirs: GatewayDirs;
  port?: number;
  gatewayToken?: string;
  echo?: NodeJS.WritableStream;
  readyTimeoutMs?: number;
  /** Working directory of the gateway process (default: the project). */
  cwd?: string;
  /** Run as a user would, without the test runner's environment (see gatewayEnv). */
  asUser?: boolean;
  /** Write a V8 CPU profile of the gateway into this directory when it stops (node --cpu-prof;
   * NODE_OPTIONS may not carry that flag). */
  cpuProfileDir?: string;
  /** Flags for the gateway's node process alone (V8 heap sizes, --trace-gc), not for this one. */
  nodeFlags?: string[];
}

/** Starts `openclaw gateway run` on the config in `dirs` and waits until the world is running. */
export async function runGateway(options: RunOptions): Promise<LaunchedGateway> {
  const { dirs } = options;
  const port = options.port ?? (await freePort());
  const gatewayToken = options.gatewayToken ?? randomToken();
  const logFile = dirs.logFile;
  const env = gatewayEnv(dirs, gatewayToken, { asUser: options.asUser ?? false });
  const started = Date.now();
  const child = spawn(
    NODE_BIN,
    [
      ...(options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
      ...(options.nodeFlags ?? []),
      OPENCLAW_BIN,
      "gateway",
      "run",
      "--port",
      String(port),
      "--bind",
      "loopback",
      "--auth",
      "token",
    ],
    { cwd: options.cwd ?? PROJECT_DIR, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log = createWriteStream(logFile, { flags: "a" });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      options.echo?.write(chunk);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => log.end(resolve));
  };

  try {
    await waitForPlugin(baseUrl, exited, options.readyTimeoutMs ?? 150_000, logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    baseUrl,
    port,
    gatewayToken,
    pid: child.pid ?? -1,
    logFile,
    startupMs: Date.now() - started,
    child,
    stop,
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `openclaw <args>` against the isolated state and config in `dirs` (no gateway needed). */
export async function openclawCli(
  dirs: GatewayDirs,
  args: string[],
  options: { gatewayToken?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  // Output goes to files, not pipes: the CLI exits right after writing, and a large `--json` answer
  // written to a pipe is cut short by that exit (writes to files are synchronous).
  const id = randomBytes(6).toString("hex");
  const outFile = path.join(dirs.tmp, `cli-${id}.out`);
  const errFile = path.join(dirs.tmp, `cli-${id}.err`);
  const out = openSync(outFile, "w");
  const err = openSync(errFile, "w");
  try {
    const child = spawn(NODE_BIN, [OPENCLAW_BIN, ...args], {
      cwd: dirs.root,
      env: gatewayEnv(dirs, options.gatewayToken ?? randomToken(), { asUser: true }),
      stdio: ["ignore", out, err],
    });
    const timeoutMs = options.timeoutMs ?? 180_000;
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (exitCode) => resolve(exitCode));
    }).finally(() => clearTimeout(timer));
    const stdout = readFileSync(outFile, "utf8");
    let stderr = readFileSync(errFile, "utf8");
    if (child.signalCode) stderr += `\n(killed by ${child.signalCode} after ${timeoutMs} ms)`;
    return { code, stdout, stderr };
  } finally {
    closeSync(out);
    closeSync(err);
    await rm(outFile, { force: true });
    await rm(errFile, { force: true });
  }
}

// The gateway answers unknown paths (and a plugin that failed to load) with 200 + Control UI HTML,
// so readiness means our status route answering JSON, not a 200.
async function waitForPlugin(
  baseUrl: string,
  exited: Promise<number | null>,
  timeoutMs: number,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  let last = "";
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(
        `gateway exited with code ${exitCode} before the plugin was ready; see ${logFile}\n${pluginLogLines(logFile)}`,
      );
    }
    try {
      const res = await fetch(`${baseUrl}/world/api/status`, { signal: AbortSignal.timeout(2000) });
      const type = res.headers.get("content-type") ?? "";
      if (res.ok && type.includes("application/json")) {
        const body = (await res.json()) as { running?: boolean };
        if (body.running) return;
        last = "world service not running yet";
      } else {
        last = `${res.status} ${type}`;
      }
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `gateway not ready after ${timeoutMs} ms (last: ${last}); see ${logFile}\n${pluginLogLines(logFile)}`,
  );
}

/** The log lines that explain a plugin that did not come up (load errors name the plugin). */
function pluginLogLines(logFile: string): string {
  try {
    const lines = readFileSync(logFile, "utf8").split("\n");
    return lines
      .filter((line) => /openclawworld|plugin|error/i.test(line))
      .slice(-20)
      .join("\n");
  } catch {
    return "";
  }
}
