// Starts a real OpenClaw gateway with this plugin loaded from the working tree, in an isolated
// state directory, bound to 127.0.0.1. Shared by `npm start`, the e2e global setup and benchmarks.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

export async function launchGateway(options: LaunchOptions): Promise<LaunchedGateway> {
  if (!existsSync(OPENCLAW_BIN))
    throw new Error(`openclaw is not installed (${OPENCLAW_BIN}); run npm install`);
  const port = options.port ?? (await freePort());
  const gatewayToken = options.gatewayToken ?? randomToken();
  const root = path.resolve(options.stateRoot);
  const dirs = {
    home: path.join(root, "home"),
    state: path.join(root, "state"),
    tmp: path.join(root, "tmp"),
  };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  const logFile = path.join(root, "gateway.log");
  const configPath = path.join(dirs.state, "openclaw.json");
  const config = {
    gateway: { mode: "local", auth: { mode: "token" } },
    logging: { file: path.join(root, "openclaw.log") },
    // Optional tools are hidden from models until allowed here; the plugin's own policy hook still
    // decides whether a call runs.
    tools: { alsoAllow: ["openclawworld"] },
    plugins: {
      load: { paths: [PROJECT_DIR] },
      entries: {
        openclawworld: { enabled: true, config: options.pluginConfig ?? {} },
        // Per-request cost: for every HTTP request the gateway canonicalizes each registered plugin
        // route path three times (URL parse, lower-casing, decode loop), so each route makes every
        // request slower (profiled: ~14% of a trivial plugin route's CPU with the 7 default routes).
        // These two bundled plugins register routes this world never uses (macOS-panel widget hosting
        // under /__openclaw__/a2ui, a gateway-auth geolocation lookup); turning them off leaves our
        // two routes plus the browser and OpenAI-realtime ones, and removes nothing agents rely on.
        canvas: { config: { host: { enabled: false } } },
        geolocation: { enabled: false },
      },
    },
    ...options.gatewayConfig,
  };
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dirs.home,
    OPENCLAW_STATE_DIR: dirs.state,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_TOKEN: gatewayToken,
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    TMPDIR: dirs.tmp,
    // The gateway must run on the project's Node 24 even when started from a Node 20 shell.
    PATH: `${path.dirname(NODE_BIN)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  const started = Date.now();
  const child = spawn(
    NODE_BIN,
    [OPENCLAW_BIN, "gateway", "run", "--port", String(port), "--bind", "loopback", "--auth", "token"],
    { cwd: PROJECT_DIR, env, stdio: ["ignore", "pipe", "pipe"] },
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
