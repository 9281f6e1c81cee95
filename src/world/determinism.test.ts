// biome-ignore-all lint/style/noRestrictedImports: this test spawns a second process to compare traces.
import { execFile } from "node:child_process";
import { execPath } from "node:process";
import { fileURLToPath } from "node:url";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import { compareIds } from "./actor.ts";
import { canonicalHash, sha256Hex } from "./snapshot.ts";
import { Crowd } from "./testing/plaza-crowd.ts";
import { runScript, scriptArb, seededScript } from "./testing/scenario.ts";
import { type Input, SNAPSHOT_FORMAT, type WorldDefinition, type WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

const lobbyDir = fileURLToPath(new URL("../../worlds/lobby", import.meta.url));
const lobby = await loadWorldDir(lobbyDir);
// Short retention keeps per-tick snapshot hashing cheap; the rules are the same.
const def: WorldDefinition = {
  ...lobby,
  eventRetention: 150,
  eventRetentionPerRecipient: 10,
  proximityDebounceTicks: 2,
};

function roundTrip(snapshot: WorldSnapshot): WorldSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as WorldSnapshot;
}

describe("determinism", () => {
  it("same seed + same script -> identical trace and snapshot hash at every tick", () => {
    fc.assert(
      fc.property(scriptArb(300), (script) => {
        const a = runScript(World.create(def), script);
        const b = runScript(World.create(def), script);
        expect(b.traceHash).toBe(a.traceHash);
        expect(b.hashes).toEqual(a.hashes);
      }),
      { numRuns: 8 },
    );
  });

  it("a second process produces the same trace hash", async () => {
    const script = seededScript(4242, 600);
    const local = runScript(World.create(lobby), script, 0);
    const here = fileURLToPath(new URL(".", import.meta.url));
    const code = [
      `import { loadWorldDir } from ${JSON.stringify(`${here}../runtime/load-world-dir.ts`)};`,
      `import { World } from ${JSON.stringify(`${here}world.ts`)};`,
      `import { runScript, seededScript } from ${JSON.stringify(`${here}testing/scenario.ts`)};`,
      `const def = await loadWorldDir(${JSON.stringify(lobbyDir)});`,
      "const run = runScript(World.create(def), seededScript(4242, 600), 0);",
      "console.log(JSON.stringify({ trace: run.traceHash, hash: run.world.snapshotHash() }));",
    ].join("\n");
    const stdout = await new Promise<string>((resolve, reject) => {
      // The Node that runs this test (the project's), without npx's own start-up.
      execFile(execPath, ["--input-type=module", "-e", code], { timeout: 60_000 }, (error, out) =>
        error ? reject(error) : resolve(out),
      );
    });
    const line = stdout.trim().split("\n").pop()!;
    expect(JSON.parse(line)).toEqual({ trace: local.traceHash, hash: local.world.snapshotHash() });
  });

  it("the lobby's creatures are in the state compared here: Mochi moves during a script, alike in two runs", () => {
    const walk = () => {
      const world = World.create(lobby);
      // 80 s: past the longest nap it may start with (40 s) into a stretch of wandering.
      return seededScript(4242, 1600).map((tick) => {
        runScript(world, [tick], 0);
        const { tile } = world.getEntity("obj_mochi")!;
        return `${tile.tx},${tile.ty}`;
      });
    };
    const first = walk();
    expect(new Set(first).size).toBeGreaterThan(3);
    expect(walk()).toEqual(first);
  });

  it("the garden's fish are in it too: they swim during a script, alike in two runs, only on water", () => {
    const pond = lobby.rooms.garden!;
    const fish = ["obj_fish_pond_1", "obj_fish_pond_2", "obj_fish_pond_3"];
    const swim = () => {
      const world = World.create(lobby);
      return seededScript(4242, 1600).map((tick) => {
        runScript(world, [tick], 0);
        return fish.map((id) => {
          const { tile } = world.getEntity(id)!;
          expect(pond.water[tile.ty * pond.widthTiles + tile.tx], `${id} at (${tile.tx}, ${tile.ty})`).toBe(
            1,
          );
          return `${tile.tx},${tile.ty}`;
        });
      });
    };
    const first = swim();
    for (let i = 0; i < fish.length; i++) expect(new Set(first.map((at) => at[i])).size).toBeGreaterThan(3);
    expect(swim()).toEqual(first);
  });

  it("snapshot at tick k, restore, run to N == the uninterrupted run (hash at every tick)", () => {
    // 600 ticks: past the event retention (150), the proximity debounce and several walks of the
    // script's moves, so k lands in every kind of state; hashing every tick of 1,500 took ~40 s.
    const ticks = 600;
    fc.assert(
      fc.property(scriptArb(ticks), fc.nat(ticks - 1), (script, k) => {
        const full = runScript(World.create(def), script);
        const head = runScript(World.create(def), script.slice(0, k), 0);
        const restored = World.restore(def, roundTrip(head.world.snapshot()));
        expect(restored.snapshotHash()).toBe(head.world.snapshotHash());
        const tail = runScript(restored, script.slice(k));
        expect(tail.hashes).toEqual(full.hashes.slice(k));
        expect(restored.snapshotHash()).toBe(full.world.snapshotHash());
      }),
      { numRuns: 3 },
    );
  }, 120_000);

  it("a snapshot stays the world at its tick while the world runs on (it shares only what never changes)", () => {
    fc.assert(
      fc.property(scriptArb(600), fc.nat(599), (script, k) => {
        const run = runScript(World.create(def), script.slice(0, k), 0);
        const snap = run.world.snapshot();
        const text = JSON.stringify(snap);
        const hash = canonicalHash(snap);
        runScript(run.world, script.slice(k), 0);
        expect(JSON.stringify(snap)).toBe(text);
        expect(canonicalHash(snap)).toBe(hash);
        // The same text the `canonicalize` package writes: the hashes of stored snapshots still hold.
        expect(sha256Hex(canonicalize(snap)!)).toBe(hash);
      }),
      { numRuns: 10 },
    );
  });

  it("lists proximity pairs in (a, b) id order, and restores them", () => {
    const world = World.create(lobby);
    const crowd = new Crowd(world, 150);
    for (let i = 0; i < 40; i++) world.step(crowd.inputs());
    const pairs = world.snapshot().state.proximity as { a: string; b: string }[];
    expect(pairs.length).toBeGreaterThan(200);
    const byIds = [...pairs].sort((p, q) => compareIds(p.a, q.a) || compareIds(p.b, q.b));
    expect(pairs.map((p) => `${p.a}/${p.b}`)).toEqual(byIds.map((p) => `${p.a}/${p.b}`));
    expect(World.restore(lobby, roundTrip(world.snapshot())).snapshotHash()).toBe(world.snapshotHash());
  });

  it("restore is observationally exact (entities, events, chat, tx, objects)", () => {
    const run = runScript(World.create(def), seededScript(99, 800), 0);
    const world = run.world;
    const copy = World.restore(def, roundTrip(world.snapshot()));
    for (const room of ["lobby", "garden"]) {
      expect(copy.actorsInRoom(room)).toEqual(world.actorsInRoom(room));
      expect(copy.latestSeq(room)).toBe(world.latestSeq(room));
      const latest = world.latestSeq(room);
      for (const id of ["agt_a", "hum_c", "agt_e"]) {
        // From the start, and from cursors a reader may or may not have lost events after.
        for (const after of [0, latest >> 1, latest - 40, latest - 5])
          expect(copy.eventsFor(id, room, after, 1000)).toEqual(world.eventsFor(id, room, after, 1000));
        expect(copy.chatFor(id, room, 0)).toEqual(world.chatFor(id, room, 0));
      }
    }
    for (const id of ["hum_c", "hum_d", "agt_a"]) expect(copy.recordsOf(id)).toEqual(world.recordsOf(id));
    expect(copy.objectView("obj_door_meeting")).toEqual(world.objectView("obj_door_meeting"));
    expect(copy.lookupTx("agt_a:tx_0")).toEqual(world.lookupTx("agt_a:tx_0"));
    expect([copy.tick, copy.serverTsMs]).toEqual([world.tick, world.serverTsMs]);
  });

  it("the Guide's tour replays by tick and restores mid-way: the same records, lines and hashes", () => {
    const person = "hum_c";
    const moves = [
      { kind: "moveTo", entityId: person, dest: { tx: 18, ty: 13 } },
      { kind: "interact", entityId: person, targetId: "obj_guide_tour", action: "start" },
      { kind: "moveTo", entityId: person, dest: { tx: 21, ty: 14 } },
      { kind: "moveTo", entityId: person, dest: { tx: 34, ty: 9 } },
    ] as const;
    /** Each input 120 ticks after the last (every walk above ends within it). */
    const script = (): Input[][] => [
      [{ kind: "join", entityId: person, actorKind: "human", name: "Cy", joinRoomId: "lobby" }],
      ...moves.flatMap((m) => [[m as Input], ...Array.from({ length: 119 }, () => [])]),
    ];
    const run = (world: World, ticks: Input[][]) =>
      ticks.map((inputs) => world.step(inputs) && world.snapshotHash());
    const all = script();
    const full = World.create(def);
    const hashes = run(full, all);
    expect(full.recordsOf(person)).toMatchObject([
      { text: "Tour: 2 of 5 - next: the Flower Bed", active: true },
    ]);
    expect(full.objectView("obj_guide_tour")!.state).toMatchObject({ started: 1, reached: "Town Hall" });
    const k = 250; // after the start, before the Town Hall
    const head = World.create(def);
    run(head, all.slice(0, k));
    const restored = World.restore(def, roundTrip(head.snapshot()));
    expect(run(restored, all.slice(k))).toEqual(hashes.slice(k));
    expect(restored.recordsOf(person)).toEqual(full.recordsOf(person));
    expect(restored.chatFor(person, "lobby", 0)).toEqual(full.chatFor(person, "lobby", 0));
  });

  it("the snapshot hash ignores key order", () => {
    const world = runScript(World.create(def), seededScript(5, 200), 0).world;
    const snap = world.snapshot();
    const shuffle = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(shuffle);
      if (v && typeof v === "object") {
        return Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .reverse()
            .map(([k, x]) => [k, shuffle(x)]),
        );
      }
      return v;
    };
    expect(canonicalHash(shuffle(snap))).toBe(world.snapshotHash());
    expect(world.snapshotHash()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses snapshots of another world, scene or format", () => {
    const snap = World.create(def).snapshot();
    expect(snap.format).toBe(SNAPSHOT_FORMAT);
    expect(() => World.restore(def, { ...snap, world: "other" })).toThrow(SnapshotMismatchError);
    expect(() => World.restore(def, { ...snap, sceneHash: "0".repeat(64) })).toThrow(/scene/);
    expect(() => World.restore(def, { ...snap, format: "v0" as typeof SNAPSHOT_FORMAT })).toThrow(/format/);
    expect(() => World.restore(def, { ...snap, state: { nonsense: true } })).toThrow(SnapshotMismatchError);
  });

  it("refuses drop floors that contradict the rest of the snapshot", () => {
    const snap = runScript(World.create(def), seededScript(7, 300), 0).world.snapshot();
    const withFloors = (edit: (floors: Record<string, unknown>, room: Record<string, unknown>) => void) => {
      const copy = structuredClone(snap) as unknown as {
        state: { rooms: Record<string, Record<string, unknown>> };
      };
      const room = copy.state.rooms.lobby!;
      edit(room.floors as Record<string, unknown>, room);
      return copy as unknown as typeof snap;
    };
    expect(() =>
      World.restore(
        def,
        withFloors((f, r) => (f.roomDropped = (r.lastSeq as number) + 1)),
      ),
    ).toThrow(/after lastSeq/);
    expect(() =>
      World.restore(
        def,
        withFloors((f) => (f.present = [["agt_nobody", 3]])),
      ),
    ).toThrow(/not in the room/);
    expect(() =>
      World.restore(
        def,
        withFloors(
          (f) =>
            (f.departed = [
              ["agt_gone", 2],
              ["agt_gone", 3],
            ]),
        ),
      ),
    ).toThrow(/departed twice/);
    // Without floors (a snapshot from before them) it restores, with its old window.
    const old = withFloors((_, r) => delete r.floors);
    expect(() => World.restore(def, old)).not.toThrow();
  });
});
