// One real gateway for tests and benchmarks, in a throw-away state directory.
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { launchGateway, randomToken } from "../../scripts/lib/gateway.ts";
import { deepMerge } from "../../scripts/lib/merge.ts";
import { buildWebIfNeeded } from "../../scripts/lib/web-build.ts";
import { until } from "./wait.ts";

export interface TestGateway {
  baseUrl: string;
  gatewayToken: string;
  /** What the gateway printed (its start-up). */
  logFile: string;
  /** OpenClaw's own log (`logging.file`): the plugin's lines, reloads, retirements. */
  openclawLogFile: string;
  /** Both logs, the printed one first ("" for one not written yet); from `since` on, only what was
   * written after that mark. */
  log(since?: LogMark): Promise<string>;
  /** Where both logs end now: a case reads its own lines with `log(mark)`, not an earlier case's. */
  logMark(): Promise<LogMark>;
  /** The config file the gateway watches (edit it to hot-reload the plugin). */
  configPath: string;
  startupMs: number;
  pid: number;
  stop(): Promise<void>;
}

/** Byte offsets into the printed log and OpenClaw's. */
export interface LogMark {
  printed: number;
  openclaw: number;
}

export interface StartOptions {
  pluginConfig?: Record<string, unknown>;
  /** Gateway config merged over the launcher's (e.g. a model provider: scripted-model.ts). */
  gatewayConfig?: Record<string, unknown>;
  /** OpenClaw agents to configure besides the default `main` (tools are invoked per agent id). */
  agentIds?: string[];
  keepState?: boolean;
  /** Listen here (default: a free port): two gateways that name each other in their configs. */
  port?: number;
  /** Aborting it while the gateway comes up stops it (see LaunchOptions.signal). */
  signal?: AbortSignal;
  /** A V8 CPU profile of the gateway is written here when it stops (benchmarks: where the time goes). */
  cpuProfileDir?: string;
  /** Without the test runner's environment (gatewayEnv): then the gateway holds its lock file, which
   * the `openclaw` CLI needs to find it. */
  asUser?: boolean;
  /** See LaunchOptions.afterStage. */
  afterStage?: (pluginDir: string) => Promise<void>;
}

export async function startGateway(opts: StartOptions = {}): Promise<TestGateway> {
  await buildWebIfNeeded();
  const stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-gateway-"));
  const gw = await launchGateway({
    stateRoot,
    gatewayToken: randomToken(),
    ...(opts.port ? { port: opts.port } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.cpuProfileDir ? { cpuProfileDir: opts.cpuProfileDir } : {}),
    ...(opts.afterStage ? { afterStage: opts.afterStage } : {}),
    ...(opts.asUser ? { asUser: true } : {}),
    pluginConfig: opts.pluginConfig ?? {},
    gatewayConfig: deepMerge(
      {
        agents: { entries: Object.fromEntries(["main", ...(opts.agentIds ?? [])].map((id) => [id, {}])) },
      },
      opts.gatewayConfig ?? {},
    ),
  });
  return {
    baseUrl: gw.baseUrl,
    gatewayToken: gw.gatewayToken,
    logFile: gw.logFile,
    openclawLogFile: gw.openclawLogFile,
    async log(since?: LogMark) {
      const read = (file: string, from = 0) =>
        readFile(file).then(
          (bytes) => bytes.subarray(from).toString("utf8"),
          () => "",
        );
      return `${await read(gw.logFile, since?.printed)}\n${await read(gw.openclawLogFile, since?.openclaw)}`;
    },
    async logMark() {
      const size = (file: string) =>
        stat(file).then(
          (info) => info.size,
          () => 0,
        );
      return { printed: await size(gw.logFile), openclaw: await size(gw.openclawLogFile) };
    },
    configPath: gw.configPath,
    startupMs: gw.startupMs,
    pid: gw.pid,
    async stop() {
      await gw.stop();
      if (!opts.keepState) await rm(stateRoot, { recursive: true, force: true });
    },
  };
}

/** Waits until the world behind `baseUrl` has stepped `ticks` more ticks: a grace period that must
 * pass in the simulation is waited on in its own time, not by a guess of wall time. */
export async function ticksPass(baseUrl: string, ticks: number, timeoutMs = 60_000): Promise<void> {
  const tickNow = async () =>
    ((await (await fetch(`${baseUrl}/world/api/status`)).json()) as { tick: number }).tick;
  const target = (await tickNow()) + ticks;
  await until(`the world to step ${ticks} ticks`, async () => (await tickNow()) >= target, {
    timeoutMs,
    everyMs: 50,
  });
}
