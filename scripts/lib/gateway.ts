// Starts a real OpenClaw gateway with this plugin in an isolated state directory, bound to
// 127.0.0.1. The plugin is loaded the way an installed plugin is: from a staged folder of its own
// (plugin-stage.ts: the built dist/, manifest, assets, node_modules linked), next to the gateway's
// state, never from the checkout. Shared by `npm start`, the e2e global setup, benchmarks and the load
// harness; the packed-install test uses its pieces (isolated dirs, env, CLI, run) with the tarball.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, createWriteStream, existsSync, openSync, readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { resolveConfig } from "../../src/config/config.ts";
import { ensurePrivateDir, writePrivateFile } from "../../src/runtime/private-files.ts";
import { deepMerge } from "./merge.ts";
import { stagePlugin } from "./plugin-stage.ts";
import { PROJECT_DIR } from "./project.ts";
import { gatewayProgress, type ReadyLimits, readyLimitsFromEnv, waitUntilReady } from "./readiness.ts";

export { PROJECT_DIR };

const OPENCLAW_BIN = path.join(PROJECT_DIR, "node_modules", ".bin", "openclaw");
const NODE_BIN = path.join(PROJECT_DIR, "node_modules", ".bin", "node");

export interface LaunchOptions {
  /** Where the staged plugin (`plugin/`), home, state, tmp and logs go; created if missing. */
  stateRoot: string;
  port?: number;
  gatewayToken?: string;
  pluginConfig?: Record<string, unknown>;
  /** Gateway config merged over the defaults below (objects key by key, arrays and values replace). */
  gatewayConfig?: Record<string, unknown>;
  /** Mirror the gateway's stdout/stderr here as well as into the log file. */
  echo?: NodeJS.WritableStream;
  /** See RunOptions.readyTimeoutMs. */
  readyTimeoutMs?: number;
  /** See RunOptions.onWaiting. */
  onWaiting?: (line: string) => void;
  /** See RunOptions.signal. */
  signal?: AbortSignal;
  /** See RunOptions.cpuProfileDir. */
  cpuProfileDir?: string;
  /** See RunOptions.nodeFlags. */
  nodeFlags?: string[];
  /** See RunOptions.standbyReady. */
  standbyReady?: boolean;
  /** See RunOptions.asUser. */
  asUser?: boolean;
  /** Runs on the staged plugin folder before the gateway starts (a test that needs it bigger). */
  afterStage?: (pluginDir: string) => Promise<void>;
}

export interface LaunchedGateway {
  baseUrl: string;
  port: number;
  gatewayToken: string;
  pid: number;
  /** The gateway process's output (stdout and stderr). */
  logFile: string;
  /** OpenClaw's own log (`logging.file`; see gatewayEnv). */
  openclawLogFile: string;
  /** The config file the gateway watches: an edit to it is a hot reload. */
  configPath: string;
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

/** A secret for a URL, a header or a command line. Never one that starts with "-": a command line reads
 * that as an option (`--gateway-token -Xy…` is refused as ambiguous), and base64url starts with it 1 time in 64. */
export function randomToken(bytes = 24): string {
  for (;;) {
    const token = randomBytes(bytes).toString("base64url");
    if (!token.startsWith("-")) return token;
  }
}

/** Where an isolated gateway keeps everything: nothing outside `root` is written (except npm's lock dir). */
export interface GatewayDirs {
  root: string;
  home: string;
  state: string;
  tmp: string;
  configPath: string;
  logFile: string;
  openclawLogFile: string;
  /** The staged plugin: a sibling of the gateway's state, so nothing the gateway writes is in it. */
  pluginDir: string;
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
    openclawLogFile: path.join(root, "openclaw.log"),
    pluginDir: path.join(root, "plugin"),
  };
  // The config holds every agent's token: the whole tree is private.
  for (const dir of [dirs.root, dirs.home, dirs.state, dirs.tmp]) await ensurePrivateDir(dir);
  return dirs;
}

/**
 * The environment that keeps the gateway and its CLI inside `dirs`, on the project's Node 24.
 * `asUser` drops the test runner's variables: under `VITEST*` (and partly `NODE_ENV=test`) OpenClaw
 * switches to test behaviour (its CLI, for one, prints nothing, not even `--json` answers). Under
 * VITEST it also writes no log file (level "silent", whatever `logging.file` says):
 * `OPENCLAW_TEST_FILE_LOG=1` turns that back on, so a test gateway's own log is at `logging.file`
 * (`<root>/openclaw.log`, as configured: OpenClaw adds a date only to `openclaw-<date>.log` names).
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
    ...(options.asUser ? {} : { OPENCLAW_TEST_FILE_LOG: "1" }),
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

/** The gateway config every project gateway starts from: the staged plugin, enabled with `pluginConfig`. */
export function baseGatewayConfig(
  dirs: GatewayDirs,
  pluginDir: string,
  pluginConfig: Record<string, unknown>,
): Record<string, unknown> {
  return {
    gateway: { mode: "local", auth: { mode: "token" } },
    logging: { file: dirs.openclawLogFile },
    // Optional tools are hidden from models until allowed here; the plugin's own policy hook still
    // decides whether a call runs.
    tools: { alsoAllow: ["openclawworld"] },
    plugins: {
      load: { paths: [pluginDir] },
      entries: {
        openclawworld: { enabled: true, config: pluginConfig },
        ...LEAN_BUNDLED_PLUGIN_ENTRIES,
      },
    },
  };
}

export async function launchGateway(options: LaunchOptions): Promise<LaunchedGateway> {
  if (!existsSync(OPENCLAW_BIN))
    throw new Error(`openclaw is not installed (${OPENCLAW_BIN}); run npm install`);
  const dirs = await prepareGatewayDirs(options.stateRoot);
  // Built from the current sources and staged beside (never inside) the gateway's state.
  const staged = await stagePlugin(dirs.pluginDir);
  await options.afterStage?.(staged.dir);
  const config = deepMerge(
    baseGatewayConfig(dirs, staged.dir, options.pluginConfig ?? {}),
    options.gatewayConfig ?? {},
  );
  // An overlay may list plugin folders of its own; the staged plugin stays among them.
  const plugins = config.plugins as { load?: { paths?: unknown } };
  const paths = Array.isArray(plugins.load?.paths) ? plugins.load.paths : [];
  if (!paths.includes(staged.dir)) plugins.load = { ...plugins.load, paths: [staged.dir, ...paths] };
  await dropConfigBackups(dirs.configPath);
  await writePrivateFile(dirs.configPath, `${JSON.stringify(config, null, 2)}\n`);
  const gateway = await runGateway({ ...options, dirs });
  try {
    await checkConfigInForce(gateway, options.pluginConfig ?? {});
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  return gateway;
}

/**
 * The launcher writes the whole config on every start, so it is the only config that may run. OpenClaw
 * compares each config file it reads with its backup (`openclaw.json.bak`, the file before its own last
 * write) and puts the backup back when the new file looks like a clobber: under half its size, or
 * without the `meta` the gateway adds (openclaw 2026.9.6, io.observe-suspicious). A start with a
 * smaller config than the last (no model overlay, an agent removed) was "restored" to the older one:
 * a removed token kept working. Without the backup there is nothing to put back; the
 * last-known-good copy goes too, so a config the gateway refuses fails the start instead of running
 * an older one.
 */
async function dropConfigBackups(configPath: string): Promise<void> {
  const dir = path.dirname(configPath);
  const base = path.basename(configPath);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name === `${base}.last-good` || name === `${base}.bak` || name.startsWith(`${base}.bak.`))
      await rm(path.join(dir, name), { force: true });
  }
}

/** Files the gateway keeps when it sets a config it read aside (`openclaw.json.clobbered.<time>`). */
export async function clobberedConfigs(configPath: string): Promise<string[]> {
  const prefix = `${path.basename(configPath)}.clobbered.`;
  const names = await readdir(path.dirname(configPath)).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(prefix)).sort();
}

/**
 * What runs is what was written: the running world's plugin config (operator status `config`) has
 * the fingerprint of `pluginConfig`, and the gateway set no config aside. Throws, naming both, when
 * not. A gateway that stands by for a world served elsewhere has no config to report yet.
 */
export async function checkConfigInForce(
  gateway: LaunchedGateway,
  pluginConfig: Record<string, unknown>,
): Promise<void> {
  const clobbered = await clobberedConfigs(gateway.configPath);
  const started = Date.now() - gateway.startupMs;
  const recent = clobbered.filter((name) => {
    const stamp = name.slice(name.lastIndexOf(".clobbered.") + ".clobbered.".length);
    const time = Date.parse(stamp.replace(/T(\d\d)-(\d\d)-(\d\d)-(\d+)Z$/, "T$1:$2:$3.$4Z"));
    return Number.isNaN(time) || time >= started - 1000;
  });
  if (recent.length > 0)
    throw new Error(
      `the gateway set the config it was given aside (${recent.join(", ")} in ${path.dirname(gateway.configPath)}) and runs another one; see ${gateway.logFile}`,
    );
  const res = await fetch(`${gateway.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gateway.gatewayToken}` },
  });
  const status = (await res.json()) as { data?: { config?: { fingerprint?: string } } };
  const running = status.data?.config?.fingerprint;
  if (running === undefined) return;
  const written = resolveConfig(pluginConfig).fingerprint;
  if (running !== written)
    throw new Error(
      `the world runs plugin config ${running}, not the one written (${written}); see ${gateway.logFile}`,
    );
}

export interface RunOptions {
  /** Directories from prepareGatewayDirs, with the gateway config already written. */
  dirs: GatewayDirs;
  port?: number;
  gatewayToken?: string;
  echo?: NodeJS.WritableStream;
  /** The most the gateway may take to come up while it still makes progress (default: the
   * OCW_READY_TIMEOUT_SEC environment variable, else 900 s; see readiness.ts). */
  readyTimeoutMs?: number;
  /** Told, every 15 s while the gateway comes up, what the wait is still waiting for. */
  onWaiting?: (line: string) => void;
  /** Aborting it while the gateway comes up stops the gateway (SIGTERM, then wait) and rejects. */
  signal?: AbortSignal;
  /** Working directory of the gateway process (default: the project). */
  cwd?: string;
  /** Run as a user would, without the test runner's environment (see gatewayEnv). */
  asUser?: boolean;
  /** Write a V8 CPU profile of the gateway into this directory when it stops (node --cpu-prof;
   * NODE_OPTIONS may not carry that flag). */
  cpuProfileDir?: string;
  /** Flags for the gateway's node process alone (V8 heap sizes, --trace-gc), not for this one. */
  nodeFlags?: string[];
  /** A cluster gateway is ready when it stands by for a world another gateway serves, too (its
   * doors redirect there), not only when it serves the world itself. */
  standbyReady?: boolean;
}

/** Starts of one gateway before giving up, when a start failed for a reason another start gets past
 * (readiness.ts, TRANSIENT: its own start-up given up on a busy machine, the plugin refused for a file
 * that changed while it was copied); any other failure ends the start at once. */
const START_ATTEMPTS = 3;

/** Starts `openclaw gateway run` on the config in `dirs` and waits until the world is running. */
export async function runGateway(options: RunOptions): Promise<LaunchedGateway> {
  const port = options.port ?? (await freePort());
  const gatewayToken = options.gatewayToken ?? randomToken();
  const baseUrl = `http://127.0.0.1:${port}`;
  const limits: ReadyLimits = {
    ...readyLimitsFromEnv(),
    ...(options.readyTimeoutMs ? { limitMs: options.readyTimeoutMs } : {}),
  };
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const gateway = spawnGateway(options, port, gatewayToken);
    try {
      await waitUntilReady({
        baseUrl,
        exited: gateway.exited,
        progress: gateway.progress,
        limits,
        logFile: options.dirs.logFile,
        onWaiting: options.onWaiting,
        signal: options.signal,
        ...(options.standbyReady ? { standbyReady: true } : {}),
      });
    } catch (error) {
      await gateway.stop();
      await gateway.outputRead;
      const transient = gateway.progress.transient;
      if (!transient || attempt >= START_ATTEMPTS || options.signal?.aborted) throw error;
      options.onWaiting?.(
        `the start failed for a reason another start gets past (${transient}); starting it again`,
      );
      continue;
    }
    return {
      baseUrl,
      port,
      gatewayToken,
      pid: gateway.child.pid ?? -1,
      logFile: options.dirs.logFile,
      openclawLogFile: options.dirs.openclawLogFile,
      configPath: options.dirs.configPath,
      startupMs: Date.now() - started,
      child: gateway.child,
      stop: gateway.stop,
    };
  }
}

/** One gateway process, its output mirrored into the log file and watched for progress. */
function spawnGateway(options: RunOptions, port: number, gatewayToken: string) {
  const { dirs } = options;
  const env = gatewayEnv(dirs, gatewayToken, { asUser: options.asUser ?? false });
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
  const log = createWriteStream(dirs.logFile, { flags: "a" });
  const progress = gatewayProgress(child.pid);
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      options.echo?.write(chunk);
      progress.output(chunk);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // The process may exit before its last output is read: what it said last is read within 2 s.
  const outputRead = Promise.race([
    Promise.all([child.stdout, child.stderr].map((s) => new Promise((r) => s?.once("close", r)))),
    new Promise((r) => setTimeout(r, 2000).unref()),
  ]);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      // It saves the world and drains (6-7 s seen); a kill before that ends counts as an unclean boot
      // to the gateway, and a few of those trip its restart-loop breaker on the next start.
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => log.end(resolve));
  };
  return { child, exited, outputRead, progress, stop };
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
