import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  gatewayProgress,
  probe,
  type ReadyPhase,
  readyLimitsFromEnv,
  waitUntilReady,
} from "./lib/readiness.ts";

describe("readiness limits", () => {
  it("come from OCW_READY_TIMEOUT_SEC and OCW_READY_STALL_SEC, with defaults", () => {
    expect(readyLimitsFromEnv({})).toEqual({ limitMs: 900_000, stallMs: 180_000 });
    expect(readyLimitsFromEnv({ OCW_READY_TIMEOUT_SEC: "1200", OCW_READY_STALL_SEC: "30" })).toEqual({
      limitMs: 1_200_000,
      stallMs: 30_000,
    });
  });

  it("refuse what is not a positive number of seconds, naming the variable", () => {
    expect(() => readyLimitsFromEnv({ OCW_READY_TIMEOUT_SEC: "soon" })).toThrow(/OCW_READY_TIMEOUT_SEC/);
    expect(() => readyLimitsFromEnv({ OCW_READY_STALL_SEC: "-5" })).toThrow(/OCW_READY_STALL_SEC/);
  });
});

describe("gateway progress", () => {
  it("finds the plugin's load failure in coloured output, also when a line arrives in pieces", () => {
    const progress = gatewayProgress(undefined);
    progress.output(
      "\u001b[90m2026-11-25T02:53:41.208+00:00\u001b[39m [plugins] \u001b[31mopenclawworld fai",
    );
    expect(progress.fatal).toBeUndefined();
    progress.output("led during load from /x/dist/index.js: Error: boom\u001b[39m\nnext line\n");
    expect(progress.fatal).toMatch(
      /^2026-11-25T02:53:41.208\+00:00 \[plugins\] openclawworld failed during load/,
    );
    expect(progress.bytes).toBeGreaterThan(100);
  });

  it("ignores other plugins' troubles and notices the gateway's own ready line", () => {
    const progress = gatewayProgress(undefined);
    progress.output("[plugins] memory-core failed during load: nope\n");
    progress.output(
      "\u001b[90m2026-11-25T02:50:09.566+00:00\u001b[39m \u001b[36m[gateway]\u001b[39m \u001b[36mready\u001b[39m\n",
    );
    expect(progress.fatal).toBeUndefined();
    expect(progress.gatewayReady).toBe(true);
  });

  it("tells a start-up the gateway gave up for a reason another start gets past", () => {
    const progress = gatewayProgress(undefined);
    progress.output(
      "- Agent database maintenance deferred: ... | state lease heartbeat did not become ready (phase=startup, trigger=timeout, elapsedMs=5123, timeoutMs=5000)\n",
    );
    expect(progress.transient).toMatch(/state lease heartbeat did not become ready/);
    expect(progress.fatal).toBeUndefined();
  });

  it("tells a plugin refused for a file changed while it was copied: fatal now, worth another start", () => {
    const progress = gatewayProgress(undefined);
    progress.output(
      "[plugins] openclawworld failed during load from /s/plugin/dist/index.js: Error: Plugin source changed while preparing its reload; retry after the edit finishes.\n",
    );
    expect(progress.fatal).toMatch(/Plugin source changed while preparing/);
    expect(progress.transient).toMatch(/Plugin source changed while preparing/);
  });

  it("reads this process's CPU time on Linux", () => {
    expect(gatewayProgress(process.pid).cpuMs()).toBeGreaterThanOrEqual(0);
  });
});

describe("waitUntilReady", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** A stand-in status route whose answer follows `phase()`. */
  async function statusServer(phase: () => ReadyPhase): Promise<string> {
    server = createServer((_req, res) => {
      const now = phase();
      if (now === "plugin") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>control ui</html>");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ running: now === "ready" }));
      }
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const never = new Promise<number | null>(() => {});
  /** A gateway that keeps writing to its log while `run` waits. */
  async function whileBusy<T>(
    progress: ReturnType<typeof gatewayProgress>,
    run: () => Promise<T>,
  ): Promise<T> {
    const writer = setInterval(() => progress.output("busy\n"), 10);
    try {
      return await run();
    } finally {
      clearInterval(writer);
    }
  }
  const options = { logFile: "/nonexistent/gateway.log", pollMs: 20, reportEveryMs: 50 };
  const wait = (
    baseUrl: string,
    progress: ReturnType<typeof gatewayProgress>,
    limits: { limitMs: number; stallMs: number },
    extra: Partial<Parameters<typeof waitUntilReady>[0]> = {},
  ) => waitUntilReady({ ...options, baseUrl, exited: never, progress, limits, ...extra });

  it("waits through the gateway's page and a world not yet running, reporting what it waits for", async () => {
    const phases: ReadyPhase[] = ["plugin", "plugin", "world", "world", "ready"];
    let i = 0;
    const baseUrl = await statusServer(() => phases[Math.min(i++, phases.length - 1)] as ReadyPhase);
    const progress = gatewayProgress(undefined);
    const said: string[] = [];
    await wait(
      baseUrl,
      progress,
      { limitMs: 10_000, stallMs: 5_000 },
      { onWaiting: (line) => said.push(line), reportEveryMs: 0 },
    );
    expect(said.some((l) => l.includes("load the openclawworld plugin"))).toBe(true);
    expect(said.some((l) => l.includes("world service to start"))).toBe(true);
  });

  it("counts a cluster standby that names the owner as ready only when asked to", async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ running: false, cluster: { gatewayId: "gw-b", servedBy: { gatewayId: "gw-a" } } }),
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await probe(baseUrl)).toBe("world");
    expect(await probe(baseUrl, true)).toBe("ready");
  });

  it("keeps waiting past the stall limit while the gateway writes output", async () => {
    let phase: ReadyPhase = "world";
    const baseUrl = await statusServer(() => phase);
    const progress = gatewayProgress(undefined);
    setTimeout(() => {
      phase = "ready";
    }, 400);
    await whileBusy(progress, () => wait(baseUrl, progress, { limitMs: 5_000, stallMs: 150 }));
  });

  it("gives up when nothing moves for the stall limit, saying what it was waiting for", async () => {
    const baseUrl = await statusServer(() => "world");
    const progress = gatewayProgress(undefined);
    progress.output("[gateway] ready\n"); // after ready, an idle CPU is no progress
    await expect(wait(baseUrl, progress, { limitMs: 5_000, stallMs: 150 })).rejects.toThrow(
      /no progress .* world service to start .*OCW_READY_STALL_SEC/,
    );
  });

  it("gives up at the overall limit even while the gateway is busy", async () => {
    const baseUrl = await statusServer(() => "plugin");
    const progress = gatewayProgress(undefined);
    await expect(
      whileBusy(progress, () => wait(baseUrl, progress, { limitMs: 200, stallMs: 5_000 })),
    ).rejects.toThrow(/not ready after .*OCW_READY_TIMEOUT_SEC.*load the openclawworld plugin/);
  });

  it("fails at once on the plugin's load failure or the gateway's exit", async () => {
    const baseUrl = await statusServer(() => "plugin");
    const failed = gatewayProgress(undefined);
    failed.output("[plugins] openclawworld failed during register from /x: Error: bad\n");
    const roomy = { limitMs: 5_000, stallMs: 5_000 };
    await expect(wait(baseUrl, failed, roomy)).rejects.toThrow(
      /could not load the plugin: .*openclawworld failed during register/,
    );
    await expect(
      wait(baseUrl, gatewayProgress(undefined), roomy, { exited: Promise.resolve(1) }),
    ).rejects.toThrow(/exited \(code 1\)/);
  });

  it("stops waiting when aborted", async () => {
    const baseUrl = await statusServer(() => "plugin");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const limits = { limitMs: 5_000, stallMs: 5_000 };
    await expect(
      wait(baseUrl, gatewayProgress(undefined), limits, { signal: controller.signal }),
    ).rejects.toThrow(/stopped while waiting/);
  });
});
