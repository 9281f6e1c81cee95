// The world service when its store is locked by another process at start (issue #30): it is not set
// aside nor replaced by a fresh world; the service retries with backoff, says so (operator status,
// service health) and starts the saved world once the lock is released.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { until } from "../../test/support/wait.ts";
import { resolveConfig } from "../config/config.ts";
import { BUNDLED_WORLD_DIR } from "../runtime/load-world-dir.ts";
import { storeFile } from "./host.ts";
import { activeHost, processSlot } from "./singleton.ts";
import { operatorStatus } from "./status.ts";
import { createWorldService } from "./world-service.ts";

const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("a store locked by another process at start", () => {
  it("is retried with backoff, reported while it waits, and the saved world starts once it is free", async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "ocw-service-"));
    cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
    const failures: string[] = [];
    const ctx = {
      stateDir,
      logger: { info() {}, warn() {}, error() {} },
      serviceHealth: {
        reportFailure: (error: unknown) => failures.push(String(error)),
        clearFailure: () => failures.splice(0),
      },
    };
    const service = createWorldService(resolveConfig({}), () => {}, { firstMs: 1_000, maxMs: 4_000 });
    cleanup.push(() => service.stop(ctx));

    // A first run leaves a saved world at some tick.
    await service.start(ctx);
    activeHost()!.runtime.stop();
    for (let i = 0; i < 5; i++) activeHost()!.runtime.stepNow();
    const savedTick = activeHost()!.runtime.world.tick;
    await service.stop(ctx);

    const other = new DatabaseSync(storeFile(stateDir));
    other.exec("PRAGMA locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");
    other.exec("COMMIT");
    cleanup.push(() => {
      if (other.isOpen) other.close();
    });

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    await service.start(ctx);
    expect(activeHost()).toBeUndefined();
    expect(processSlot().waiting).toMatchObject({ attempts: 1, nextRetryInMs: 1_000 });
    expect(processSlot().waiting?.reason).toMatch(/locked by another process/);
    expect(failures.join()).toMatch(/locked by another process \(database is locked\); retrying in 1000 ms/);

    // Still locked: the waits double, up to the bound.
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() =>
      expect(processSlot().waiting).toMatchObject({ attempts: 2, nextRetryInMs: 2_000 }),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    await vi.waitFor(() =>
      expect(processSlot().waiting).toMatchObject({ attempts: 3, nextRetryInMs: 4_000 }),
    );
    await vi.advanceTimersByTimeAsync(4_000);
    await vi.waitFor(() =>
      expect(processSlot().waiting).toMatchObject({ attempts: 4, nextRetryInMs: 4_000 }),
    );

    other.close();
    await vi.advanceTimersByTimeAsync(4_000);
    await vi.waitFor(() => expect(activeHost()).toBeDefined());
    const host = activeHost()!;
    expect(processSlot().waiting).toBeUndefined();
    expect(host.origin).toBe("restored");
    expect(host.runtime.world.tick).toBeGreaterThanOrEqual(savedTick);
    expect(host.problems[0]).toMatch(/locked by another process at start; opened at try 5/);
    expect(failures).toEqual([]);
    // Nothing was set aside: the same store file, never a fresh world.
    expect(host.store!.file).toBe(storeFile(stateDir));
  });

  it("a stop while it waits ends the retries", async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "ocw-service-"));
    cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
    const ctx = { stateDir, logger: { info() {}, warn() {}, error() {} } };
    const service = createWorldService(resolveConfig({}), () => {}, { firstMs: 1_000, maxMs: 4_000 });
    await service.start(ctx);
    await service.stop(ctx);
    const other = new DatabaseSync(storeFile(stateDir));
    other.exec("PRAGMA locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");
    other.exec("COMMIT");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    await service.start(ctx);
    expect(processSlot().waiting).toBeDefined();
    await service.stop(ctx);
    other.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(activeHost()).toBeUndefined();
    expect(processSlot().waiting).toBeUndefined();
  });
});

/** A state folder of its own (removed after the case) and a logger that keeps what it is told. */
function setUp() {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "ocw-service-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const log: string[] = [];
  const logger = {
    info: (m: string) => log.push(m),
    warn: (m: string) => log.push(m),
    error: (m: string) => log.push(m),
  };
  return { ctx: { stateDir, logger }, log };
}

describe("a stop that no start follows (a reload the gateway gave up on)", () => {
  it("reopens the saved world by itself, the reason in the operator status and the log, asks the gateway to load the plugin again; a late start takes over", async () => {
    const { ctx, log } = setUp();
    // The world's files lie in the retired generation's copy of the plugin, deleted meanwhile.
    const worldDir = path.join(ctx.stateDir, "generation-copy", "world");
    cpSync(BUNDLED_WORLD_DIR, worldDir, { recursive: true });
    const config = resolveConfig({ world: worldDir });
    const stays: string[] = [];
    const asked: number[] = [];
    const service = createWorldService(config, () => {}, undefined, {
      afterMs: 100,
      staysStopped: () => stays[0],
      gatewayReload: {
        pluginId: "openclawworld",
        ask: async () => {
          asked.push(Date.now());
          return { ok: true, detail: '{"ok":true}', tookMs: 5 };
        },
      },
    });
    await service.start(ctx);
    const first = activeHost()!;
    first.runtime.stop();
    for (let i = 0; i < 5; i++) first.runtime.stepNow();
    const savedTick = first.runtime.world.tick;
    await service.stop(ctx);
    expect(activeHost()).toBeUndefined();
    rmSync(path.dirname(worldDir), { recursive: true, force: true });

    const revived = await until("the world to be reopened", () => activeHost());
    cleanup.push(async () => {
      if (activeHost()) await createWorldService(config, () => {}).stop(ctx);
    });
    expect(revived).not.toBe(first);
    expect(revived.origin).toBe("restored");
    expect(revived.runtime.world.tick).toBeGreaterThanOrEqual(savedTick);
    expect(revived.store!.file).toBe(storeFile(ctx.stateDir));
    const reason = operatorStatus(revived).revived?.reason;
    expect(reason).toMatch(/stopped the world service and started none again within 0.1 s/);
    expect(reason).toContain(config.fingerprint);
    expect(log.join("\n")).toContain(reason);
    await until("the reopened world to tick", () => revived.runtime.world.tick > savedTick);
    expect(revived.definition.sceneHash).toBe(first.definition.sceneHash);
    // Its doors belong to the generation the gateway retired: the plugin asks to be loaded again, once.
    await until("the gateway's answer", () => processSlot().revived?.gatewayReload?.state === "done");
    expect(asked).toHaveLength(1);
    expect(operatorStatus(revived).revived?.gatewayReload).toMatchObject({ state: "done" });
    expect(log.join("\n")).toContain("the gateway loaded the plugin again");

    // The gateway's next generation starts after all (from its own copy of the plugin): it takes the
    // world over, one world per process.
    const next = createWorldService(resolveConfig({}), () => {});
    await next.start(ctx);
    const taken = activeHost()!;
    expect(taken).not.toBe(revived);
    expect(processSlot().revived).toBeUndefined();
    expect(operatorStatus(taken).revived).toBeUndefined();
    expect(taken.runtime.world.tick).toBeGreaterThanOrEqual(revived.runtime.world.tick);
    await next.stop(ctx);
    expect(activeHost()).toBeUndefined();
  });

  it("asks the gateway again when it refuses, three times at most, then names the command in the log", async () => {
    const { ctx, log } = setUp();
    const config = resolveConfig({});
    const answers = [false, true];
    const asked: boolean[] = [];
    const service = createWorldService(config, () => {}, undefined, {
      afterMs: 50,
      staysStopped: () => undefined,
      gatewayReload: {
        pluginId: "openclawworld",
        retryMs: 50,
        ask: async () => {
          const ok = answers[asked.length] ?? false;
          asked.push(ok);
          return ok
            ? { ok, detail: "{}", tookMs: 1 }
            : { ok, detail: "exit code 1: Plugin openclawworld replacement is in progress", tookMs: 1 };
        },
      },
    });
    cleanup.push(async () => {
      processSlot().revival?.cancel();
      if (activeHost()) await createWorldService(config, () => {}).stop(ctx);
    });
    await service.start(ctx);
    await service.stop(ctx);
    await until(
      "the second request to be answered",
      () => processSlot().revived?.gatewayReload?.state === "done",
    );
    expect(asked).toEqual([false, true]);
    expect(log.join("\n")).toContain("replacement is in progress); asking again in 0.05 s");

    // A gateway that keeps refusing: three requests, then the operator is told what to run.
    answers.splice(0, 2, false, false, false);
    asked.length = 0;
    await createWorldService(config, () => {}).start(ctx);
    await service.stop(ctx);
    await until("the third refusal", () => log.some((line) => line.includes("its doors stay refused until")));
    expect(asked).toEqual([false, false, false]);
    expect(processSlot().revived?.gatewayReload?.state).toBe("failed");
    expect(log.join("\n")).toContain("`openclaw plugins reload openclawworld` or a restart");
  });

  it("stays stopped when a start follows in time, or when the gateway config keeps the plugin off", async () => {
    const { ctx, log } = setUp();
    const config = resolveConfig({});
    let stays: string | undefined;
    const service = createWorldService(config, () => {}, undefined, {
      afterMs: 100,
      staysStopped: () => stays,
    });
    cleanup.push(async () => {
      processSlot().revival?.cancel();
      if (activeHost()) await service.stop(ctx);
      processSlot().revival?.cancel();
    });
    await service.start(ctx);
    await service.stop(ctx);
    await service.start(ctx);
    expect(processSlot().revival).toBeUndefined();
    const running = activeHost();
    expect(running).toBeDefined();

    stays = "plugins.entries.openclawworld.enabled is false";
    await service.stop(ctx);
    await until("the revival to decide", () => log.some((line) => line.includes("stays stopped")));
    expect(log.join("\n")).toContain(`the world stays stopped: ${stays}`);
    expect(activeHost()).toBeUndefined();
    expect(processSlot().revived).toBeUndefined();
  });
});

describe("a start that takes longer than the gateway waits for it", () => {
  it("returns once its wait is over and the world goes on opening; a world that fails at once fails its start", async () => {
    const { ctx, log } = setUp();
    // The residents join slowly (a busy machine): they are the last step of opening.
    let joined!: () => void;
    const joining = new Promise<void>((resolve) => {
      joined = resolve;
    });
    let residentsStarted = false;
    const service = createWorldService(
      resolveConfig({}),
      (host) => {
        host.residents = {
          start: async () => {
            await joining;
            residentsStarted = true;
          },
          stop: () => undefined,
        } as unknown as NonNullable<typeof host.residents>;
      },
      undefined,
      undefined,
      50,
    );
    cleanup.push(() => service.stop(ctx));
    await service.start(ctx);
    expect(residentsStarted).toBe(false);
    expect(activeHost()?.runtime.running).toBe(true);
    expect(log.join("\n")).toContain("the world is still opening after 50 ms; it opens on its own");
    joined();
    await until("the opening to end", () => residentsStarted);
    await service.stop(ctx);

    const broken = createWorldService(
      resolveConfig({ world: path.join(ctx.stateDir, "no-such-world") }),
      () => {},
    );
    await expect(broken.start(ctx)).rejects.toThrow(/no-such-world/);
    expect(activeHost()).toBeUndefined();
  });
});
