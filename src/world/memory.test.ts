// biome-ignore-all lint/style/noRestrictedImports: the properties run on the bundled lobby world, loaded from its directory (as determinism.test.ts does).
// Agent memory as world state (issue #12, seed 003 section 3): reflections only by and for the
// reflecting agent, episodes derived by the world, bounds, the trimming weights, and memory through
// snapshot -> restore and replay.
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import {
  EPISODE_IMPORTANCE,
  EPISODE_KINDS,
  type Episode,
  MEMORY_LIMITS,
  type MemoryEntry,
  memoryScore,
  type Reflection,
  selectWorkingMemory,
} from "./memory.ts";
import { smallWorld } from "./testing/fixtures.ts";
import { join, one, run } from "./testing/helpers.ts";
import { commandToInput, runScript, scriptArb } from "./testing/scenario.ts";
import type { Input, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

const lobby = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));
const def = { ...lobby, eventRetention: 150, proximityDebounceTicks: 2 };

interface StoredMemory {
  entityId: string;
  nextId: number;
  reflections: Reflection[];
  episodes: Episode[];
  [key: string]: unknown;
}

function reflect(entityId: string, over: Partial<Extract<Input, { kind: "reflect" }>> = {}): Input {
  return {
    kind: "reflect",
    entityId,
    content: "a thought",
    topics: [],
    sources: [],
    importance: 0.5,
    ...over,
  };
}

describe("reflections", () => {
  it("are stored for the reflecting agent only, with the tick's simulation time and a fresh id", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a"), join("agt_b")]);
    const r = one(world, reflect("agt_a", { content: "b seems shy", topics: ["people"], importance: 0.9 }));
    expect(r).toMatchObject({ ok: true, value: { kind: "reflect", id: expect.stringMatching(/^mem_\d+$/) } });
    const mine = world.memoryOf("agt_a")!.reflections;
    expect(mine).toEqual([
      {
        id: (r as { value: { id: string } }).value.id,
        tsMs: r.serverTsMs,
        content: "b seems shy",
        topics: ["people"],
        sources: [],
        importance: 0.9,
      },
    ]);
    expect(world.memoryOf("agt_b")?.reflections ?? []).toEqual([]);
  });

  it("property: every stored reflection was reflected by that agent, and every accepted one is stored", () => {
    fc.assert(
      fc.property(scriptArb(120), (script) => {
        const world = World.create(def);
        const accepted = new Map<string, string[]>();
        for (const tick of script) {
          const inputs = tick.map((cmd) => commandToInput(def, cmd));
          const result = world.step(inputs);
          inputs.forEach((input, i) => {
            const r = result.results[i]!;
            if (input.kind !== "reflect" || !r.ok || r.replayed) return;
            expect(input.entityId.startsWith("agt_")).toBe(true);
            accepted.set(input.entityId, [...(accepted.get(input.entityId) ?? []), input.content]);
          });
        }
        for (const id of ["agt_a", "agt_b", "agt_e", "hum_c", "hum_d"]) {
          const stored = world.memoryOf(id)?.reflections.map((x) => x.content) ?? [];
          if (id.startsWith("hum_")) expect(world.memoryOf(id)).toBeUndefined();
          // At most 64 reflections are kept; this script stays below that, so all are there in order.
          expect(stored).toEqual(accepted.get(id) ?? []);
          for (const content of stored) expect(content).toContain(`of ${id}`);
        }
      }),
      { numRuns: 12 },
    );
  });

  it("refuses what a reflection may not be (typed bad_request or agent_not_in_room); nothing is stored", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a"), join("hum_h")]);
    const code = (input: Input) => {
      const r = one(world, input);
      return r.ok ? "ok" : r.error.code;
    };
    expect(code(reflect("hum_h"))).toBe("bad_request");
    expect(code(reflect("agt_nobody"))).toBe("agent_not_in_room");
    expect(code(reflect("agt_a", { content: "   " }))).toBe("bad_request");
    expect(code(reflect("agt_a", { content: "x".repeat(MEMORY_LIMITS.contentChars + 1) }))).toBe(
      "bad_request",
    );
    expect(code(reflect("agt_a", { importance: 1.01 }))).toBe("bad_request");
    expect(code(reflect("agt_a", { importance: Number.NaN }))).toBe("bad_request");
    expect(code(reflect("agt_a", { topics: ["has space"] }))).toBe("bad_request");
    expect(code(reflect("agt_a", { topics: ["x", "x"] }))).toBe("bad_request");
    expect(code(reflect("agt_a", { sources: [{ roomId: "nowhere", seq: 1 }] }))).toBe("bad_request");
    expect(code(reflect("agt_a", { sources: [{ roomId: "a", seq: 10_000 }] }))).toBe("bad_request");
    expect(code(reflect("agt_a", { content: "lone \ud800 surrogate" }))).toBe("bad_request");
    expect(world.memoryOf("agt_a")?.reflections).toEqual([]);
    expect(code(reflect("agt_a", { sources: [{ roomId: "a", seq: 1 }], importance: 0 }))).toBe("ok");
  });

  it("keeps at most 64 per agent, evicting the lowest importance × recency, never the new one", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a")]);
    const ids: string[] = [];
    for (let i = 0; i < MEMORY_LIMITS.reflections; i++) {
      const r = one(world, reflect("agt_a", { content: `r${i}`, importance: i === 7 ? 0.1 : 0.8 }));
      ids.push((r as { value: { id: string } }).value.id);
    }
    const over = one(world, reflect("agt_a", { content: "new", importance: 0 }));
    expect(over).toMatchObject({ ok: true, value: { kind: "reflect", evicted: ids[7] } });
    const stored = world.memoryOf("agt_a")!.reflections;
    expect(stored).toHaveLength(MEMORY_LIMITS.reflections);
    expect(stored.map((r) => r.content)).not.toContain("r7");
    expect(stored.at(-1)!.content).toBe("new");
  });
});

describe("episodes", () => {
  it("record what an agent did and perceived (never for humans), bounded to the newest 32", () => {
    const world = World.create(smallWorld({ chat_radius_tiles: 3 }));
    world.step([join("agt_a"), join("agt_b"), join("hum_h")]);
    world.step([{ kind: "chat", entityId: "agt_b", channel: "global", message: "hi a" }]);
    world.step([{ kind: "chat", entityId: "hum_h", channel: "global", message: "hi all" }]);
    const texts = world.memoryOf("agt_a")!.episodes.map((e) => [e.what, e.text]);
    expect(texts).toContainEqual(["heard", "b said: hi a"]);
    expect(texts).toContainEqual(["heard", "h said: hi all"]);
    expect(world.memoryOf("agt_b")!.episodes.map((e) => e.text)).toContain("said: hi a");
    expect(world.memoryOf("hum_h")).toBeUndefined();
    for (let i = 0; i < 40; i++)
      world.step([{ kind: "chat", entityId: "agt_b", channel: "global", message: `m${i}` }]);
    const episodes = world.memoryOf("agt_a")!.episodes;
    expect(episodes).toHaveLength(MEMORY_LIMITS.episodes);
    expect(episodes.at(-1)!.text).toBe("b said: m39");
  });

  it("clip long text to the episode limit", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a"), join("agt_b")]);
    world.step([{ kind: "chat", entityId: "agt_b", channel: "global", message: "y".repeat(400) }]);
    const heard = world.memoryOf("agt_a")!.episodes.find((e) => e.what === "heard")!;
    expect(heard.text).toHaveLength(MEMORY_LIMITS.episodeChars);
    expect(heard.text.endsWith("…")).toBe(true);
  });
});

describe("bounds", () => {
  it("property: under any script every memory stays within its caps and text limits", () => {
    fc.assert(
      fc.property(scriptArb(250), (script) => {
        const world = runScript(World.create(def), script, 0).world;
        for (const id of ["agt_a", "agt_b", "agt_e"]) {
          const memory = world.memoryOf(id);
          if (!memory) continue;
          expect(memory.reflections.length).toBeLessThanOrEqual(MEMORY_LIMITS.reflections);
          expect(memory.episodes.length).toBeLessThanOrEqual(MEMORY_LIMITS.episodes);
          for (const e of memory.episodes) {
            expect(e.text.length).toBeGreaterThan(0);
            expect(e.text.length).toBeLessThanOrEqual(MEMORY_LIMITS.episodeChars);
          }
          for (const r of memory.reflections) {
            expect(r.content.length).toBeLessThanOrEqual(MEMORY_LIMITS.contentChars);
            expect(r.importance).toBeGreaterThanOrEqual(0);
            expect(r.importance).toBeLessThanOrEqual(1);
          }
        }
      }),
      { numRuns: 10 },
    );
  });
});

describe("working memory trimming", () => {
  const reflectionArb = fc.record({
    id: fc.nat(10_000).map((n) => `mem_${n}`),
    tsMs: fc.nat(3_600_000),
    content: fc.constant("r"),
    topics: fc.constant([] as string[]),
    sources: fc.constant([]),
    importance: fc.double({ min: 0, max: 1, noNaN: true }),
  }) as fc.Arbitrary<Reflection>;
  const episodeArb = fc.record({
    id: fc.nat(10_000).map((n) => `mem_${n}`),
    tsMs: fc.nat(3_600_000),
    what: fc.constantFrom(...EPISODE_KINDS),
    text: fc.constant("e"),
  }) as fc.Arbitrary<Episode>;
  const uniqueIds = <T extends { id: string }>(list: T[]) => [
    ...new Map(list.map((x) => [x.id, x])).values(),
  ];

  it("property: keeps the highest scores (importance × weight × recency), oldest first", () => {
    fc.assert(
      fc.property(
        fc.array(reflectionArb, { maxLength: 30 }),
        fc.array(episodeArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 20 }),
        (reflections, episodes, limit) => {
          const ids = new Set(uniqueIds([...reflections, ...episodes]).map((x) => x.id));
          const r = uniqueIds(reflections);
          const e = uniqueIds(episodes).filter((x) => !r.some((y) => y.id === x.id));
          const now = 3_600_000;
          const kept = selectWorkingMemory({ reflections: r, episodes: e }, now, limit);
          expect(kept.length).toBe(Math.min(limit, r.length + e.length));
          expect(ids.size).toBeGreaterThanOrEqual(kept.length);
          const keptIds = new Set(kept.map((k) => k.id));
          const all: MemoryEntry[] = [
            ...r.map((x) => ({ kind: "reflection" as const, ...x })),
            ...e.map((x) => ({ kind: "episode" as const, ...x })),
          ];
          const minKept = Math.min(...kept.map((k) => memoryScore(k, now)));
          for (const entry of all) {
            if (!keptIds.has(entry.id)) expect(memoryScore(entry, now)).toBeLessThanOrEqual(minKept);
          }
          const seqs = kept.map((k) => Number(k.id.slice(4)));
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("property: a reflection weighs twice an episode of the same importance and age", () => {
    fc.assert(
      fc.property(fc.nat(3_600_000), fc.constantFrom(...EPISODE_KINDS), (tsMs, what) => {
        const now = 3_600_000;
        const importance = EPISODE_IMPORTANCE[what];
        const reflection: MemoryEntry = {
          kind: "reflection",
          id: "mem_1",
          tsMs,
          content: "r",
          topics: [],
          sources: [],
          importance,
        };
        const episode: MemoryEntry = { kind: "episode", id: "mem_2", tsMs, what, text: "e" };
        expect(memoryScore(reflection, now)).toBeCloseTo(2 * memoryScore(episode, now), 12);
        // With room for one, the reflection is kept although the episode is newer (higher id).
        const kept = selectWorkingMemory(
          { reflections: [reflection as Reflection], episodes: [episode as Episode] },
          now,
          1,
        );
        expect(kept.map((k) => k.kind)).toEqual(["reflection"]);
      }),
      { numRuns: 100 },
    );
  });
});

describe("memory is world state", () => {
  it("property: snapshot at tick k, restore, run on == the uninterrupted run (memory included)", () => {
    fc.assert(
      fc.property(scriptArb(160), fc.integer({ min: 1, max: 159 }), (script, k) => {
        const whole = runScript(World.create(def), script, 0).world;
        const first = runScript(World.create(def), script.slice(0, k), 0).world;
        const snap = JSON.parse(JSON.stringify(first.snapshot())) as WorldSnapshot;
        const restored = World.restore(def, snap);
        expect(restored.snapshotHash()).toBe(first.snapshotHash());
        runScript(restored, script.slice(k), 0);
        expect(restored.snapshotHash()).toBe(whole.snapshotHash());
        for (const id of ["agt_a", "agt_b", "agt_e"])
          expect(restored.memoryOf(id)).toEqual(whole.memoryOf(id));
      }),
      { numRuns: 8 },
    );
  });

  it("a snapshot without memory (written before memory existed) restores, and hashes the same", () => {
    const world = World.create(smallWorld());
    world.step([join("hum_h")]);
    run(world, 3);
    const snap = world.snapshot();
    expect(snap.state.memory).toBeUndefined();
    const restored = World.restore(world.definition, JSON.parse(JSON.stringify(snap)));
    expect(restored.snapshotHash()).toBe(world.snapshotHash());
    expect(restored.memoryOf("agt_a")).toBeUndefined();
  });

  it("restore refuses a malformed memory (strict like every other part of a snapshot)", () => {
    const world = World.create(smallWorld());
    world.step([join("agt_a")]);
    one(world, reflect("agt_a", { topics: ["t"] }));
    const good = JSON.parse(JSON.stringify(world.snapshot())) as WorldSnapshot;
    expect(() => World.restore(world.definition, structuredClone(good))).not.toThrow();
    const broken = (edit: (memory: StoredMemory[]) => void) => {
      const snap = structuredClone(good);
      edit(snap.state.memory as StoredMemory[]);
      return () => World.restore(world.definition, snap);
    };
    expect(broken((m) => (m[0]!.extra = 1))).toThrow(SnapshotMismatchError);
    expect(broken((m) => (m[0]!.reflections[0]!.importance = 2))).toThrow(/importance/);
    expect(broken((m) => (m[0]!.reflections[0]!.content = "x".repeat(1001)))).toThrow(SnapshotMismatchError);
    expect(broken((m) => (m[0]!.entityId = "hum_a"))).toThrow(SnapshotMismatchError);
    expect(broken((m) => (m[0]!.nextId = 1))).toThrow(/not below nextId/);
    expect(broken((m) => m[0]!.episodes.push({ ...m[0]!.episodes[0]! }))).toThrow(/duplicate id/);
    expect(broken((m) => (m[0]!.reflections[0]!.topics = ["t", "t"]))).toThrow(/repeats a topic/);
    expect(broken((m) => (m[0]!.reflections[0]!.tsMs = 10 ** 12))).toThrow(/future/);
    expect(broken((m) => m.push({ ...m[0]! }))).toThrow(/duplicate memory of/);
    expect(broken((m) => m.splice(0, 1))).toThrow(/empty memory list/);
    expect(broken((m) => (m[0]!.episodes = new Array(33).fill(m[0]!.episodes[0])))).toThrow(
      SnapshotMismatchError,
    );
  });
});
