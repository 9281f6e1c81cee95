// The replay engine over a recorded run of the real runtime and store: a clean restart and a crash in
// the middle, an operator restore, a history that missed ticks, damage, and retention.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import type { Input } from "../world/types.ts";
import { historyFile, WorldHistory } from "./history.ts";
import { closeWorld, type OpenedWorld, saveWorld } from "./open-world.ts";
import { createCheckpoint, restoreCheckpoint } from "./operator.ts";
import { ReplayError, Replayer, WAYPOINT_TICKS } from "./replay-engine.ts";
import { tickChecksum } from "./store.ts";
import { crashHost, openBundledHost } from "./testing/hosts.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
const hosts: OpenedWorld[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) crash(h);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const storeFileIn = (dir: string) => path.join(dir, "openclawworld", "world.db");

async function open(dir: string, history?: { maxAgeMs: number; maxBytes: number }): Promise<OpenedWorld> {
  const h = await openBundledHost(storeFileIn(dir), {
    storeSync: "normal",
    ...(history ? { history } : {}),
    logger: quiet,
  });
  hosts.push(h);
  return h;
}

const crash = crashHost;

function stop(h: OpenedWorld): void {
  h.runtime.stop();
  closeWorld(h, quiet);
  hosts.splice(hosts.indexOf(h), 1);
}

/** `n` ticks of two agents walking and talking; the live state hash every 7th tick, by tick. */
function play(h: OpenedWorld, n: number, seen: Map<number, string>, salt: string): void {
  for (let i = 0; i < n; i++) {
    const inputs: Input[] = [];
    if (i % 9 === 0)
      inputs.push({ kind: "moveTo", entityId: "agt_a", dest: { tx: 3 + (i % 5), ty: 4 + (i % 3) } });
    if (i % 11 === 0)
      inputs.push({
        kind: "chat",
        entityId: "agt_b",
        channel: "global",
        message: `${salt} ${i}`,
        tx: { key: `tx_${salt}_${i}`, payloadHash: "p" },
      });
    for (const input of inputs) void h.runtime.submit(input);
    h.runtime.stepNow();
    if (h.runtime.world.tick % 7 === 0) seen.set(h.runtime.world.tick, h.runtime.world.snapshotHash());
  }
}

function join(h: OpenedWorld): void {
  void h.runtime.submit({ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" });
  void h.runtime.submit({ kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" });
  h.runtime.stepNow();
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-replay-"));
  dirs.push(dir);
  return dir;
}

describe("replay over a recorded run with a restart and a crash", () => {
  it("every recorded state hash is reproduced, through keyframes, the restart and the crash", async () => {
    const dir = tempDir();
    const seen = new Map<number, string>();
    const a = await open(dir);
    join(a);
    play(a, 120, seen, "first");
    saveWorld(a); // an auto keyframe
    play(a, 60, seen, "second");
    createCheckpoint(a, "middle");
    play(a, 60, seen, "third");
    stop(a); // a clean restart
    const b = await open(dir);
    play(b, 90, seen, "fourth");
    const crashedAt = b.runtime.world.tick;
    crash(b); // a crash: no snapshot at the end
    const c = await open(dir);
    expect(c.runtime.world.tick).toBe(crashedAt);
    play(c, 90, seen, "fifth");

    const history = c.history!;
    const [stretch] = history.stretches();
    expect(history.stretches()).toHaveLength(1);
    expect(stretch!.firstTick).toBe(0);
    expect(stretch!.lastTick).toBe(c.runtime.world.tick);
    expect(stretch!.keyframes.map((k) => k.cause)).toEqual([
      "start",
      "auto",
      "checkpoint",
      "start", // the restart (the clean stop's save at the same tick is the same state)
      "start", // after the crash
    ]);

    // Every keyframe's hash is reproduced by re-simulating from the first one.
    const replay = new Replayer(c.definition, history);
    const end = replay.seek(stretch!.segment, stretch!.lastTick, { verify: true, fromFirstKeyframe: true });
    expect(end.from).toBe(0);
    expect(end.verified.map((v) => v.tick)).toEqual(stretch!.keyframes.slice(1).map((k) => k.tick));
    expect(end.world.snapshotHash()).toBe(c.runtime.world.snapshotHash());

    // Every state the live world had (sampled) is the replayed one, in any order of seeking.
    const ticks = [...seen.keys()].sort((x, y) => x - y);
    const shuffled = [
      ...ticks.filter((_, i) => i % 2 === 1).reverse(),
      ...ticks.filter((_, i) => i % 2 === 0),
    ];
    for (const tick of shuffled)
      expect(replay.seek(stretch!.segment, tick).world.snapshotHash(), `tick ${tick}`).toBe(seen.get(tick));

    // Waypoints: a replayer that keeps them starts later seeks from the states it passed, and shows
    // exactly the same.
    const quick = new Replayer(c.definition, history, { waypoints: true });
    quick.seek(stretch!.segment, stretch!.lastTick, { fromFirstKeyframe: true });
    expect(quick.waypointStats().count).toBe(Math.floor(stretch!.lastTick / WAYPOINT_TICKS));
    const fromWaypoint = quick.seek(stretch!.segment, WAYPOINT_TICKS + 3);
    expect(fromWaypoint.from).toBe(WAYPOINT_TICKS);
    for (const tick of shuffled)
      expect(quick.seek(stretch!.segment, tick).world.snapshotHash(), `tick ${tick}`).toBe(seen.get(tick));

    // Collecting markers steps on from the last position past every keyframe: each tick is told.
    const told: number[] = [];
    const steps = new Replayer(c.definition, history);
    steps.seek(stretch!.segment, 5);
    steps.seek(stretch!.segment, stretch!.lastTick, { onTick: (_, result) => told.push(result.tick) });
    expect(told).toEqual(Array.from({ length: stretch!.lastTick - 5 }, (_, i) => i + 6));
  });

  it("a history that missed the last ticks before a crash takes them back from the store", async () => {
    const dir = tempDir();
    const seen = new Map<number, string>();
    const a = await open(dir);
    join(a);
    play(a, 70, seen, "x");
    const last = a.runtime.world.tick;
    const hashAtCrash = a.runtime.world.snapshotHash();
    crash(a);
    // The history's commit of the last 5 ticks never happened.
    const db = new DatabaseSync(historyFile(storeFileIn(dir)));
    db.prepare("DELETE FROM ticks WHERE tick > ?").run(last - 5);
    db.close();
    const b = await open(dir);
    const segment = b.history!.segment;
    expect(new Replayer(b.definition, b.history!).seek(segment, last).world.snapshotHash()).toBe(hashAtCrash);
  });

  it("an operator restore begins a new timeline; the old one stays replayable", async () => {
    const dir = tempDir();
    const seen = new Map<number, string>();
    const a = await open(dir);
    join(a);
    play(a, 30, seen, "before");
    createCheckpoint(a, "back-here");
    play(a, 40, seen, "after");
    const oldEnd = a.runtime.world.tick;
    const oldHash = a.runtime.world.snapshotHash();
    restoreCheckpoint(a, "back-here");
    play(a, 10, seen, "again");
    const stretches = a.history!.stretches();
    expect(stretches.map((s) => s.segment)).toEqual([0, 1]);
    expect(stretches[1]!.keyframes[0]!.cause).toBe("restore");
    const replay = new Replayer(a.definition, a.history!);
    expect(replay.seek(0, oldEnd).world.snapshotHash()).toBe(oldHash);
    expect(replay.seek(1, a.runtime.world.tick).world.snapshotHash()).toBe(a.runtime.world.snapshotHash());
  });
});

describe("replay refuses what it cannot reproduce", () => {
  it("a tick outside the history, and a record that does not replay to what was logged", async () => {
    const dir = tempDir();
    const a = await open(dir);
    join(a);
    play(a, 40, new Map(), "y");
    const replay = new Replayer(a.definition, a.history!);
    expect(() => replay.seek(0, a.runtime.world.tick + 5)).toThrow(
      expect.objectContaining({ code: "not_recorded" }),
    );
    expect(() => replay.seek(7, 3)).toThrow(ReplayError);
    // A logged input changed (its checksum made to match): the tick's digest no longer does.
    const history = a.history!;
    const [row] = history.rows(0, 9, 10);
    const body = JSON.parse(row!.body) as { inputs: Input[]; digest: string };
    body.inputs = [{ kind: "moveTo", entityId: "agt_a", dest: { tx: 9, ty: 9 } }];
    const text = JSON.stringify(body);
    const db = new DatabaseSync(history.file);
    db.prepare("UPDATE ticks SET body = ?, checksum = ? WHERE tick = 10").run(text, tickChecksum(10, text));
    db.close();
    expect(() => new Replayer(a.definition, history).seek(0, 20)).toThrow(
      expect.objectContaining({ code: "diverged" }),
    );
  });
});

describe("history retention", () => {
  it("is pruned behind a keyframe, by age and by size; what is kept still replays", async () => {
    const dir = tempDir();
    // 20 Hz: 100 ticks are 5 s of simulation time; keep 6 s.
    const a = await open(dir, { maxAgeMs: 6_000, maxBytes: 1024 ** 3 });
    join(a);
    for (let i = 0; i < 4; i++) {
      play(a, 100, new Map(), `r${i}`);
      saveWorld(a);
    }
    const history = a.history!;
    history.prune();
    const [kept] = history.stretches();
    // The oldest kept tick is a keyframe's, and at most 6 s (+ one keyframe's spacing) old.
    expect(kept!.keyframes[0]!.tick).toBe(kept!.firstTick);
    expect(kept!.firstTick).toBeGreaterThan(0);
    expect(kept!.lastTime - kept!.firstTime).toBeLessThanOrEqual(6_000 + 5_000);
    const replay = new Replayer(a.definition, history);
    expect(replay.seek(0, kept!.firstTick).world.tick).toBe(kept!.firstTick);
    expect(replay.seek(0, a.runtime.world.tick).world.snapshotHash()).toBe(a.runtime.world.snapshotHash());
    expect(() => replay.seek(0, kept!.firstTick - 1)).toThrow(
      expect.objectContaining({ code: "not_recorded" }),
    );
    // By size: a bound below what is held cuts down to the newest keyframe.
    const small = WorldHistory.open(
      history.file,
      { world: a.definition.name, sceneHash: a.definition.sceneHash },
      {
        retention: { maxAgeMs: 3_600_000, maxBytes: 1 },
        onProblem: () => {},
      },
    );
    small.prune();
    expect(small.keyframes(0)).toHaveLength(1);
    expect(small.stats()).toMatchObject({ keyframes: 1, segments: 1 });
    small.close();
  });

  it("a history of another world is cleared, and the start says so", async () => {
    const dir = tempDir();
    const a = await open(dir);
    join(a);
    const problems: string[] = [];
    const other = WorldHistory.open(
      historyFile(storeFileIn(dir)),
      { world: "elsewhere", sceneHash: "x" },
      {
        onProblem: (p) => problems.push(p),
      },
    );
    expect(problems[0]).toMatch(/was of world .* not this one: it was cleared/);
    expect(other.stats().ticks).toBe(0);
    other.close();
  });
});
