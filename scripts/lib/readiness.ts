// When is a starting gateway ready, and when has it failed? Ready means the world says `running: true`
// at /world/api/status (the gateway answers unknown paths, and the route of a plugin that failed to
// load, with 200 and its own HTML page, so the body is what counts). A gateway takes ~30-60 s on an
// idle 2-core machine and was seen at 154 s on a busy one, so there is no fixed deadline: the wait goes
// on while the gateway makes progress (it writes to its log, uses CPU before it says "ready", or gets
// one step further) and fails early when the process exits, when it logs that the plugin failed to
// load, or when it shows no progress for a while. Limits, from the environment:
//   OCW_READY_TIMEOUT_SEC  the most a start may take in all (default 900)
//   OCW_READY_STALL_SEC    the longest stretch without progress (default 180)
import { readFileSync } from "node:fs";

export interface ReadyLimits {
  limitMs: number;
  stallMs: number;
}

export const DEFAULT_READY_LIMITS: ReadyLimits = { limitMs: 900_000, stallMs: 180_000 };

function seconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a number of seconds > 0, got "${raw}"`);
  return value * 1000;
}

export function readyLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ReadyLimits {
  return {
    limitMs: seconds(env, "OCW_READY_TIMEOUT_SEC") ?? DEFAULT_READY_LIMITS.limitMs,
    stallMs: seconds(env, "OCW_READY_STALL_SEC") ?? DEFAULT_READY_LIMITS.stallMs,
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the gateway colours its console output
const ANSI = /\u001b\[[0-9;]*m/g;

/** Lines after which the plugin will not come up in this process (openclaw 2026.9.6 wording). */
const FATAL = [
  /\bopenclawworld failed during \w+/,
  /plugin failed during \w+:.*\(plugin=openclawworld\b/,
  /Plugin source changed while preparing/,
];
const GATEWAY_READY = /\[gateway\] ready\s*$/;
/** The gateway gives its state database 5 s (a constant in openclaw 2026.9.6) to start a lease at
 * start-up; a CPU-starved machine misses it, and the gateway exits (code 78) asking for a restart. The
 * same state then comes up on the next start (checked), so this one is worth another start. */
const TRANSIENT = [
  /state lease heartbeat did not become ready/,
  // The gateway copies the plugin's files when it loads it and refuses the plugin when one changed
  // meanwhile ("...; retry after the edit finishes"): fatal for this process, but the folder a start
  // stages is never written after (plugin-stage.ts), so another start loads it. Seen once at the
  // third of config-in-force's npm starts in a row.
  /Plugin source changed while preparing/,
];

export interface GatewayProgress {
  /** Feed the gateway's console output here. */
  output(chunk: Buffer | string): void;
  readonly bytes: number;
  /** The first line that says the plugin failed to load, if any. */
  readonly fatal: string | undefined;
  /** Whether the gateway has said it is ready (its own start-up is over; plugin services run). */
  readonly gatewayReady: boolean;
  /** A line saying this start failed for a reason a new start gets past (TRANSIENT). */
  readonly transient: string | undefined;
  /** CPU time the process has used (Linux /proc), undefined where unknown. */
  cpuMs(): number | undefined;
}

export function gatewayProgress(pid: number | undefined): GatewayProgress {
  let bytes = 0;
  let partial = "";
  let fatal: string | undefined;
  let gatewayReady = false;
  let transient: string | undefined;
  const scan = (line: string) => {
    const plain = line.replace(ANSI, "");
    if (!fatal && FATAL.some((re) => re.test(plain))) fatal = plain.trim();
    if (!transient && TRANSIENT.some((re) => re.test(plain))) transient = plain.trim();
    if (GATEWAY_READY.test(plain)) gatewayReady = true;
  };
  return {
    output(chunk) {
      bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) scan(line);
    },
    get bytes() {
      return bytes;
    },
    get fatal() {
      return fatal;
    },
    get gatewayReady() {
      return gatewayReady;
    },
    get transient() {
      return transient;
    },
    cpuMs() {
      if (pid === undefined) return undefined;
      try {
        // Fields after the command name (which may hold spaces): utime and stime are the 12th and
        // 13th, in clock ticks (100 per second on Linux x64).
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        return undefined;
      }
    },
  };
}

export type ReadyPhase = "listen" | "plugin" | "world" | "ready";

export function describePhase(phase: ReadyPhase, baseUrl: string): string {
  switch (phase) {
    case "listen":
      return `the gateway to listen on ${new URL(baseUrl).host}`;
    case "plugin":
      return "the gateway to load the openclawworld plugin (/world/api/status still answers the gateway's own page)";
    case "world":
      return "the world service to start (/world/api/status says running: false)";
    case "ready":
      return "nothing";
  }
}

/** One look at the status route: how far the gateway has come. With `standbyReady`, a cluster
 * gateway standing by for a world another gateway serves counts as ready too (its status names the
 * owner, and every door sends callers there: docs/cluster.md). */
export async function probe(baseUrl: string, standbyReady = false): Promise<ReadyPhase> {
  try {
    const res = await fetch(`${baseUrl}/world/api/status`, { signal: AbortSignal.timeout(5000) });
    const type = res.headers.get("content-type") ?? "";
    if (!res.ok || !type.includes("application/json")) {
      await res.body?.cancel();
      return "plugin";
    }
    const body = (await res.json()) as { running?: boolean; cluster?: { servedBy?: unknown } };
    return body.running || (standbyReady && body.cluster?.servedBy) ? "ready" : "world";
  } catch (error) {
    // Refused: not listening yet. A timeout: listening but too busy to answer; count it as the step
    // it was most likely on (the plugin), the CPU and log tell whether it is still moving.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return code === "ECONNREFUSED" ? "listen" : "plugin";
  }
}

export interface WaitOptions {
  baseUrl: string;
  exited: Promise<number | null>;
  progress: GatewayProgress;
  limits: ReadyLimits;
  logFile: string;
  onWaiting?: (line: string) => void;
  /** Ends the wait (with an error) when aborted. */
  signal?: AbortSignal;
  /** A cluster standby that knows the owner is ready (see probe). */
  standbyReady?: boolean;
  /** How often to say what the wait is for (default 15 s). */
  reportEveryMs?: number;
  pollMs?: number;
}

export async function waitUntilReady(options: WaitOptions): Promise<void> {
  const { baseUrl, progress, limits, logFile } = options;
  const reportEveryMs = options.reportEveryMs ?? 15_000;
  const started = Date.now();
  let exitCode: number | null | undefined;
  void options.exited.then((code) => {
    exitCode = code;
  });
  let phase: ReadyPhase = "listen";
  let signature = "";
  let lastProgressAt = started;
  let lastReport = { at: started, bytes: 0, cpuMs: progress.cpuMs() ?? 0 };
  const seeLog = () => `see ${logFile}\n${pluginLogLines(logFile)}`;
  for (;;) {
    if (options.signal?.aborted) {
      throw new Error(`stopped while waiting for ${describePhase(phase, baseUrl)}`);
    }
    if (exitCode !== undefined) {
      throw new Error(
        `the gateway exited (code ${exitCode}) while waiting for ${describePhase(phase, baseUrl)}; ${seeLog()}`,
      );
    }
    if (progress.fatal) {
      throw new Error(`the gateway could not load the plugin: ${progress.fatal}\n${seeLog()}`);
    }
    phase = await probe(baseUrl, options.standbyReady);
    if (phase === "ready") return;
    const now = Date.now();
    // Before the gateway says it is ready, CPU use is progress (it loads and compiles a lot quietly);
    // after that, an idle process is not: only its output or a further step count.
    const cpu = progress.gatewayReady ? "" : String(progress.cpuMs() ?? "");
    const next = `${phase} ${progress.bytes} ${cpu}`;
    if (next !== signature) {
      signature = next;
      lastProgressAt = now;
    }
    const waiting = describePhase(phase, baseUrl);
    if (now - lastProgressAt > limits.stallMs) {
      throw new Error(
        `the gateway made no progress for ${Math.round((now - lastProgressAt) / 1000)} s (no output, no CPU) while waiting for ${waiting} (OCW_READY_STALL_SEC=${limits.stallMs / 1000}); ${seeLog()}`,
      );
    }
    if (now - started > limits.limitMs) {
      throw new Error(
        `the gateway was not ready after ${Math.round((now - started) / 1000)} s (OCW_READY_TIMEOUT_SEC=${limits.limitMs / 1000}); still waiting for ${waiting}; ${seeLog()}`,
      );
    }
    if (options.onWaiting && now - lastReport.at >= reportEveryMs) {
      const cpuMs = progress.cpuMs() ?? 0;
      const kB = (progress.bytes - lastReport.bytes) / 1024;
      options.onWaiting(
        `still waiting for ${waiting} (${Math.round((now - started) / 1000)} s so far; in the last ${Math.round((now - lastReport.at) / 1000)} s the gateway wrote ${kB.toFixed(1)} kB of log and used ${((cpuMs - lastReport.cpuMs) / 1000).toFixed(1)} s of CPU)`,
      );
      lastReport = { at: now, bytes: progress.bytes, cpuMs };
    }
    await sleep(options.pollMs ?? 500, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The log lines that explain a plugin that did not come up (load errors name the plugin). */
export function pluginLogLines(logFile: string): string {
  try {
    return readFileSync(logFile, "utf8")
      .replace(ANSI, "")
      .split("\n")
      .filter((line) => /openclawworld|plugin|error/i.test(line))
      .slice(-20)
      .join("\n");
  } catch {
    return "";
  }
}
