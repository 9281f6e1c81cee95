// Asks the gateway this plugin runs in to load it again, the way its operator would: `openclaw plugins
// reload <id>`, run with the gateway's own entry and environment (its config file, state directory
// and token), so it reaches this gateway and no other. Used after a reload the gateway gave up on:
// once the retired generation's cleanup overran its 5 s, openclaw 2026.9.6 starts no generation again
// and refuses every route and tool of the plugin until "openclaw plugins reload <id>" or a restart
// (its own log says so). Measured: that request brings the doors back (docs/operating.md).
import { spawn } from "node:child_process";
import path from "node:path";

export interface ReloadRequestOutcome {
  ok: boolean;
  /** What the CLI said (its JSON answer or its error), cut short; or why nothing was run. */
  detail: string;
  tookMs: number;
}

/** The gateway's CLI entry: the script the gateway process was started with, if it is openclaw's. */
export function gatewayEntry(argv: readonly string[] = process.argv): string | undefined {
  const script = argv[1];
  return script && /^openclaw(\.m?js)?$/.test(path.basename(script)) ? script : undefined;
}

export function requestGatewayReload(
  pluginId: string,
  options: { timeoutMs: number; signal?: AbortSignal; entry?: string },
): Promise<ReloadRequestOutcome> {
  const began = Date.now();
  const entry = options.entry ?? gatewayEntry();
  if (!entry)
    return Promise.resolve({
      ok: false,
      detail: `the gateway was not started by an openclaw entry (${process.argv[1] ?? "none"})`,
      tookMs: 0,
    });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, "plugins", "reload", pluginId, "--json"], {
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const keep = (chunk: Buffer) => {
      if (out.length < 4_000) out += chunk.toString("utf8");
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const stop = () => child.kill("SIGTERM");
    const timer = setTimeout(stop, options.timeoutMs);
    timer.unref();
    options.signal?.addEventListener("abort", stop, { once: true });
    const finish = (ok: boolean, detail: string) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", stop);
      resolve({ ok, detail: detail.trim().slice(0, 600), tookMs: Date.now() - began });
    };
    child.once("error", (error) => finish(false, error.message));
    child.once("close", (code, signal) => {
      if (code === 0) finish(true, out);
      else finish(false, `${signal ? `stopped by ${signal}` : `exit code ${code}`}: ${out}`);
    });
  });
}
