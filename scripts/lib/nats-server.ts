// A local nats-server with JetStream for tests, benchmarks and the cluster demo: Debian's
// `nats-server` (scripts/debian-package.sh installs it: npm test and the cluster scripts run it), bound to 127.0.0.1 only, on a free port,
// storing its streams under a directory the caller owns.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "./gateway.ts";

/** Where Debian's package puts it; PATH is tried when it is not there. */
const DEBIAN_NATS = "/usr/sbin/nats-server";

export interface LaunchedNats {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function natsServerBinary(): string {
  return existsSync(DEBIAN_NATS) ? DEBIAN_NATS : "nats-server";
}

/** Starts nats-server with JetStream and waits until it accepts clients (its "Server is ready" line).
 * `binary` replaces the installed one (a test of a machine without it). */
export async function launchNats(options: {
  storeDir: string;
  port?: number;
  binary?: string;
}): Promise<LaunchedNats> {
  const port = options.port ?? (await freePort());
  const binary = options.binary ?? natsServerBinary();
  const child = spawn(
    binary,
    ["--addr", "127.0.0.1", "--port", String(port), "--jetstream", "--store_dir", options.storeDir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`nats-server did not start in 20 s:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Server is ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? new Error(
              `${binary} is not installed: install the Debian 'nats-server' package (sudo apt-get install nats-server; npm test and npm run cluster:demo do it as root)`,
            )
          : error,
      );
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
  // Its log is of no use once it runs; an unread pipe would fill and stall it.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
