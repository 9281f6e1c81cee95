// The scheduler against a real world behind the contract, stepped by hand, with a scripted turn
// runner and a hand clock: who is woken when, what the turn is told, the thinking mark, pacing,
// cancellation and a stuck resident.
import { describe, expect, it } from "vitest";
import type { Actor } from "../aic/service.ts";
import {
  admitted,
  createTestEnv,
  lobbyDefinition,
  ManualClock,
  type TestEnv,
} from "../aic/testing/local-world.ts";
import { type ResidentConfig, ResolvedConfigSchema } from "../config/config.ts";
import { LEADING } from "../world/leading.ts";
import type { WorldDefinition } from "../world/types.ts";
import {
  AWAKE_LINE,
  FAILING_LINE,
  GatewayBusy,
  leadGaveUpLine,
  leadWaitingLine,
  ResidentScheduler,
  type SchedulerDeps,
  SessionStuck,
  TURN_END_GRACE_MS,
  type TurnRequest,
} from "./scheduler.ts";
import { CHORE_RETRY_MS } from "./tending.ts";

const HOME = { tx: 17, ty: 12 };

function residentConfig(overrides: Record<string, unknown> = {}): ResidentConfig {
  const parsed = ResolvedConfigSchema.parse({
    residents: { guide: { name: "Guide", home: HOME, minIntervalSec: 2, maxTurnsPerHour: 3, ...overrides } },
  });
  return parsed.residents.guide!;
}

/** A turn runner whose turns end when the test says; a stubborn one does not end when cancelled
 * (a gateway turn stuck where it does not look at its abort signal). */
function scriptedTurns(stubborn: (n: number) => boolean = () => false) {
  const turns: (TurnRequest & { finish(error?: Error): void })[] = [];
  const runTurn = (turn: TurnRequest) =>
    new Promise<void>((resolve, reject) => {
      const n = turns.length;
      turns.push({ ...turn, finish: (error) => (error ? reject(error) : resolve()) });
      if (!stubborn(n)) turn.signal.addEventListener("abort", () => reject(turn.signal.reason));
    });
  return { turns, runTurn };
}

const ann: Actor = { entityId: "hum_ann00000", kind: "human", name: "Ann", rateKey: "s:ann" };
const bob: Actor = { entityId: "hum_bob00000", kind: "human", name: "Bob", rateKey: "s:bob" };

/** Steps the world until `pending` settles. */
async function settle<T>(env: TestEnv, pending: Promise<T>): Promise<T> {
  let done = false;
  const watched = pending.finally(() => {
    done = true;
  });
  for (let i = 0; i < 20 && !done; i++) {
    await admitted();
    env.runtime.stepNow();
    await admitted();
  }
  return watched;
}

async function setup(
  residents: Record<string, ResidentConfig>,
  asleep?: (id: string) => string | undefined,
  worldMaxTurnsPerHour?: number,
  more: Partial<SchedulerDeps> = {},
  stubborn?: (n: number) => boolean,
  patch?: Partial<WorldDefinition>,
) {
  const env = await createTestEnv({
    agents: (id) => ({ name: residents[id]?.name ?? id }),
    ...(patch ? { patch } : {}),
  });
  const clock = new ManualClock();
  const { turns, runTurn } = scriptedTurns(stubborn);
  const scheduler = new ResidentScheduler({
    service: env.service,
    residents,
    runTurn,
    logger: { info() {}, warn() {} },
    clock: {
      now: () => clock.now,
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
      clearTimeout: (h) => clock.clearTimeout(h),
    },
    ...(asleep ? { asleepReason: asleep } : {}),
    ...(worldMaxTurnsPerHour ? { maxTurnsPerHour: worldMaxTurnsPerHour } : {}),
    ...more,
  });
  await settle(env, scheduler.start());
  const say = (who: Actor, message: string, channel: "proximity" | "global" = "proximity") =>
    settle(env, env.service.act(who, { kind: "chat", channel, message }));
  const place = (who: Actor, tile: { tx: number; ty: number }) =>
    settle(env, env.service.act(who, { kind: "join", roomId: "lobby", at: tile }));
  const thinking = (agentId = "guide") => env.world.getEntity(`agt_${agentId}`)?.thinking === true;
  return { env, clock, turns, scheduler, say, place, thinking };
}

describe("the residents' scheduler", () => {
  it("puts a resident at its home tile when the world starts, awake and not thinking", async () => {
    const { env, scheduler, thinking } = await setup({ guide: residentConfig() });
    expect(env.world.getEntity("agt_guide")).toMatchObject({
      kind: "agent",
      name: "Guide",
      roomId: "lobby",
      tile: HOME,
    });
    expect(thinking()).toBe(false);
    expect(scheduler.states()).toMatchObject([{ agentId: "guide", state: "awake", pending: 0 }]);
  });

  it("a game it plays wakes it for its move, with the board in words and what the table takes; its own move does not", async () => {
    const table = "obj_cafe_game_table";
    const quiet = { nearby: false, name: false, approach: false };
    const home = { roomId: "town", tx: 6, ty: 8 };
    const { env, clock, turns } = await setup({ guide: residentConfig({ home, wake: quiet }) });
    const guide: Actor = { entityId: "agt_guide", kind: "agent", name: "Guide", rateKey: "a:guide" };
    const use = (who: Actor, action: string, params?: Record<string, unknown>) =>
      settle(
        env,
        env.service.act(who, { kind: "interact", targetId: table, action, ...(params ? { params } : {}) }),
      );
    await settle(env, env.service.act(ann, { kind: "join", roomId: "town", at: { tx: 6, ty: 10 } }));
    await use(guide, "join");
    expect(turns).toHaveLength(0);
    await use(ann, "join");
    expect(turns).toHaveLength(1);
    expect(turns[0]?.prompt).toContain(
      "- Ann (person, 2 tiles) moved at cafe_game_table: it is your move (four-in-a-row, Guide (R, agt_guide) vs Ann (Y, hum_ann00000), move 1, Guide (R) to play; rows top first: ......./......./......./......./......./.......). ocw_interact obj_cafe_game_table: read (Look at the board), play (Drop a piece (column 0-6)), leave (Leave the table)",
    );
    await use(guide, "play", { column: 3 });
    turns[0]?.finish();
    await settle(env, admitted());
    clock.advance(2000);
    await settle(env, admitted());
    expect(turns).toHaveLength(1);
    await use(ann, "play", { column: 4 });
    clock.advance(2000);
    await settle(env, admitted());
    expect(turns).toHaveLength(2);
    expect(turns[1]?.prompt).toContain("move 3, Guide (R) to play");
  });

  it("hello nearby starts its turn on the chat's own tick, with who spoke and what; the mark shows while it runs", async () => {
    const { env, turns, scheduler, say, place, thinking } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 2, ty: HOME.ty });
    await say(ann, "hello");
    expect(turns).toHaveLength(1);
    const chatTick = env.world.tick;
    expect(scheduler.states()[0]?.lastTurn).toMatchObject({
      wokeAtTick: chatTick,
      startedAtTick: chatTick,
      happenings: 1,
    });
    expect(turns[0]?.agentId).toBe("guide");
    expect(turns[0]?.prompt).toContain('Ann (person, 2 tiles) said near you: "hello"');
    await settle(env, admitted());
    expect(thinking()).toBe(true);
    expect(scheduler.states()[0]?.state).toBe("thinking");
    turns[0]?.finish();
    await settle(env, admitted());
    expect(thinking()).toBe(false);
    expect(scheduler.states()[0]).toMatchObject({ state: "awake", turnsLastHour: 1 });
  });

  it("its name said from afar wakes it; speech it does not hear without its name does not", async () => {
    const { turns, say, place } = await setup({ guide: residentConfig() });
    await place(bob, { tx: 40, ty: 25 });
    await say(bob, "anyone here?");
    expect(turns).toHaveLength(0);
    await say(bob, "Guide, where is the garden?");
    expect(turns).toHaveLength(1);
    expect(turns[0]?.prompt).toContain('said your name: "Guide, where is the garden?"');
  });

  it("a turn in flight coalesces: what happens meanwhile goes into one next turn, after the least interval", async () => {
    const { env, clock, turns, say, place } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    await say(ann, "are you there?");
    await say(ann, "hello??");
    expect(turns).toHaveLength(1);
    turns[0]?.finish();
    await settle(env, admitted());
    expect(turns).toHaveLength(1); // the least interval (2 s) has not passed
    clock.advance(2000);
    expect(turns).toHaveLength(2);
    expect(turns[1]?.prompt).toContain('"are you there?"');
    expect(turns[1]?.prompt).toContain('"hello??"');
    expect(turns[1]?.prompt).not.toContain('"hello"\n');
  });

  it("at most maxTurnsPerHour turns: the next waits until the oldest is an hour old", async () => {
    const { env, clock, turns, say, place, scheduler } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    for (let i = 0; i < 3; i++) {
      await say(ann, `hi ${i}`);
      turns[i]?.finish();
      await settle(env, admitted());
      clock.advance(2000);
    }
    expect(turns).toHaveLength(3);
    await say(ann, "one more");
    clock.advance(60_000);
    expect(turns).toHaveLength(3);
    expect(scheduler.states()[0]).toMatchObject({ pending: 1, turnsLastHour: 3 });
    clock.advance(3_600_000);
    expect(turns).toHaveLength(4);
  });

  it("a failed turn is recorded and the next one runs", async () => {
    const { env, clock, turns, say, place, scheduler } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    turns[0]?.finish(new Error("model unreachable"));
    await settle(env, admitted());
    expect(scheduler.states()[0]?.lastTurn?.error).toBe("model unreachable");
    clock.advance(2000);
    await say(ann, "hello again");
    expect(turns).toHaveLength(2);
  });

  it("stop() cancels a running turn through its AbortSignal", async () => {
    const { turns, say, place, scheduler } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    await scheduler.stop();
    expect(turns[0]?.signal.aborted).toBe(true);
  });

  it("stop() lets go of a turn that ignores its cancel well within a reload's 5 s drain", async () => {
    const stuck: TurnRequest[] = [];
    const { clock, say, place, scheduler } = await setup({ guide: residentConfig() }, undefined, undefined, {
      runTurn: (turn) => {
        stuck.push(turn);
        return new Promise<void>(() => {});
      },
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    expect(stuck).toHaveLength(1);
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    expect(stuck[0]!.signal.aborted).toBe(true);
    clock.advance(2000);
    for (let i = 0; i < 10 && !stopped; i++) await admitted();
    expect(stopped).toBe(true);
    await stopping;
  });

  it("a resident without a model sleeps: it stands at home, shown asleep, says why, and is never woken", async () => {
    const { env, turns, say, place, scheduler } = await setup(
      { guide: residentConfig(), sage: residentConfig({ name: "Sage", home: { tx: 30, ty: 25 } }) },
      (id) => (id === "guide" ? "no model is configured" : undefined),
    );
    expect(env.world.getEntity("agt_guide")?.tile).toEqual(HOME);
    // The world's view of it carries the mark the page draws; an awake resident's does not.
    expect(env.world.getEntity("agt_guide")?.asleep).toBe(true);
    expect(env.world.getEntity("agt_sage")?.asleep).toBeUndefined();
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello Guide");
    expect(turns).toHaveLength(0);
    expect(scheduler.states()[0]).toMatchObject({ state: "asleep", reason: "no model is configured" });
  });

  it("readies each awake resident's turns once at the start, one after another, not an asleep one nor one set not to; the status says how it went; a stop cancels it", async () => {
    const readying: { agentId: string; signal: AbortSignal; done(said: string): void }[] = [];
    const prepareTurns = (agentId: string, signal: AbortSignal) =>
      new Promise<string>((done) => readying.push({ agentId, signal, done }));
    const { env, clock, scheduler } = await setup(
      {
        guide: residentConfig(),
        sage: residentConfig({ name: "Sage", home: { tx: 30, ty: 25 } }),
        owl: residentConfig({ name: "Owl", home: { tx: 30, ty: 20 }, prepareTurns: false }),
        mole: residentConfig({ name: "Mole", home: { tx: 25, ty: 20 } }),
      },
      (id) => (id === "mole" ? "no model is configured" : undefined),
      undefined,
      { prepareTurns },
    );
    expect(readying.map((r) => r.agentId)).toEqual(["guide"]);
    clock.advance(1500);
    readying[0]!.done("readied");
    await settle(env, admitted());
    expect(readying.map((r) => r.agentId)).toEqual(["guide", "sage"]);
    const state = (id: string) => scheduler.states().find((s) => s.agentId === id);
    expect(state("guide")?.prepared).toEqual({ ms: 1500, said: "readied" });
    expect(state("sage")?.prepared).toBeUndefined();
    expect(readying[1]!.signal.aborted).toBe(false);
    await scheduler.stop();
    expect(readying[1]!.signal.aborted).toBe(true);
    readying[1]!.done("cancelled");
    await settle(env, admitted());
    expect(readying).toHaveLength(2);
  });

  it("while it is still putting residents in, the status already says which sleep (npm start prints it then)", async () => {
    const env = await createTestEnv({ agents: (id) => ({ name: id }) });
    const clock = new ManualClock();
    const scheduler = new ResidentScheduler({
      service: env.service,
      residents: {
        guide: residentConfig(),
        sage: residentConfig({ name: "Sage", home: { tx: 30, ty: 25 } }),
      },
      runTurn: scriptedTurns().runTurn,
      logger: { info() {}, warn() {} },
      clock: {
        now: () => clock.now,
        setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
        clearTimeout: (h) => clock.clearTimeout(h),
      },
      asleepReason: () => "no model is configured",
    });
    const starting = scheduler.start();
    // Neither has joined yet (the first join waits for a tick): neither is "awake".
    expect(scheduler.states().map((r) => r.state)).toEqual(["asleep", "asleep"]);
    await settle(env, starting);
    expect(scheduler.states().map((r) => r.state)).toEqual(["asleep", "asleep"]);
  });

  it("a resident whose turn never ends blocks nobody else", async () => {
    const sage = { ...residentConfig({ name: "Sage", home: { tx: 30, ty: 25 } }) };
    const { turns, say, place } = await setup({ guide: residentConfig(), sage });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    await place(bob, { tx: 31, ty: 25 });
    await say(bob, "hello Sage");
    await say(ann, "Guide?");
    expect(turns.map((t) => t.agentId)).toEqual(["guide", "sage"]);
  });

  it("called from afar it answers on the room channel; spoken to nearby, nearby", async () => {
    const { env, clock, turns, say, place } = await setup({ guide: residentConfig() });
    await place(bob, { tx: 40, ty: 25 });
    await say(bob, "Guide, where is the garden?");
    expect(turns[0]?.replyChannel).toBe("global");
    expect(turns[0]?.prompt).toContain("on channel global");
    turns[0]?.finish();
    await settle(env, admitted());
    clock.advance(2000);
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    expect(turns[1]?.replyChannel).toBe("proximity");
    expect(turns[1]?.prompt).not.toContain("channel global");
  });

  it("a turn asking its model more than maxModelRequestsPerTurn times is cancelled, and counted", async () => {
    const { env, turns, say, place, scheduler } = await setup({
      guide: residentConfig({ maxModelRequestsPerTurn: 3 }),
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    const runId = turns[0]!.runId;
    scheduler.onModelCall("someone-elses-run", "c0");
    for (let i = 0; i < 3; i++) scheduler.onModelCall(runId, `c${i}`);
    scheduler.onModelCall(runId, "c2"); // told twice about one call: counted once
    expect(turns[0]?.signal.aborted).toBe(false);
    scheduler.onModelCall(runId, "c3");
    expect(turns[0]?.signal.aborted).toBe(true);
    await settle(env, admitted());
    expect(scheduler.states()[0]).toMatchObject({
      state: "awake",
      refused: { modelRequests: 1, timeout: 0 },
      lastTurn: { modelRequests: 4, error: "the turn asked its model more than 3 times" },
    });
  });

  it("a failed model request of its turn is counted with its reason; other runs' are not", async () => {
    const { env, turns, say, place, scheduler } = await setup({ guide: residentConfig() });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    const runId = turns[0]!.runId;
    scheduler.onModelCallEnded("someone-elses-run", { outcome: "error", errorCategory: "server_error" });
    scheduler.onModelCallEnded(runId, { outcome: "completed" });
    scheduler.onModelCallEnded(runId, { outcome: "error", errorCategory: "server_error" });
    scheduler.onModelCallEnded(runId, { outcome: "error", errorCategory: "rate_limit" });
    turns[0]?.finish();
    await settle(env, admitted());
    expect(scheduler.states()[0]?.lastTurn).toMatchObject({
      modelFailures: 2,
      lastModelFailure: "rate_limit",
    });
  });

  it("a turn longer than turnTimeoutSec is cancelled, and counted", async () => {
    const { env, clock, turns, say, place, scheduler } = await setup({
      guide: residentConfig({ turnTimeoutSec: 5 }),
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    clock.advance(5000);
    expect(turns[0]?.signal.aborted).toBe(true);
    await settle(env, admitted());
    expect(scheduler.states()[0]?.refused.timeout).toBe(1);
  });

  it("one talker gets their share of its turns, no more; another person still gets an answer", async () => {
    const { env, clock, turns, say, place, scheduler } = await setup({
      guide: residentConfig({ maxTurnsPerPersonPerHour: 2, maxTurnsPerHour: 10 }),
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await place(bob, { tx: HOME.tx, ty: HOME.ty + 1 });
    for (let i = 0; i < 5; i++) {
      await say(ann, `talk ${i}`);
      turns.at(-1)?.finish();
      await settle(env, admitted());
      clock.advance(2000);
    }
    expect(turns).toHaveLength(2);
    expect(scheduler.states()[0]?.refused.personShare).toBe(3);
    await say(bob, "hello?");
    expect(turns).toHaveLength(3);
    expect(turns[2]?.prompt).toContain('"hello?"');
    // An hour after their turns, the talker is heard again.
    turns[2]?.finish();
    await settle(env, admitted());
    clock.advance(3_600_000);
    await say(ann, "back again");
    expect(turns).toHaveLength(4);
  });

  it("the world-wide budget holds above every resident: a turn beyond it waits, shown in status", async () => {
    const sage = residentConfig({ name: "Sage", home: { tx: 30, ty: 25 } });
    const { env, clock, turns, say, place, scheduler } = await setup(
      { guide: residentConfig(), sage },
      undefined,
      1,
    );
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "hello");
    turns[0]?.finish();
    await settle(env, admitted());
    await place(bob, { tx: 31, ty: 25 });
    await say(bob, "hello Sage");
    expect(turns).toHaveLength(1);
    expect(scheduler.states()[1]).toMatchObject({
      pending: 1,
      waitingFor: "world_budget",
      refused: { worldBudget: 1 },
    });
    expect(scheduler.budget()).toEqual({
      turnsLastHour: 1,
      maxTurnsPerHour: 1,
      talk: { turnsLastHour: 0, maxTurnsPerHour: 0 },
    });
    clock.advance(3_600_000);
    expect(turns.map((t) => t.agentId)).toEqual(["guide", "sage"]);
  });

  it("a fresh conversation session every sessionTurns turns bounds what its model is sent", async () => {
    const { env, clock, turns, say, place } = await setup({
      guide: residentConfig({ sessionTurns: 2, maxTurnsPerHour: 10 }),
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    for (let i = 0; i < 5; i++) {
      await say(ann, `hi ${i}`);
      turns.at(-1)?.finish();
      await settle(env, admitted());
      clock.advance(2000);
    }
    const sessions = turns.map((t) => t.session);
    expect(sessions[0]).toBe(sessions[1]);
    expect(sessions[2]).toBe(sessions[3]);
    expect(new Set(sessions).size).toBe(3);
  });

  it("a gardener that tends plots waters a thirsty one on its own, with someone there, and walks home once alone", async () => {
    const plot = "obj_plot_bed_3";
    const home = { roomId: "garden", tx: 10, ty: 22 };
    const quiet = { nearby: false, name: false, approach: false };
    const fern = residentConfig({ name: "Fern", home, wake: quiet, tends: ["garden_plot"] });
    const { env, turns } = await setup({ fern });
    const ann: Actor = { entityId: "hum_ann00000", kind: "human", name: "Ann", rateKey: "s:ann" };
    await settle(env, env.service.act(ann, { kind: "join", roomId: "garden", at: { tx: 14, ty: 23 } }));
    const planted = await settle(
      env,
      env.service.act(ann, { kind: "interact", targetId: plot, action: "plant" }),
    );
    expect(planted.status).toBe("ok");
    const view = () => env.world.getEntity(plot) && env.world.objectView(plot)!;
    const plantedAt = Number(view()!.state.wateredMs);
    // Nothing to do while the plant has water: it stays home.
    for (let i = 0; i < 20; i++) await settle(env, admitted());
    expect(env.world.getEntity("agt_fern")!.tile).toEqual({ tx: home.tx, ty: home.ty });
    // Half its thirst later it needs water: Fern walks over and waters it, Ann standing by.
    while (!view()!.needs) env.runtime.stepNow();
    const thirstyAt = env.world.serverTsMs;
    for (let i = 0; i < 200 && Number(view()!.state.wateredMs) === plantedAt; i++)
      await settle(env, admitted());
    expect(Number(view()!.state.wateredMs)).toBeGreaterThanOrEqual(thirstyAt);
    expect(view()!.state).toMatchObject({ wilted: false, planterName: "Ann" });
    expect(view()!.needs).toBeUndefined();
    const by = env.world.getEntity("agt_fern")!.tile;
    expect(Math.hypot(by.tx - 13, by.ty - 24)).toBeLessThanOrEqual(2);
    expect(turns).toHaveLength(0); // no model asked: it is the world's rule, done through its doors
    // Ann leaves: alone, Fern goes home.
    await settle(env, env.service.act(ann, { kind: "leave" }));
    for (let i = 0; i < 200 && env.world.getEntity("agt_fern")!.tile.tx !== home.tx; i++)
      await settle(env, admitted());
    expect(env.world.getEntity("agt_fern")!.tile).toEqual({ tx: home.tx, ty: home.ty });
  });

  it("a plot it cannot reach is left for a while and said in the log; once the gate opens it is watered", async () => {
    const plot = "obj_plot_bed_3";
    const gate = "obj_door_garden_gate";
    // Home outside the fenced bed: the gate is the only way in.
    const home = { roomId: "garden", tx: 18, ty: 22 };
    const quiet = { nearby: false, name: false, approach: false };
    const warnings: string[] = [];
    const fern = residentConfig({ name: "Fern", home, wake: quiet, tends: ["garden_plot"] });
    const { env } = await setup({ fern }, undefined, undefined, {
      logger: { info() {}, warn: (line: string) => warnings.push(line) },
    });
    const ann: Actor = { entityId: "hum_ann00000", kind: "human", name: "Ann", rateKey: "s:ann" };
    const use = (targetId: string, action: string) =>
      settle(env, env.service.act(ann, { kind: "interact", targetId, action }));
    await settle(env, env.service.act(ann, { kind: "join", roomId: "garden", at: { tx: 13, ty: 23 } }));
    expect(await use(plot, "plant")).toMatchObject({ status: "ok", data: { outcome: { type: "ok" } } });
    await settle(env, env.service.act(ann, { kind: "leave" }));
    await settle(env, env.service.act(ann, { kind: "join", roomId: "garden", at: { tx: 11, ty: 21 } }));
    await use(gate, "close");
    expect(env.world.objectView(gate)!.state.open).toBe(false);
    await settle(env, env.service.act(ann, { kind: "leave" }));
    while (!env.world.objectView(plot)!.needs) env.runtime.stepNow();
    for (let i = 0; i < 40 && warnings.length === 0; i++) await settle(env, admitted());
    expect(warnings.join("\n")).toContain(`resident fern could not tend ${plot}`);
    expect(env.world.getEntity("agt_fern")!.tile).toEqual({ tx: home.tx, ty: home.ty });
    // Left for a while: no second try at once.
    for (let i = 0; i < 40; i++) await settle(env, admitted());
    expect(warnings).toHaveLength(1);
    // Someone opens the gate; once the while is over, she goes in and waters it.
    await settle(env, env.service.act(ann, { kind: "join", roomId: "garden", at: { tx: 11, ty: 21 } }));
    await use(gate, "open");
    await settle(env, env.service.act(ann, { kind: "leave" }));
    const wateredBefore = Number(env.world.objectView(plot)!.state.wateredMs);
    const retryAt = env.world.serverTsMs + CHORE_RETRY_MS;
    while (env.world.serverTsMs < retryAt) env.runtime.stepNow();
    for (let i = 0; i < 400 && Number(env.world.objectView(plot)!.state.wateredMs) === wateredBefore; i++)
      await settle(env, admitted());
    expect(Number(env.world.objectView(plot)!.state.wateredMs)).toBeGreaterThan(wateredBefore);
  });

  it("a routine walks it to each stop as simulation time passes, and waits while someone is near", async () => {
    const stop = { tx: HOME.tx + 3, ty: HOME.ty };
    const guide = residentConfig({ routine: { everySec: 10, stops: [stop] } });
    const { env, place } = await setup({ guide });
    const at = () => env.world.getEntity("agt_guide")!.tile;
    const stopNow = () => Math.floor(env.world.serverTsMs / 10_000) % 2;
    // Step to the start of a home stretch, then on into the next stop's stretch.
    while (stopNow() !== 0) env.runtime.stepNow();
    for (let i = 0; i < 200 && stopNow() === 0; i++) env.runtime.stepNow();
    await settle(env, admitted());
    for (let i = 0; i < 40 && at().tx !== stop.tx; i++) await settle(env, admitted());
    expect(at()).toEqual(stop);
    // Someone stands by it as the next stretch (home) begins: it stays with them.
    await place(ann, { tx: stop.tx + 1, ty: stop.ty });
    for (let i = 0; i < 200 && stopNow() === 1; i++) env.runtime.stepNow();
    for (let i = 0; i < 10; i++) await settle(env, admitted());
    expect(at()).toEqual(stop);
    // They leave: it walks home.
    await settle(env, env.service.act(ann, { kind: "leave" }));
    for (let i = 0; i < 40 && at().tx !== HOME.tx; i++) await settle(env, admitted());
    expect(at()).toEqual(HOME);
  });

  it("a routine stop in a place that closes: it stands there while open, is shown out at closing and heads home", async () => {
    // The lobby's Reading Corner open 09:00-17:00; the world starts at 16:59:00.
    const def = await lobbyDefinition();
    const lobby = def.rooms.lobby!;
    const regions = lobby.regions.map((r) =>
      r.id === "reading_corner" ? { ...r, hours: { opens: "09:00", closes: "17:00" } } : r,
    );
    const stop = { tx: 6, ty: 27 };
    const guide = residentConfig({ routine: { everySec: 10, stops: [stop] } });
    const { env, turns } = await setup({ guide }, undefined, undefined, {}, undefined, {
      epochMs: Date.parse("2026-02-10T16:59:00Z"),
      rooms: { ...def.rooms, lobby: { ...lobby, regions } },
    });
    const at = () => env.world.getEntity("agt_guide")!.tile;
    const closing = Date.parse("2026-02-10T17:00:00Z");
    for (let i = 0; i < 1000 && (at().tx !== stop.tx || at().ty !== stop.ty); i++)
      await settle(env, admitted());
    expect(at()).toEqual(stop);
    expect(env.world.serverTsMs).toBeLessThan(closing);
    while (env.world.serverTsMs < closing) env.runtime.stepNow();
    expect(env.world.regionsAt("lobby", at()).map((r) => r.id)).not.toContain("reading_corner");
    // Told why, its turn wakes it (and ends); its stop is closed now, so every stretch is home.
    for (let i = 0; i < 20 && turns.length === 0; i++) await settle(env, admitted());
    expect(turns[0]?.prompt).toContain("Reading Corner closes at 17:00: you were shown out.");
    turns[0]?.finish();
    for (let i = 0; i < 1000 && (at().tx !== HOME.tx || at().ty !== HOME.ty); i++) {
      await settle(env, admitted());
      expect(env.world.regionsAt("lobby", at()).map((r) => r.id)).not.toContain("reading_corner");
    }
    expect(at()).toEqual(HOME);
  });

  it("two residents whose routines share a stop never end on one tile: the later stands beside it", async () => {
    const stop = { tx: HOME.tx + 3, ty: HOME.ty };
    const routine = { everySec: 10, stops: [stop] };
    const { env } = await setup({
      guide: residentConfig({ routine }),
      sage: residentConfig({ name: "Sage", home: { tx: HOME.tx + 6, ty: HOME.ty + 2 }, routine }),
    });
    const at = (id: string) => env.world.getEntity(id)!;
    const still = () => at("agt_guide").speed === 0 && at("agt_sage").speed === 0;
    const stopNow = () => Math.floor(env.world.serverTsMs / 10_000) % 2;
    while (stopNow() !== 0) env.runtime.stepNow();
    for (let i = 0; i < 200 && stopNow() === 0; i++) env.runtime.stepNow();
    await settle(env, admitted());
    for (
      let i = 0;
      i < 60 && !(still() && (at("agt_guide").tile.tx === stop.tx || at("agt_sage").tile.tx === stop.tx));
      i++
    )
      await settle(env, admitted());
    for (let i = 0; i < 10; i++) await settle(env, admitted());
    const [guide, sage] = [at("agt_guide").tile, at("agt_sage").tile];
    expect(guide).not.toEqual(sage);
    expect([guide, sage]).toContainEqual(stop);
    for (const tile of [guide, sage])
      expect(Math.max(Math.abs(tile.tx - stop.tx), Math.abs(tile.ty - stop.ty))).toBeLessThanOrEqual(1);
  });

  it("one talking with it from within hearing keeps it from its routine; once they stop, it goes", async () => {
    const stop = { tx: HOME.tx + 3, ty: HOME.ty };
    const guide = residentConfig({
      routine: { everySec: 30, stops: [stop] },
      returnHomeAfterSec: 5,
      minIntervalSec: 0,
      maxTurnsPerHour: 100,
      maxTurnsPerPersonPerHour: 100,
    });
    const { env, turns, say, place } = await setup({ guide });
    const at = () => env.world.getEntity("agt_guide")!.tile;
    const stopNow = () => Math.floor(env.world.serverTsMs / 30_000) % 2;
    const stepFor = (ms: number) => {
      const end = env.world.serverTsMs + ms;
      while (env.world.serverTsMs < end) env.runtime.stepNow();
    };
    const talkFor = async (ms: number) => {
      const end = env.world.serverTsMs + ms;
      while (env.world.serverTsMs < end) {
        await say(ann, "Guide, and then?");
        turns.at(-1)?.finish();
        await settle(env, admitted());
        stepFor(2000);
      }
    };
    // Ann stands beyond "near" (proximity) but within hearing (the chat radius).
    const away = Math.floor(env.world.definition.proximityRadiusTiles) + 1;
    expect(away).toBeLessThan(env.world.definition.chatRadiusTiles);
    while (stopNow() !== 0) env.runtime.stepNow();
    await place(ann, { tx: HOME.tx - away, ty: HOME.ty });
    // She talks with it across the moment its routine moves on, and a while after: it stays.
    for (let i = 0; i < 40 && stopNow() === 0; i++) await talkFor(2000);
    await talkFor(6000);
    await settle(env, admitted());
    expect(at()).toEqual(HOME);
    // She falls silent: after returnHomeAfterSec it goes on to its stop.
    stepFor(5000);
    for (let i = 0; i < 40 && at().tx !== stop.tx; i++) await settle(env, admitted());
    expect(at()).toEqual(stop);
  });

  it("through a portal with someone it is woken to go on; alone for returnHomeAfterSec it walks home through the portal", async () => {
    // Home by the lobby's west portal (1,16), which sets a traveller down in the town at 53,20.
    const home = { tx: 4, ty: 16 };
    const guide = residentConfig({ home, returnHomeAfterSec: 5, minIntervalSec: 0 });
    const { env, turns } = await setup({ guide });
    const self = () => env.world.getEntity("agt_guide")!;
    const guideActor: Actor = { entityId: "agt_guide", kind: "agent", name: "Guide", rateKey: "agent:guide" };
    // A turn sends it onto the portal (as its ocw_move_to would): on the other side it is woken.
    await settle(env, env.service.act(guideActor, { kind: "moveTo", dest: { tx: 1, ty: 16 } }));
    for (let i = 0; i < 60 && turns.length === 0; i++) await settle(env, admitted());
    expect(self().roomId).toBe("town");
    expect(turns).toHaveLength(1);
    expect(turns[0]?.prompt).toContain("You came through the portal into this room");
    expect(turns[0]?.prompt).toContain("in Town at tile 53,20");
    // Its turn walks it on a few tiles, then ends; it stands there, alone.
    await settle(env, env.service.act(guideActor, { kind: "moveTo", dest: { tx: 50, ty: 20 } }));
    turns[0]?.finish();
    for (let i = 0; i < 40 && self().tile.tx !== 50; i++) await settle(env, admitted());
    expect(self().tile).toEqual({ tx: 50, ty: 20 });
    // Not before returnHomeAfterSec of simulation time: then back through the portal, and home.
    const stood = env.world.serverTsMs;
    while (env.world.serverTsMs - stood < 4_000) env.runtime.stepNow();
    await settle(env, admitted());
    expect(self()).toMatchObject({ roomId: "town", tile: { tx: 50, ty: 20 } });
    for (let i = 0; i < 200 && !(self().roomId === "lobby" && self().tile.tx === home.tx); i++)
      await settle(env, admitted());
    expect(self()).toMatchObject({ roomId: "lobby", tile: home });
    // Coming home through the portal woke no turn.
    expect(turns).toHaveLength(1);
  });

  it("one that may walk with someone is told to lead the one who asked (ocw_lead, by entity id)", async () => {
    const { turns, say, place } = await setup({ guide: residentConfig() }, undefined, undefined, {
      mayLead: () => true,
      placesFor: () => [{ name: "Café", tx: 20, ty: 12 }],
    });
    await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
    await say(ann, "Guide, take me to the café");
    expect(turns[0]?.prompt).toContain(`then ocw_lead the place's tile with "${ann.entityId}"`);
  });

  it("walking with someone who falls behind: it says it waits, keeps from its routine while the world's lead waits, gives up politely, then goes home", async () => {
    const guide = residentConfig({ returnHomeAfterSec: 5, minIntervalSec: 0 });
    const { env, place } = await setup({ guide }, undefined, undefined, { mayLead: () => true });
    const self = () => env.world.getEntity("agt_guide")!;
    const guideActor: Actor = { entityId: "agt_guide", kind: "agent", name: "Guide", rateKey: "agent:guide" };
    const heard = (line: string) =>
      env.world
        .chatHistoryFor(ann.entityId, "lobby", 0, 30)
        .filter((m) => m.fromEntityId === "agt_guide" && m.message === line);
    const stepFor = (ms: number) => {
      const end = env.world.serverTsMs + ms;
      while (env.world.serverTsMs < end) env.runtime.stepNow();
    };
    // Ann stands 3 tiles west; it leads her east, and stops once she is more than 4 tiles behind.
    await place(ann, { tx: HOME.tx - 3, ty: HOME.ty });
    expect(env.world.getEntity(ann.entityId)!.tile).toEqual({ tx: HOME.tx - 3, ty: HOME.ty });
    const dest = { tx: HOME.tx + 6, ty: HOME.ty };
    await settle(env, env.service.act(guideActor, { kind: "lead", dest, with: ann.entityId }));
    for (let i = 0; i < 40 && heard(leadWaitingLine("Ann")).length === 0; i++) await settle(env, admitted());
    expect(heard(leadWaitingLine("Ann"))).toHaveLength(1);
    const waitedAt = { tx: HOME.tx + LEADING.behindTiles - 2, ty: HOME.ty };
    expect(self()).toMatchObject({ tile: waitedAt, lead: { with: ann.entityId, state: "waiting" } });
    // Alone well past returnHomeAfterSec, it still waits for her (no routine walk), saying so once.
    stepFor((LEADING.giveUpSec - 5) * 1000);
    await settle(env, admitted());
    expect(self()).toMatchObject({ tile: waitedAt, lead: { state: "waiting" } });
    expect(heard(leadWaitingLine("Ann"))).toHaveLength(1);
    // The world's lead gives up: it says so, politely, and once alone for returnHomeAfterSec walks home.
    stepFor(6_000);
    for (let i = 0; i < 10 && heard(leadGaveUpLine("Ann")).length === 0; i++) await settle(env, admitted());
    expect(heard(leadGaveUpLine("Ann"))).toHaveLength(1);
    expect(self().lead?.state).toBe("left_behind");
    stepFor(6_000);
    for (let i = 0; i < 60 && self().tile.tx !== HOME.tx; i++) await settle(env, admitted());
    expect(self().tile).toEqual(HOME);
  });

  it("two residents meeting exchange a line each within the world's talk budget, shown in status", async () => {
    const talker = { nearby: true, name: true, approach: false, residents: true };
    const guide = residentConfig({ wake: talker, minIntervalSec: 0 });
    const sage = residentConfig({
      name: "Sage",
      home: { tx: HOME.tx + 8, ty: HOME.ty },
      wake: talker,
      minIntervalSec: 0,
    });
    const talkBudget = {
      starts: [],
      maxTurnsPerHour: 2,
      replying: new Set<string>(),
      pairIntervalMs: 1_800_000,
    };
    const { env, turns, scheduler, place } = await setup({ guide, sage }, undefined, undefined, {
      talkBudget,
    });
    const sageActor: Actor = { entityId: "agt_sage", kind: "agent", name: "Sage", rateKey: "agent:sage" };
    const guideActor: Actor = { entityId: "agt_guide", kind: "agent", name: "Guide", rateKey: "agent:guide" };
    // The Sage walks up to the Guide: the Guide (its id sorts first) opens.
    await settle(env, env.service.act(sageActor, { kind: "moveTo", dest: { tx: HOME.tx + 2, ty: HOME.ty } }));
    for (let i = 0; i < 60 && turns.length === 0; i++) await settle(env, admitted());
    expect(turns.map((t) => t.agentId)).toEqual(["guide"]);
    expect(turns[0]?.prompt).toMatch(/- Sage \(AI, \d tiles\), a resident, came near you/);
    await settle(
      env,
      env.service.act(guideActor, { kind: "chat", channel: "proximity", message: "Fine day, Sage!" }),
    );
    turns[0]?.finish();
    await settle(env, admitted());
    expect(turns.map((t) => t.agentId)).toEqual(["guide", "sage"]);
    expect(turns[1]?.prompt).toContain('a resident, said near you: "Fine day, Sage!"');
    // The Sage's reply goes unanswered: the exchange is over.
    await settle(
      env,
      env.service.act(sageActor, { kind: "chat", channel: "proximity", message: "Indeed, Guide." }),
    );
    turns[1]?.finish();
    for (let i = 0; i < 5; i++) await settle(env, admitted());
    expect(turns).toHaveLength(2);
    expect(scheduler.budget().talk).toEqual({
      turnsLastHour: 2,
      maxTurnsPerHour: 2,
      nextAtMs: 3_600_000,
      pairs: [{ between: ["agt_guide", "agt_sage"], nextAtMs: 1_800_000 }],
    });
    // The budget is spent: another resident's words wake it no more this hour (counted); a person's do.
    await settle(
      env,
      env.service.act(guideActor, { kind: "chat", channel: "proximity", message: "One more thing, Sage." }),
    );
    expect(turns).toHaveLength(2);
    expect(scheduler.states()[1]?.refused.talkBudget).toBe(1);
    await place(ann, { tx: HOME.tx + 3, ty: HOME.ty + 1 });
    await settle(env, env.service.act(ann, { kind: "chat", channel: "proximity", message: "hello Sage" }));
    expect(turns.slice(2).map((t) => t.agentId)).toContain("sage");
  });

  it("a remote resident (a wake target) talks with the gateway's within the shared talk budget; a reply goes unanswered", async () => {
    const talker = { nearby: true, name: true, approach: false, residents: true };
    const talk = { starts: [], maxTurnsPerHour: 3, replying: new Set<string>() };
    const remoteIds = new Set(["agt_faraway"]);
    const { env, clock, turns, scheduler } = await setup(
      { guide: residentConfig({ wake: talker, minIntervalSec: 0 }) },
      undefined,
      undefined,
      { talkBudget: talk, otherResidents: () => remoteIds },
    );
    // The remote resident's own scheduler, as src/residents/remote makes one: it joins by itself.
    const faraway: Actor = {
      entityId: "agt_faraway",
      kind: "agent",
      name: "Faraway",
      rateKey: "agent:faraway",
    };
    await settle(
      env,
      env.service.act(faraway, { kind: "join", roomId: "lobby", at: { tx: HOME.tx + 9, ty: HOME.ty } }),
    );
    const wakes = scriptedTurns();
    const remote = new ResidentScheduler({
      service: env.service,
      residents: { faraway: residentConfig({ name: "Faraway", wake: talker, minIntervalSec: 0 }) },
      runTurn: wakes.runTurn,
      joinsItself: true,
      otherResidents: () => scheduler.residentIdSet(),
      talkBudget: talk,
      logger: { info() {}, warn() {} },
      clock: {
        now: () => clock.now,
        setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
        clearTimeout: (h) => clock.clearTimeout(h),
      },
    });
    await settle(env, remote.start());
    const guideActor: Actor = { entityId: "agt_guide", kind: "agent", name: "Guide", rateKey: "agent:guide" };
    const line = (who: Actor, message: string) =>
      settle(env, env.service.act(who, { kind: "chat", channel: "proximity", message }));
    // Faraway walks up and opens (its id sorts first); the Guide answers, within the budget.
    await settle(env, env.service.act(faraway, { kind: "moveTo", dest: { tx: HOME.tx + 2, ty: HOME.ty } }));
    for (let i = 0; i < 60 && wakes.turns.length === 0; i++) await settle(env, admitted());
    expect(wakes.turns[0]?.wokenBy).toMatchObject([{ reason: "resident_near", fromEntityId: "agt_guide" }]);
    await line(faraway, "Greetings from afar, Guide!");
    wakes.turns[0]?.finish();
    await settle(env, admitted());
    expect(turns).toHaveLength(1);
    expect(turns[0]?.prompt).toMatch(
      /- Faraway \(AI, \d tiles\), a resident, said near you: "Greetings from afar, Guide!"/,
    );
    // The Guide's reply wakes Faraway no more (the exchange is over), though another scheduler holds it.
    await line(guideActor, "Welcome, traveller.");
    turns[0]?.finish();
    for (let i = 0; i < 5; i++) await settle(env, admitted());
    expect(wakes.turns).toHaveLength(1);
    // The hour's turns come back gradually: the next exchange after 2 of 3 an hour's 60 minutes.
    expect(scheduler.budget().talk).toMatchObject({
      turnsLastHour: 2,
      maxTurnsPerHour: 3,
      nextAtMs: 2_400_000,
    });
    clock.advance(2_400_000);
    // Faraway speaks again: the Guide answers, the budget's last turn; its reply goes unanswered, and
    // the budget is spent: Faraway's next line is refused, and counted.
    await line(faraway, "And the café?");
    turns[1]?.finish();
    await settle(env, admitted());
    expect(turns).toHaveLength(2);
    expect(scheduler.budget().talk).toMatchObject({
      turnsLastHour: 3,
      maxTurnsPerHour: 3,
      nextAtMs: 3_600_000,
    });
    await line(guideActor, "Through the west portal.");
    expect(wakes.turns).toHaveLength(1);
    await line(faraway, "Thanks!");
    expect(turns).toHaveLength(2);
    expect(scheduler.states()[0]?.refused.talkBudget).toBe(1);
    await remote.stop();
  });

  it("asleep, it tells one who comes near how to wake it, once an hour each", async () => {
    const hint = "I'm asleep: this world has no model. To wake me, see the README.";
    const { env, place } = await setup({ guide: residentConfig() }, () => "no model", undefined, {
      asleepHint: () => hint,
    });
    const heard = () =>
      env.world
        .chatHistoryFor("hum_ann00000", "lobby", 0, 30)
        .filter((m) => m.fromEntityId === "agt_guide" && m.message === hint);
    await place(ann, { tx: HOME.tx + 2, ty: HOME.ty });
    for (let i = 0; i < 10 && heard().length === 0; i++) await settle(env, admitted());
    expect(heard()).toHaveLength(1);
  });

  it("asleep at the last stop and given a model since, it says to its room that it woke, once", async () => {
    const hint = "I'm asleep: this world has no model. To wake me, see the README.";
    const { env, place, scheduler } = await setup({ guide: residentConfig() }, () => "no model", undefined, {
      asleepHint: () => hint,
    });
    const lines = () =>
      env.world
        .chatHistoryFor("hum_ann00000", "lobby", 0, 30)
        .filter((m) => m.fromEntityId === "agt_guide")
        .map((m) => m.message);
    await place(ann, { tx: HOME.tx + 2, ty: HOME.ty });
    for (let i = 0; i < 10 && lines().length === 0; i++) await settle(env, admitted());
    expect(lines()).toEqual([hint]);
    await scheduler.stop();
    const restart = (asleepReason?: (id: string) => string | undefined) => {
      const next = new ResidentScheduler({
        service: env.service,
        residents: { guide: residentConfig() },
        runTurn: scriptedTurns().runTurn,
        logger: { info() {}, warn() {} },
        ...(asleepReason ? { asleepReason } : {}),
      });
      return settle(env, next.start()).then(() => next);
    };
    // The next start has a model: the line that it woke, after the old one.
    const awake = await restart();
    expect(env.world.getEntity("agt_guide")?.asleep).toBeUndefined();
    expect(lines()).toEqual([hint, AWAKE_LINE]);
    await awake.stop();
    // Awake before too: nothing more is said.
    await (await restart()).stop();
    expect(lines()).toEqual([hint, AWAKE_LINE]);
  });

  describe("recovering from failed turns by itself", () => {
    const heard = (env: TestEnv, line = FAILING_LINE) =>
      env.world
        .chatHistoryFor("hum_ann00000", "lobby", 0, 30)
        .filter((m) => m.fromEntityId === "agt_guide" && m.message === line);

    it("a timed-out turn that does not end when cancelled is let go of: failing, marked, the speaker told; the next wake runs in a fresh session and an answer makes it awake", async () => {
      const { env, clock, turns, say, place, scheduler } = await setup(
        { guide: residentConfig({ turnTimeoutSec: 5 }) },
        undefined,
        undefined,
        {},
        (n) => n === 0,
      );
      await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
      await say(ann, "hello");
      clock.advance(5000);
      expect(turns[0]?.signal.aborted).toBe(true);
      await settle(env, admitted());
      // Cancelled but not ended: still its turn, for the grace.
      expect(scheduler.states()[0]?.state).toBe("thinking");
      clock.advance(TURN_END_GRACE_MS);
      for (let i = 0; i < 10 && heard(env).length === 0; i++) await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({
        state: "failing",
        failing: { sinceMs: 5000 + TURN_END_GRACE_MS, turns: 1 },
        refused: { timeout: 1 },
      });
      expect(scheduler.states()[0]?.failing?.error).toMatch(/longer than 5 s; it did not end within 10 s/);
      expect(env.world.getEntity("agt_guide")?.unwell).toBe(true);
      expect(env.world.getEntity("agt_guide")?.thinking).toBeUndefined();
      expect(heard(env)).toHaveLength(1);

      await say(ann, "hello again");
      expect(turns).toHaveLength(2);
      expect(turns[1]?.session).not.toBe(turns[0]?.session);
      expect(scheduler.states()[0]?.state).toBe("recovering");
      turns[1]?.finish();
      await settle(env, admitted());
      await settle(env, admitted());
      expect(scheduler.states()[0]?.state).toBe("awake");
      expect(scheduler.states()[0]?.failing).toBeUndefined();
      expect(env.world.getEntity("agt_guide")?.unwell).toBeUndefined();
      // The stuck turn ending at last changes nothing.
      turns[0]?.finish(new Error("late"));
      await settle(env, admitted());
      expect(scheduler.states()[0]?.state).toBe("awake");
    });

    it("a turn refused for its held session (claim, admission) is tried again once in a fresh session; refused again it is failing since the first, and the speaker is told (not for the retried one)", async () => {
      const { env, clock, turns, say, place, scheduler } = await setup({
        guide: residentConfig({ maxTurnsPerHour: 10 }),
      });
      await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
      await say(ann, "hello");
      turns[0]?.finish(new SessionStuck("Session s already has an active turn claim"));
      await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({ state: "failing", pending: 1 });
      clock.advance(2000);
      expect(turns).toHaveLength(2);
      expect(turns[1]?.session).not.toBe(turns[0]?.session);
      expect(turns[1]?.prompt).toContain('"hello"');
      expect(scheduler.states()[0]?.state).toBe("recovering");
      turns[1]?.finish(new SessionStuck("Agent database execution admission is closed"));
      for (let i = 0; i < 10 && heard(env).length === 0; i++) await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({
        state: "failing",
        pending: 0,
        failing: {
          sinceMs: 0,
          lastAtMs: 2000,
          turns: 2,
          error: "Agent database execution admission is closed",
        },
      });
      expect(heard(env)).toHaveLength(1);
      clock.advance(60_000);
      expect(turns).toHaveLength(2);
      // The next wake runs in yet another session (the last one was held too); its model failing is
      // one more failure, and the speaker is told again: their words went unanswered again.
      await say(ann, "are you there?");
      expect(turns[2]?.session).not.toBe(turns[1]?.session);
      turns[2]?.finish(new Error("model unreachable"));
      await settle(env, admitted());
      await settle(env, admitted());
      expect(scheduler.states()[0]?.failing).toMatchObject({ turns: 3, error: "model unreachable" });
      expect(heard(env)).toHaveLength(2);
      clock.advance(2000);
      await say(ann, "hello?");
      turns[3]?.finish();
      await settle(env, admitted());
      expect(scheduler.states()[0]?.state).toBe("awake");
    });

    it("a turn a draining gateway refused is tried again 5 s later in the same session, no failure and no pacing spent; refused past its retries it is failing and the speaker told", async () => {
      const { env, clock, turns, say, place, scheduler } = await setup({
        guide: residentConfig({ maxTurnsPerHour: 2 }),
      });
      await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
      await say(ann, "hello");
      turns[0]?.finish(new GatewayBusy("Gateway is draining; new tasks are not accepted"));
      await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({
        state: "awake",
        pending: 1,
        waitingFor: "gateway_busy",
        turnsLastHour: 0,
      });
      expect(scheduler.states()[0]?.failing).toBeUndefined();
      clock.advance(4_000);
      expect(turns).toHaveLength(1);
      clock.advance(1_000);
      expect(turns).toHaveLength(2);
      expect(turns[1]?.session).toBe(turns[0]?.session);
      expect(turns[1]?.prompt).toContain('"hello"');
      turns[1]?.finish();
      await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({ state: "awake", turnsLastHour: 1 });
      expect(heard(env)).toHaveLength(0);
      // A gateway that stays busy: six tries more, then it is a failure, and Ann is told.
      clock.advance(60_000);
      await say(ann, "still there?");
      for (let i = 2; i < 9; i++) {
        turns[i]?.finish(new GatewayBusy("Gateway is draining; new tasks are not accepted"));
        await settle(env, admitted());
        clock.advance(5_000);
      }
      expect(turns).toHaveLength(9);
      for (let i = 0; i < 10 && heard(env).length === 0; i++) await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({ state: "failing", failing: { turns: 1 } });
      expect(heard(env)).toHaveLength(1);
    });

    it("a turn cut at its cap on model requests is no failure: it stays awake", async () => {
      const { env, turns, say, place, scheduler } = await setup({
        guide: residentConfig({ maxModelRequestsPerTurn: 1 }),
      });
      await place(ann, { tx: HOME.tx + 1, ty: HOME.ty });
      await say(ann, "hello");
      scheduler.onModelCall(turns[0]!.runId, "c0");
      scheduler.onModelCall(turns[0]!.runId, "c1");
      await settle(env, admitted());
      expect(scheduler.states()[0]).toMatchObject({ state: "awake", refused: { modelRequests: 1 } });
      expect(env.world.getEntity("agt_guide")?.unwell).toBeUndefined();
    });
  });
});
