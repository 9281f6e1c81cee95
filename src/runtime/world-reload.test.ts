import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../test/support/wait.ts";
import { ReplayDesk } from "../plugin/replay-desk.ts";
import { WORLD_NOTICE_ENTITY_ID } from "../world/fit-definition.ts";
import { type FixtureRoom, fixtureFiles, openRoom } from "../world/testing/fixtures.ts";
import { closeWorld, type OpenedWorld, openWorld, saveWorld } from "./open-world.ts";
import { Replayer } from "./replay-engine.ts";
import { type ExportDocument, exportStretch, openExport } from "./replay-export.ts";
import { type ReloadOutcome, reloadWorld } from "./world-reload.ts";

const logger = { info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
const hosts: OpenedWorld[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) {
    h.runtime.stop();
    if (h.store?.isOpen) closeWorld(h, logger);
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function room(wall?: { tx: number; ty: number }, extra: FixtureRoom["objects"] = []): FixtureRoom {
  return {
    id: "a",
    rows: openRoom(16, 10).map((row, y) =>
      wall && y === wall.ty ? `${row.slice(0, wall.tx)}#${row.slice(wall.tx + 1)}` : row,
    ),
    objects: [{ type: "spawn", name: "s1", tx: 3, ty: 3 }, ...extra],
  };
}

function writeWorld(dir: string, files: Map<string, string>): void {
  for (const [name, text] of files) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

async function opened(worldDir: string, stateDir: string): Promise<OpenedWorld> {
  const h = await openWorld({
    worldDir,
    defaultRoomId: "a",
    storeFile: path.join(stateDir, "world.db"),
    storeSync: "normal",
    logger,
  });
  hosts.push(h);
  return h;
}

/** A world of these rooms with its store and replay history, in directories of its own. */
async function recording(rooms: FixtureRoom[]): Promise<{ worldDir: string; h: OpenedWorld }> {
  const worldDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-world-"));
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-state-"));
  dirs.push(worldDir, stateDir);
  writeWorld(worldDir, fixtureFiles(rooms));
  const h = await openWorld({
    worldDir,
    defaultRoomId: "a",
    storeFile: path.join(stateDir, "world.db"),
    storeSync: "normal",
    history: { maxAgeMs: 3_600_000, maxBytes: 64 * 1024 * 1024 },
    logger,
  });
  hosts.push(h);
  return { worldDir, h };
}

/** Steps the world until the reload settles (it waits for the tick that applies it). */
async function settle(h: OpenedWorld, pending: Promise<ReloadOutcome>): Promise<ReloadOutcome> {
  let outcome: ReloadOutcome | undefined;
  void pending.then((o) => {
    outcome = o;
  });
  for (let turns = 0; outcome === undefined && turns < 10_000; turns++) {
    h.runtime.stepNow();
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!outcome) throw new Error("the reload did not settle");
  return outcome;
}

describe("reloading a running world from its directory", () => {
  it("applies a new map at a tick, moves who stands on a new wall, and a restart opens the new world there", async () => {
    const worldDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-world-"));
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-state-"));
    dirs.push(worldDir, stateDir);
    writeWorld(worldDir, fixtureFiles([room()]));
    const h = await opened(worldDir, stateDir);
    const joined = h.runtime.submit({ kind: "join", entityId: "agt_ada", actorKind: "agent", name: "Ada" });
    h.runtime.stepNow();
    expect((await joined).ok).toBe(true);
    const at = { tx: 7, ty: 5 };
    const walk = h.runtime.submit({ kind: "moveTo", entityId: "agt_ada", dest: at });
    for (let i = 0; (i < 200 && h.runtime.world.getEntity("agt_ada")!.speed !== 0) || i < 2; i++)
      h.runtime.stepNow();
    expect((await walk).ok).toBe(true);
    expect(h.runtime.world.getEntity("agt_ada")!.tile).toEqual(at);

    writeWorld(
      worldDir,
      fixtureFiles([room(at, [{ type: "sign", name: "sign_new", tx: 8, ty: 6, props: { text: "New" } }])]),
    );
    const outcome = await settle(h, reloadWorld(h, { worldDir, defaultRoomId: "a" }));
    expect(outcome).toMatchObject({ status: "applied" });
    if (outcome.status !== "applied") return;
    expect(outcome.moved.map((m) => [m.entityId, m.reason])).toEqual([["agt_ada", "blocked"]]);
    const world = h.runtime.world;
    expect(world.isBlocked("a", world.getEntity("agt_ada")!.tile)).toBe(false);
    expect(world.objectView("obj_sign_new")).toBeDefined();
    const told = world
      .eventsFor("agt_ada", "a", 0, 100)
      .events.filter((e) => e.type === "chat.message" && e.payload.fromEntityId === WORLD_NOTICE_ENTITY_ID);
    expect(told).toHaveLength(1);
    expect(h.store!.identity()!.sceneHash).toBe(outcome.sceneHash);
    // The new world's base snapshot, taken at the reload's tick, was stored before the answer.
    expect(h.store!.newestAutoTick()).toBe(outcome.tick);

    // Unchanged files: nothing to do.
    expect((await reloadWorld(h, { worldDir, defaultRoomId: "a" })).status).toBe("unchanged");

    h.runtime.stepNow();
    const tick = world.tick;
    const hash = world.snapshotHash();
    h.runtime.stop();
    closeWorld(h, logger);
    const again = await opened(worldDir, stateDir);
    expect(again.origin).toBe("restored");
    expect(again.definition.sceneHash).toBe(outcome.sceneHash);
    expect(again.runtime.world.tick).toBe(tick);
    expect(again.runtime.world.snapshotHash()).toBe(hash);
  });

  it("a process killed right after the reload's tick, before the new world's first snapshot, restarts on the new files where it was", async () => {
    const { worldDir, h } = await recording([room()]);
    const stateDir = path.dirname(h.store!.file);
    void h.runtime.submit({ kind: "join", entityId: "agt_ada", actorKind: "agent", name: "Ada" });
    void h.runtime.submit({ kind: "moveTo", entityId: "agt_ada", dest: { tx: 7, ty: 5 } });
    for (let i = 0; i < 100; i++) h.runtime.stepNow();
    const before = h.runtime.world.definition.sceneHash;
    writeWorld(worldDir, fixtureFiles([room({ tx: 7, ty: 5 })]));
    const pending = reloadWorld(h, { worldDir, defaultRoomId: "a" });
    await until("the redefine input queued", () => h.runtime.health().queueDepth > 0);
    // From here on synchronous, as a kill: no later turn of the event loop runs before it.
    h.runtime.stepNow();
    expect(h.runtime.world.definition.sceneHash).not.toBe(before);
    expect(h.store!.identity()!.sceneHash).toBe(h.runtime.world.definition.sceneHash);
    expect(h.store!.newestAutoTick()).toBeLessThan(h.runtime.world.tick);
    void h.runtime.submit({ kind: "moveTo", entityId: "agt_ada", dest: { tx: 3, ty: 3 } });
    for (let i = 0; i < 5; i++) h.runtime.stepNow();
    const tick = h.runtime.world.tick;
    const hash = h.runtime.world.snapshotHash();
    h.runtime.stop();
    h.store!.close();
    h.mirror?.close();
    h.history?.close();
    expect((await pending).status).toBe("applied");

    const again = await opened(worldDir, stateDir);
    expect(again.recovery?.problems).toEqual([]);
    expect(again.origin).toBe("restored");
    expect(again.definition.sceneHash).toBe(h.definition.sceneHash);
    expect(again.runtime.world.definition.sceneHash).toBe(h.definition.sceneHash);
    expect(again.runtime.world.tick).toBe(tick);
    expect(again.runtime.world.snapshotHash()).toBe(hash);
    // The replaced definition is kept while the store keeps a snapshot of it (the older of two).
    expect(again.store!.replacedDefinition(before)).toBeDefined();
    again.runtime.stepNow();
    saveWorld(again);
    expect(again.store!.replacedDefinition(before)).toBeUndefined();
  });

  it("the replay crosses the change: from a keyframe of the old scene through the redefine, every keyframe's hash reproduced", async () => {
    const { worldDir, h } = await recording([room()]);
    const seen = new Map<number, string>();
    const play = (ticks: number) => {
      for (let i = 0; i < ticks; i++) {
        if (i % 10 === 0)
          void h.runtime.submit({ kind: "moveTo", entityId: "agt_ada", dest: { tx: 4 + (i % 6), ty: 5 } });
        h.runtime.stepNow();
        seen.set(h.runtime.world.tick, h.runtime.world.snapshotHash());
      }
    };
    void h.runtime.submit({ kind: "join", entityId: "agt_ada", actorKind: "agent", name: "Ada" });
    play(30);
    expect(h.runtime.world.tick).toBeGreaterThanOrEqual(30);
    writeWorld(worldDir, fixtureFiles([room({ tx: 7, ty: 5 })]));
    const outcome = await settle(h, reloadWorld(h, { worldDir, defaultRoomId: "a" }));
    expect(outcome.status).toBe("applied");
    const changedAt = h.runtime.world.tick;
    seen.set(changedAt, h.runtime.world.snapshotHash());
    play(30);

    const history = h.history!;
    const [stretch] = history.stretches();
    expect(stretch!.firstTick).toBe(0);
    const replay = new Replayer(h.definition, history);
    const end = replay.seek(stretch!.segment, stretch!.lastTick, { verify: true, fromFirstKeyframe: true });
    expect(end.from).toBe(0);
    expect(end.world.snapshotHash()).toBe(seen.get(stretch!.lastTick));
    for (const tick of [5, 29, changedAt, changedAt + 3, stretch!.lastTick])
      expect(
        new Replayer(h.definition, history).seek(stretch!.segment, tick).world.snapshotHash(),
        `tick ${tick}`,
      ).toBe(seen.get(tick));

    // As a file: it carries the replaced scene's definition, so it opens here and on a gateway of
    // the new scene without this history; without that definition it is refused, not misread.
    const file = exportStretch(
      h.definition,
      history,
      { segment: stretch!.segment, from: 0, to: stretch!.lastTick },
      {
        label: "across",
        runs: [],
        exportedAt: "2026-02-10T00:00:00Z",
      },
    );
    const replaced = outcome.status === "applied" ? outcome.previousSceneHash : undefined;
    expect(file.definitions?.map((d) => d.sceneHash)).toEqual([replaced]);
    const document = JSON.parse(JSON.stringify(file)) as ExportDocument;
    const here = await openExport(h.definition, document, undefined, (scene) => history.definitionFor(scene));
    const elsewhere = await openExport(h.definition, document);
    for (const opened of [here, elsewhere])
      expect(new Replayer(h.definition, opened).seek(stretch!.segment, 5).world.snapshotHash()).toBe(
        seen.get(5),
      );
    await expect(openExport(h.definition, { ...document, definitions: undefined })).rejects.toMatchObject({
      code: "damaged",
    });
  });

  it("the replay page's frames before the change show the world as defined then: a room since removed, a wall not yet drawn", async () => {
    const roomB: FixtureRoom = {
      id: "b",
      rows: openRoom(8, 6),
      objects: [{ type: "spawn", name: "s2", tx: 2, ty: 2 }],
    };
    const { worldDir, h } = await recording([room(), roomB]);
    void h.runtime.submit({
      kind: "join",
      entityId: "agt_bea",
      actorKind: "agent",
      name: "Bea",
      roomId: "b",
    });
    for (let i = 0; i < 5; i++) h.runtime.stepNow();
    const before = h.runtime.world.tick;
    writeWorld(worldDir, fixtureFiles([room({ tx: 7, ty: 5 })]));
    rmSync(path.join(worldDir, "maps", "b.json"), { force: true });
    const outcome = await settle(h, reloadWorld(h, { worldDir, defaultRoomId: "a" }));
    expect(outcome.status).toBe("applied");
    for (let i = 0; i < 5; i++) h.runtime.stepNow();
    const desk = new ReplayDesk(h.definition, h.history!, () => ({ runs: [], checkpoints: [] }));
    const [stretch] = h.history!.stretches();
    const then = desk.frame(stretch!.segment, before, "b");
    expect(then.room).toMatchObject({ roomId: "b", widthTiles: 8 });
    expect(then.entities.map((e) => e.id)).toEqual(["agt_bea"]);
    expect(() => desk.frame(stretch!.segment, h.runtime.world.tick, "b")).toThrow(/no room "b"/);
    expect(desk.frame(stretch!.segment, h.runtime.world.tick, "a").entities.map((e) => e.id)).toEqual([
      "agt_bea",
    ]);
  });

  it("refuses files that do not load, naming the file and line, and the world runs on unchanged", async () => {
    const worldDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-world-"));
    dirs.push(worldDir);
    writeWorld(worldDir, fixtureFiles([room()]));
    const h = await openWorld({ worldDir, defaultRoomId: "a", storeFile: undefined, logger });
    hosts.push(h);
    const scene = h.runtime.world.definition.sceneHash;
    writeFileSync(path.join(worldDir, "world.toml"), 'name = "testworld"\nversion = \nseed = 7\n');
    const outcome = await reloadWorld(h, { worldDir, defaultRoomId: "a" });
    expect(outcome).toMatchObject({ status: "refused", reason: "invalid", file: "world.toml", line: 2 });
    expect(h.runtime.world.definition.sceneHash).toBe(scene);
  });

  it("refuses a change the running world cannot take live (its name)", async () => {
    const worldDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-world-"));
    dirs.push(worldDir);
    const files = fixtureFiles([room()]);
    writeWorld(worldDir, files);
    const h = await openWorld({ worldDir, defaultRoomId: "a", storeFile: undefined, logger });
    hosts.push(h);
    files.set("world.toml", files.get("world.toml")!.replace('name = "testworld"', 'name = "another"'));
    writeWorld(worldDir, files);
    expect(await reloadWorld(h, { worldDir, defaultRoomId: "a" })).toMatchObject({
      status: "refused",
      reason: "restart",
    });
  });
});
