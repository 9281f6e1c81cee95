import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { admitted, createTestEnv, silentLogger, type TestEnv } from "../aic/testing/local-world.ts";
import { QuietAgents } from "./quiet-agents.ts";

const A = "agent_helper";
const B = "agent_other";
const R = "agent_third"; // stands for a resident: quiet by design
const room = "lobby";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A world whose service tells `quiet` of every call, on a clock the test moves. */
async function quietWorld(file?: string) {
  let now = 0;
  let quiet: QuietAgents | undefined;
  const env = await createTestEnv({ beforeCall: (caller, endpoint) => quiet?.heard(caller, endpoint) });
  quiet = new QuietAgents({
    service: env.service,
    awayAfterMs: 1000,
    leaveAfterMs: 5000,
    exempt: (agentId) => agentId === R,
    nameOf: (agentId) => agentId,
    now: () => now,
    ...(file ? { file } : {}),
    logger: silentLogger,
  });
  const at = (ms: number) => {
    now = ms;
  };
  return { env, quiet, at };
}

/** Ticks the world until `pending` settles (each action it makes waits for a tick). */
async function settle<T>(env: TestEnv, pending: Promise<T>): Promise<T> {
  let done = false;
  void pending.finally(() => {
    done = true;
  });
  while (!done) {
    await admitted();
    env.runtime.stepNow();
  }
  return pending;
}

const entity = (env: TestEnv, agentId: string) => env.world.getEntity(`agt_${agentId}`);
const observe = (env: TestEnv, agentId: string) =>
  settle(env, env.service.call("observe", agentId, { agentId, roomId: room, radius: 64, detail: "lite" }));

describe("quiet agents", () => {
  it("an agent quiet a while is away until its next call; quiet longer, it leaves and its next call brings it back where it stood", async () => {
    const { env, quiet, at } = await quietWorld();
    await env.join(A, B, R);
    const stood = entity(env, A)!.tile;

    at(800);
    const b = await observe(env, B);
    expect(b.status, JSON.stringify(b)).toBe("ok");
    at(1500);
    await settle(env, quiet.sweep());
    expect(entity(env, A)?.away).toBe(true);
    expect(entity(env, B)?.away).toBeUndefined(); // heard 700 ms ago
    expect(entity(env, R)?.away).toBeUndefined(); // exempt

    at(2000);
    const seen = await observe(env, A);
    expect(seen.status).toBe("ok");
    expect(entity(env, A)?.away).toBeUndefined(); // back before its call was answered

    at(7500); // A quiet 5.5 s, B 6.7 s
    await settle(env, quiet.sweep());
    expect(entity(env, A)).toBeUndefined();
    expect(entity(env, B)).toBeUndefined();
    expect(entity(env, R)).toBeDefined();
    expect(Object.keys(quiet.departed()).sort()).toEqual([A, B]);

    const back = await observe(env, A);
    expect(back.status, JSON.stringify(back)).toBe("ok");
    expect(entity(env, A)?.tile).toEqual(stood);
    expect(entity(env, A)?.roomId).toBe(room);
    expect(Object.keys(quiet.departed())).toEqual([B]);

    // Asking to leave is not coming back.
    const left = await settle(env, env.service.call("leave", B, { agentId: B, roomId: room }));
    expect(left.status).not.toBe("ok"); // not in the world: nothing to leave
    expect(entity(env, B)).toBeUndefined();
    expect(quiet.departed()).toEqual({});
  });

  it("a sweep while the agent calls does not take it out: only silence counts", async () => {
    const { env, quiet, at } = await quietWorld();
    await env.join(A);
    for (const t of [900, 1800, 2700, 3600, 4500, 5400, 6300]) {
      at(t);
      expect((await observe(env, A)).status).toBe("ok");
      await settle(env, quiet.sweep());
      expect(entity(env, A)).toBeDefined();
      expect(entity(env, A)?.away).toBeUndefined();
    }
  });

  it("where a departed agent stood is kept across a restart (the file), and read back by the next one", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ocw-quiet-"));
    const file = path.join(dir, "quiet-agents.json");
    const first = await quietWorld(file);
    await first.env.join(A);
    const stood = entity(first.env, A)!.tile;
    first.at(6000);
    await settle(first.env, first.quiet.sweep());
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      departed: { [A]: { roomId: room, tx: stood.tx, ty: stood.ty } },
    });

    const second = await quietWorld(file);
    expect(second.quiet.departed()).toEqual({ [A]: { roomId: room, ...stood } });
    expect((await observe(second.env, A)).status).toBe("ok");
    expect(entity(second.env, A)?.tile).toEqual(stood);
  });

  it("an unreadable file keeps no places and does not stop the world", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ocw-quiet-"));
    const file = path.join(dir, "quiet-agents.json");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, "{ not json");
    const { quiet } = await quietWorld(file);
    expect(quiet.departed()).toEqual({});
  });

  it("sweeps at a tenth of the shorter limit, between 1 and 30 s; never when both are off", () => {
    const make = (awayAfterMs: number, leaveAfterMs: number) =>
      new QuietAgents({
        service: {} as never,
        awayAfterMs,
        leaveAfterMs,
        exempt: () => false,
        nameOf: (id) => id,
        now: () => 0,
        logger: silentLogger,
      }).sweepEveryMs();
    expect(make(300_000, 3_600_000)).toBe(30_000);
    expect(make(60_000, 0)).toBe(6000);
    expect(make(2000, 5000)).toBe(1000);
    expect(make(0, 0)).toBe(0);
  });
});
