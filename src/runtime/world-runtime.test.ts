import { stat } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { World } from "../world/world.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "./load-world-dir.ts";
import { InputQueueFullError, RuntimeUnavailableError, WorldRuntime } from "./world-runtime.ts";

const quietLogger = () => {
  const lines: string[] = [];
  return { lines, info: () => {}, warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
};

const runtimes: WorldRuntime[] = [];
afterEach(() => {
  for (const r of runtimes.splice(0)) r.stop();
});

async function makeRuntime() {
  const logger = quietLogger();
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), logger);
  runtimes.push(runtime);
  return { runtime, logger };
}

describe("WorldRuntime", () => {
  it("applies a submitted input at the next tick and resolves its result", async () => {
    const { runtime } = await makeRuntime();
    const pending = runtime.submit({ kind: "join", entityId: "agt_t", actorKind: "agent", name: "T" });
    const before = runtime.world.tick;
    runtime.stepNow();
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(runtime.world.tick).toBe(before + 1);
    expect(runtime.world.getEntity("agt_t")?.roomId).toBe("lobby");
  });

  it("survives a throwing tick: callers get an error, later ticks still run", async () => {
    const { runtime, logger } = await makeRuntime();
    // The world's step throws once (a bug in a rule): the runtime must survive it.
    vi.spyOn(runtime.world, "step").mockImplementationOnce(() => {
      throw new Error("boom");
    });
    const failed = runtime.submit({ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" });
    runtime.start();
    await expect(failed).rejects.toBeInstanceOf(RuntimeUnavailableError);
    // The loop keeps ticking on its own after the failure.
    const ok = await runtime.submit({ kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" });
    expect(ok.ok).toBe(true);
    const health = runtime.health();
    expect(health.failedTicks).toBe(1);
    // The cause is logged for the operator, never reported in the (public) health.
    expect(JSON.stringify(health)).not.toContain("boom");
    expect(health.running).toBe(true);
    expect(logger.lines.some((l) => l.includes("tick failed: boom"))).toBe(true);
    const tickAfter = runtime.world.tick;
    await vi.waitFor(() => expect(runtime.world.tick).toBeGreaterThan(tickAfter), { timeout: 5000 });
  });

  it("a throwing tick listener is contained and counted", async () => {
    const { runtime } = await makeRuntime();
    let calls = 0;
    runtime.onTick(() => {
      calls += 1;
      throw new Error("listener bug");
    });
    runtime.stepNow();
    runtime.stepNow();
    expect(calls).toBe(2);
    expect(runtime.health().failedListeners).toBe(2);
  });

  it("stop() rejects queued inputs instead of leaving them hanging", async () => {
    const { runtime } = await makeRuntime();
    const pending = runtime.submit({ kind: "join", entityId: "agt_c", actorKind: "agent", name: "C" });
    runtime.stop();
    await expect(pending).rejects.toMatchObject({ code: "room_not_ready" });
  });

  it("refuses inputs beyond its bound with a retryable error instead of growing, and takes them again after a tick", async () => {
    const runtime = new WorldRuntime(
      World.create(await loadWorldDir(BUNDLED_WORLD_DIR)),
      quietLogger(),
      undefined,
      2,
    );
    runtimes.push(runtime);
    const join = (id: string) => runtime.submit({ kind: "join", entityId: id, actorKind: "agent", name: id });
    const accepted = [join("agt_q1"), join("agt_q2")];
    const refused = join("agt_q3");
    await expect(refused).rejects.toBeInstanceOf(InputQueueFullError);
    await expect(refused).rejects.toMatchObject({ retryAfterMs: Math.ceil(runtime.tickMs) });
    expect(runtime.health()).toMatchObject({ queueDepth: 2, refusedInputs: 1 });
    runtime.stepNow();
    for (const result of await Promise.all(accepted)) expect(result.ok).toBe(true);
    // The refused input never entered the world; the queue has room again.
    expect(runtime.world.getEntity("agt_q3")).toBeUndefined();
    const again = join("agt_q3");
    runtime.stepNow();
    expect((await again).ok).toBe(true);
  });

  it("keeps simulation time with the wall clock on a busy event loop: two ticks per turn when behind", async () => {
    // Each tick "costs" a whole tick length on this clock, so the loop is always due again when a
    // tick ends; and each event-loop turn spends 2 ms on I/O callbacks, like a gateway serving
    // requests in its poll phase.
    let offset = 0;
    const now = () => performance.now() + offset;
    const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quietLogger(), now);
    runtimes.push(runtime);
    const step = runtime.world.step.bind(runtime.world);
    vi.spyOn(runtime.world, "step").mockImplementation((inputs) => {
      offset += runtime.tickMs;
      return step(inputs);
    });
    const firstTick = new Promise<void>((ticked) => {
      const off = runtime.onTick(() => {
        off();
        ticked();
      });
    });
    runtime.start();
    await firstTick;
    const tickBefore = runtime.world.tick;
    const turns = 20;
    await new Promise<void>((done) => {
      let left = turns;
      const ioCallback = () => {
        const until = performance.now() + 2;
        while (performance.now() < until);
        if (--left === 0) done();
        else stat(import.meta.filename, ioCallback);
      };
      stat(import.meta.filename, ioCallback);
    });
    const ticks = runtime.world.tick - tickBefore;
    // One tick per turn would give ~20; catching up gives two.
    expect(ticks).toBeGreaterThanOrEqual(turns * 1.5);
    runtime.stop();
    expect(runtime.running).toBe(false);
  });

  it("with an asynchronous journal, answers and events wait for the commit and no tick steps meanwhile", async () => {
    const { runtime } = await makeRuntime();
    const commits: { tick: number; settle(): void }[] = [];
    runtime.journal = {
      commit: (_inputs, result) =>
        new Promise<void>((resolve) => commits.push({ tick: result.tick, settle: resolve })),
      recover: () => runtime.world,
    };
    const heard: number[] = [];
    runtime.onTick((info) => heard.push(info.tick));
    let answered = false;
    const pending = runtime
      .submit({ kind: "join", entityId: "agt_w", actorKind: "agent", name: "W" })
      .then((r) => {
        answered = true;
        return r;
      });
    const first = runtime.stepNow();
    expect(runtime.stepNow()).toBeUndefined(); // the first tick is not durable yet
    await Promise.resolve();
    expect(answered).toBe(false);
    expect(heard).toEqual([]);
    commits[0]!.settle();
    expect((await pending).ok).toBe(true);
    expect(heard).toEqual([first!.tick]);
    expect(runtime.stepNow()?.tick).toBe(first!.tick + 1);
  });

  it("an asynchronous commit refused: callers get a retryable error and a journal that cannot recover stops the runtime", async () => {
    const { runtime, logger } = await makeRuntime();
    runtime.journal = {
      commit: () => Promise.reject(new Error("wrong last sequence")),
      recover: () => {
        throw new Error("deposed");
      },
    };
    runtime.start();
    const pending = runtime.submit({ kind: "join", entityId: "agt_x", actorKind: "agent", name: "X" });
    runtime.stepNow();
    await expect(pending).rejects.toBeInstanceOf(RuntimeUnavailableError);
    expect(runtime.running).toBe(false);
    expect(runtime.health().failedCommits).toBe(1);
    expect(logger.lines.join("\n")).toMatch(/not saved.*wrong last sequence[\s\S]*stopping: deposed/);
  });
});
