// Durability of the world across crashes: a host that dies without saving (its process is gone; the
// store file is all that is left) comes back at exactly the last acknowledged tick, and damaged
// records are detected, reported and kept aside while the last good state is used.

import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { smallWorld } from "../world/testing/fixtures.ts";
import type { Input, InputResult } from "../world/types.ts";
import { World } from "../world/world.ts";
import { closeWorld, type OpenedWorld, saveWorld, saveWorldInSlices } from "./open-world.ts";
import { startRun } from "./operator.ts";
import {
  checkStoredSnapshot,
  commitTick,
  parseForeignSnapshot,
  recoverWorld,
  SideTables,
  sessionSpace,
  snapshotEntry,
} from "./persistence.ts";
import { snapshotCopyFile } from "./snapshot-copy.ts";
import { WorldStore } from "./store.ts";
import { corruptSnapshot, corruptTick } from "./testing/damage.ts";
import { crashHost, openBundledHost } from "./testing/hosts.ts";
import { readTickMirror, tickMirrorFile } from "./tick-mirror.ts";

const logger = () => {
  const lines: string[] = [];
  const push = (m: string) => lines.push(m);
  return { lines, info: () => {}, warn: push, error: push };
};

const dirs: string[] = [];
const hosts: OpenedWorld[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) {
    h.runtime.stop();
    h.store?.close();
    h.mirror?.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-durable-"));
  dirs.push(dir);
  return dir;
}

const storeFile = (stateDir: string) => path.join(stateDir, "openclawworld", "world.db");

async function host(stateDir: string, log = logger()): Promise<OpenedWorld> {
  const h = await openBundledHost(storeFile(stateDir), { logger: log });
  hosts.push(h);
  return h;
}

const crash = crashHost;

const tx = (key: string, payloadHash = "p"): Input["tx"] => ({ key, payloadHash });

/** Submits inputs, applies one tick and returns the answers (the acknowledgements). */
async function tick(h: OpenedWorld, inputs: Input[]): Promise<InputResult[]> {
  const pending = inputs.map((i) => h.runtime.submit(i));
  h.runtime.stepNow();
  return Promise.all(pending);
}

describe("crash recovery", () => {
  it("every acknowledged action survives a crash; retries replay, never re-apply", async () => {
    const dir = tempDir();
    const a = await host(dir);
    const acks: InputResult[] = [];
    acks.push(...(await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }])));
    for (let i = 0; i < 10; i++) {
      acks.push(
        ...(await tick(a, [
          { kind: "moveTo", entityId: "agt_a", dest: { tx: 3 + (i % 4), ty: 4 }, tx: tx(`tx_move_${i}`) },
          {
            kind: "chat",
            entityId: "agt_a",
            channel: "global",
            message: `hello ${i}`,
            tx: tx(`tx_chat_${i}`),
          },
        ])),
      );
    }
    expect(acks.every((r) => r.ok)).toBe(true);
    const hashAtCrash = a.runtime.world.snapshotHash();
    const tickAtCrash = a.runtime.world.tick;
    const seqAtCrash = a.runtime.world.latestSeq("lobby");
    crash(a);

    const b = await host(dir);
    expect(b.origin).toBe("restored");
    expect(b.recovery?.problems).toEqual([]);
    expect(b.runtime.world.tick).toBe(tickAtCrash);
    expect(b.runtime.world.snapshotHash()).toBe(hashAtCrash);
    // All 10 chats are there, once each.
    const chats = b.runtime.world.chatFor("agt_a", "lobby", 0).map((m) => m.message);
    expect(chats).toEqual(Array.from({ length: 10 }, (_, i) => `hello ${i}`));
    // Retries return the stored answers (same serverTsMs), and apply nothing new.
    for (let i = 0; i < 10; i++) {
      const stored = b.runtime.world.lookupTx(`tx_chat_${i}`);
      expect(stored?.result).toEqual({ ...acks[2 + i * 2]! });
    }
    const [retry] = await tick(b, [
      { kind: "chat", entityId: "agt_a", channel: "global", message: "hello 3", tx: tx("tx_chat_3") },
    ]);
    expect(retry).toMatchObject({ ok: true, replayed: true, serverTsMs: acks[2 + 3 * 2]!.serverTsMs });
    expect(b.runtime.world.chatFor("agt_a", "lobby", 0)).toHaveLength(10);
    // Sequence numbers continue after the crash, never reused.
    await tick(b, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "after" }]);
    expect(b.runtime.world.latestSeq("lobby")).toBe(seqAtCrash + 1);
  });

  it("agent memory (reflections and episodes) survives a crash: replayed from the tick log, exactly", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [
      { kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" },
      { kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" },
    ]);
    // A snapshot first, so recovery is snapshot + log, not the log alone.
    saveWorld(a);
    const [stored] = await tick(a, [
      {
        kind: "reflect",
        entityId: "agt_a",
        content: "B talks a lot",
        topics: ["people"],
        sources: [{ roomId: "lobby", seq: 1 }],
        importance: 0.9,
        tx: tx("tx_reflect_1"),
      },
      { kind: "chat", entityId: "agt_b", channel: "global", message: "hello A" },
    ]);
    expect(stored).toMatchObject({ ok: true, value: { kind: "reflect" } });
    const memoryAtCrash = a.runtime.world.memoryOf("agt_a");
    expect(memoryAtCrash?.reflections.map((r) => r.content)).toEqual(["B talks a lot"]);
    expect(memoryAtCrash?.episodes.map((e) => e.text)).toContain("B said: hello A");
    const hashAtCrash = a.runtime.world.snapshotHash();
    crash(a);

    const b = await host(dir);
    expect(b.recovery?.problems).toEqual([]);
    expect(b.recovery?.replayedTicks).toBeGreaterThan(0);
    expect(b.runtime.world.snapshotHash()).toBe(hashAtCrash);
    expect(b.runtime.world.memoryOf("agt_a")).toEqual(memoryAtCrash);
    // The retry of the acknowledged reflection replays; the memory does not grow.
    const [retry] = await tick(b, [
      {
        kind: "reflect",
        entityId: "agt_a",
        content: "B talks a lot",
        topics: ["people"],
        sources: [{ roomId: "lobby", seq: 1 }],
        importance: 0.9,
        tx: tx("tx_reflect_1"),
      },
    ]);
    expect(retry).toMatchObject({ ok: true, replayed: true });
    expect(b.runtime.world.memoryOf("agt_a")?.reflections).toHaveLength(1);
  });

  it("a clean stop and a crash right after restart both come back exactly", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    a.runtime.stop();
    closeWorld(a, logger());
    const b = await host(dir);
    await tick(b, [{ kind: "moveTo", entityId: "agt_a", dest: { tx: 5, ty: 5 } }]);
    for (let i = 0; i < 30; i++) b.runtime.stepNow();
    const hash = b.runtime.world.snapshotHash();
    crash(b);
    const c = await host(dir);
    expect(c.runtime.world.snapshotHash()).toBe(hash);
  });

  it("human sessions stored through the session space survive a crash", async () => {
    const dir = tempDir();
    const a = await host(dir);
    sessionSpace(a.store!, "humans").put("tok", { entityId: "hum_x", name: "X" });
    sessionSpace(a.store!, "humans").put("gone", { entityId: "hum_y", name: "Y" });
    sessionSpace(a.store!, "humans").delete("gone");
    crash(a);
    const b = await host(dir);
    expect(sessionSpace(b.store!, "humans").list()).toEqual([
      { key: "tok", value: { entityId: "hum_x", name: "X" } },
    ]);
  });
});

describe("group commit", () => {
  it("flushes a tick that answers someone; an idle tick is logged without an fsync of its own", () => {
    const dir = tempDir();
    const store = WorldStore.open(path.join(dir, "world.db"));
    try {
      const world = World.create(smallWorld());
      const append = vi.spyOn(store, "appendTick");
      const join: Input = { kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" };
      commitTick(store, [join], world.step([join]));
      commitTick(store, [], world.step([]));
      commitTick(store, [], world.step([]));
      expect(append.mock.calls.map((call) => call[2])).toEqual([true, false, false]);
      // every tick is in the log, and the store is back to fsyncing every commit
      expect(store.ticksAfter(0).map((row) => row.tick)).toEqual([1, 2, 3]);
      expect(store.synchronous).toBe("full");
    } finally {
      store.close();
    }
  });

  it("side rows ride in the tick's transaction; rows settled between ticks make the next tick flush", () => {
    const dir = tempDir();
    const file = path.join(dir, "world.db");
    const store = WorldStore.open(file);
    try {
      const world = World.create(smallWorld());
      const side = new SideTables(store);
      let pending: { key: string; value: unknown }[] = [];
      side.register({ scope: "s", pending: () => pending, written: () => (pending = []) });
      const append = vi.spyOn(store, "appendTick");
      pending = [{ key: "a", value: 1 }];
      commitTick(store, [], world.step([]), side); // idle, but it carries a row: flushed
      commitTick(store, [], world.step([]), side); // idle and nothing to carry
      pending = [{ key: "b", value: 2 }];
      side.settle(); // an answer between ticks: written now, without an fsync...
      expect(pending).toEqual([]);
      commitTick(store, [], world.step([]), side); // ...which the next tick does
      commitTick(store, [], world.step([]), side);
      expect(append.mock.calls.map((call) => call[2])).toEqual([true, false, true, false]);
      pending = [{ key: "a", value: undefined }];
      side.settle();
      expect(side.list("s")).toEqual([{ key: "b", value: 2 }]);
      // A commit that fails keeps its rows pending for the next one.
      pending = [{ key: "c", value: 3 }];
      append.mockImplementationOnce(() => {
        throw new Error("disk full");
      });
      expect(() => commitTick(store, [], world.step([]), side)).toThrow(/disk full/);
      expect(pending).toEqual([{ key: "c", value: 3 }]);
    } finally {
      store.close();
    }
    const reopened = WorldStore.open(file);
    try {
      expect(new SideTables(reopened).list("s")).toEqual([{ key: "b", value: 2 }]);
    } finally {
      reopened.close();
    }
  });
});

describe("corruption", () => {
  it("a flipped byte in a log record is detected and reported; the last good state is used", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "one" }]);
    const goodHash = a.runtime.world.snapshotHash();
    const badTick = a.runtime.world.tick + 1;
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "two" }]);
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "three" }]);
    const row = a.store!.ticksAfter(badTick - 1)[0]!;
    // More than one bit: beyond the single-bit repair.
    corruptTick(a.store!.file, badTick, row.body.replace("two", "tw0"));
    crash(a);
    // The store's own check: without the tick log's second copy (which would replay them, below).
    rmSync(tickMirrorFile(storeFile(dir)));

    const log = logger();
    const b = await host(dir, log);
    expect(b.runtime.world.snapshotHash()).toBe(goodHash);
    expect(b.recovery?.problems.join()).toMatch(new RegExp(`tick ${badTick}: checksum mismatch`));
    expect(b.recovery?.quarantinedTicks).toBe(2);
    expect(log.lines.join("\n")).toMatch(/recovery: tick \d+: checksum mismatch/);
    expect(b.store!.quarantined().map((q) => q.ref)).toEqual([String(badTick), String(badTick + 1)]);
    // No crash loop: the next start is clean and continues from there.
    crash(b);
    const c = await host(dir);
    expect(c.recovery?.problems).toEqual([]);
    expect(c.runtime.world.snapshotHash()).toBe(goodHash);
  });

  it("one flipped bit in a logged tick (on disk) is repaired: neither it nor a later tick is lost", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    for (let i = 0; i < 7; i++)
      await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: `flip-${i}-here` }]);
    const hash = a.runtime.world.snapshotHash();
    const lastTick = a.runtime.world.tick;
    crash(a);
    // Everything into the main file, then one bit of one record's bytes flipped there.
    const file = storeFile(dir);
    const db = new DatabaseSync(file);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    const bytes = readFileSync(file);
    const at = bytes.indexOf("flip-2-here");
    expect(at).toBeGreaterThan(0);
    expect(bytes.indexOf("flip-2-here", at + 1)).toBe(-1);
    bytes[at + 5]! ^= 0x04;
    writeFileSync(file, bytes);

    const b = await host(dir);
    expect(b.runtime.world.tick).toBe(lastTick);
    expect(b.runtime.world.snapshotHash()).toBe(hash);
    expect(b.recovery?.quarantinedTicks).toBe(0);
    expect(b.problems.join()).toMatch(/checksum mismatch; one flipped bit \(byte \d+, bit 2\) was repaired/);
  });

  it("a snapshot whose hash does not match is rejected; the older one plus the log give the exact state", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "before" }]);
    saveWorld(a);
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "after" }]);
    const hash = a.runtime.world.snapshotHash();
    const newest = a.store!.autoSnapshots()[0]!;
    const text = gunzipSync(newest.body as Uint8Array).toString("utf8");
    expect(text).toContain("before");
    corruptSnapshot(a.store!.file, newest.id, gzipSync(text.replace("before", "bef0re")));
    crash(a);

    const b = await host(dir);
    expect(b.recovery?.problems.join()).toMatch(/snapshot #\d+ .* rejected: hash .* does not match/);
    expect(b.recovery?.quarantinedSnapshots).toBe(1);
    expect(b.runtime.world.snapshotHash()).toBe(hash);
  });

  it("a torn WAL tail (without the tick log's second copy) loses only the unfinished commit: the state is an exact earlier tick", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    const hashes = new Map<number, string>();
    for (let i = 0; i < 5; i++) {
      await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: `m${i}` }]);
      hashes.set(a.runtime.world.tick, a.runtime.world.snapshotHash());
    }
    // Copy the files as the disk holds them at the moment of the crash, then tear the WAL's last frame.
    const crashed = path.join(tempDir(), "openclawworld");
    const src = storeFile(dir);
    const dst = path.join(crashed, "world.db");
    mkdirSync(crashed, { recursive: true });
    copyFileSync(src, dst);
    expect(existsSync(`${src}-wal`)).toBe(true);
    copyFileSync(`${src}-wal`, `${dst}-wal`);
    truncateSync(`${dst}-wal`, statSync(`${dst}-wal`).size - 100);
    crash(a);

    const b = await host(path.dirname(crashed));
    expect(hashes.get(b.runtime.world.tick)).toBe(b.runtime.world.snapshotHash());
    expect(b.runtime.world.tick).toBe(Math.max(...hashes.keys()) - 1);
  });

  /** The store's files as the disk holds them at a kill -9 (the WAL not folded in), copied to a new
   * state directory with half the WAL cut off (a disk that tore its tail); `without` leaves those
   * files behind. */
  function tornCopy(dir: string, without: string[] = []): string {
    const crashedDir = tempDir();
    const src = storeFile(dir);
    const dst = storeFile(crashedDir);
    mkdirSync(path.dirname(dst), { recursive: true });
    for (const file of [src, `${src}-wal`, snapshotCopyFile(src), tickMirrorFile(src)]) {
      if (!without.includes(file)) copyFileSync(file, dst + file.slice(src.length));
    }
    truncateSync(`${dst}-wal`, Math.floor(statSync(`${dst}-wal`).size / 2));
    return crashedDir;
  }

  it("a torn write-ahead log is noticed, and the ticks it lost are replayed from the tick log's second copy", async () => {
    const dir = tempDir();
    const a = await host(dir);
    const markers = await tenMarkers(a);
    const hash = a.runtime.world.snapshotHash();
    const lastTick = a.runtime.world.tick;
    const crashedDir = tornCopy(dir);
    crash(a);

    const log = logger();
    const b = await host(crashedDir, log);
    expect(survivors(b, markers)).toEqual(markers);
    expect(b.runtime.world.tick).toBe(lastTick);
    expect(b.runtime.world.snapshotHash()).toBe(hash);
    const loss = b.recovery?.logLoss;
    expect(loss).toMatchObject({ committedTick: lastTick, wentBackTicks: 0 });
    expect(loss!.storeTick).toBeLessThan(lastTick);
    expect(loss!.replayedFromMirror).toBeGreaterThan(0);
    const problems = b.problems.join("\n");
    expect(problems).toMatch(/its write-ahead log lost \d+ ticks at its end/);
    expect(problems).toMatch(/replayed from the second copy: nothing acknowledged was lost/);
    expect(log.lines.join("\n")).toMatch(
      /recovery: the store's log ends at tick \d+, but tick \d+ was committed/,
    );
    // The next start is clean (a new snapshot, a fresh second copy) and the status keeps the story.
    crash(b);
    const c = await host(crashedDir);
    expect(c.recovery?.problems).toEqual([]);
    expect(c.recovery?.logLoss).toBeUndefined();
    expect(c.problems.join("\n")).toMatch(/its write-ahead log lost \d+ ticks/);
    expect(c.runtime.world.snapshotHash()).toBe(hash);
  });

  it("a torn write-ahead log whose snapshot copy is gone too: the start says how far the world went back", async () => {
    const dir = tempDir();
    const a = await host(dir);
    const markers = await tenMarkers(a);
    const lastTick = a.runtime.world.tick;
    const crashedDir = tornCopy(dir, [snapshotCopyFile(storeFile(dir))]);
    crash(a);

    const b = await host(crashedDir);
    const loss = b.recovery!.logLoss!;
    expect(loss.committedTick).toBe(lastTick);
    expect(loss.wentBackTicks).toBe(lastTick - b.runtime.world.tick);
    expect(loss.wentBackTicks).toBeGreaterThan(0);
    expect(survivors(b, markers).length).toBeLessThan(markers.length);
    expect(b.problems.join("\n")).toMatch(
      new RegExp(
        `the world went back ${loss.wentBackTicks} ticks, from tick ${lastTick} to tick ${b.runtime.world.tick}`,
      ),
    );
  });

  it("the tick log's second copy starts afresh at each snapshot, keeping the ticks after it", async () => {
    const dir = tempDir();
    const a = await host(dir);
    await tick(a, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    const saving = saveWorldInSlices(a);
    // Ticks while the periodic snapshot is written: they follow it, so the fresh file keeps them.
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "during" }]);
    expect(await saving).toBe(true);
    await tick(a, [{ kind: "chat", entityId: "agt_a", channel: "global", message: "after" }]);
    const read = readTickMirror(tickMirrorFile(storeFile(dir)));
    if (!read.ok) throw new Error(read.reason);
    expect(read.damage).toBeUndefined();
    expect(read.after + read.rows.length).toBe(a.runtime.world.tick);
    expect(read.after).toBe(a.store!.newestAutoTick());
    expect(read.rows.map((r) => r.body).join()).toContain("after");
  });

  it("a store that is not a database is set aside, reported, and the world starts", async () => {
    const dir = tempDir();
    const file = storeFile(dir);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "this is not sqlite".repeat(100));
    const log = logger();
    const h = await host(dir, log);
    expect(log.lines.join()).toMatch(/is not usable .* kept it at .*damaged/);
    expect(h.runtime.world.tick).toBe(0);
  });

  /** Ten acknowledged chat markers, the first five before a snapshot, the rest in the log only. */
  async function tenMarkers(h: OpenedWorld): Promise<string[]> {
    await tick(h, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    const markers = Array.from({ length: 10 }, (_, i) => `marker-${i}-acknowledged`);
    for (const [i, message] of markers.entries()) {
      if (i === 5) saveWorld(h);
      const [answer] = await tick(h, [{ kind: "chat", entityId: "agt_a", channel: "global", message }]);
      expect(answer?.ok).toBe(true);
    }
    return markers;
  }
  const survivors = (h: OpenedWorld, markers: string[]) => {
    const text = JSON.stringify(h.runtime.world.snapshot());
    return markers.filter((m) => text.includes(m));
  };
  function scramble(file: string, offset: number, length: number): void {
    const fd = openSync(file, "r+");
    const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 151 + 77) & 0xff));
    writeSync(fd, bytes, 0, length, offset);
    closeSync(fd);
  }

  it.each([0, 16, 28, 40])(
    "16 scrambled bytes in the database header (offset %i) lose nothing: the file is read with a rebuilt header",
    async (offset) => {
      const dir = tempDir();
      const a = await host(dir);
      const markers = await tenMarkers(a);
      const hash = a.runtime.world.snapshotHash();
      const run = startRun(a, "before-damage");
      crash(a);
      scramble(storeFile(dir), offset, 16);

      const b = await host(dir);
      expect(survivors(b, markers)).toEqual(markers);
      expect(b.runtime.world.snapshotHash()).toBe(hash);
      expect(b.problems.join("\n")).toMatch(/is not usable .* kept it at .*damaged/);
      expect(b.problems.join("\n")).toMatch(/salvaged \d+ log rows, \d+ snapshots/);
      expect(b.recovery?.problems).toEqual(b.problems);
      expect(b.store!.runs()).toEqual([run]);
      // The next start is clean, from the new store; the status still lists what happened.
      crash(b);
      const c = await host(dir);
      expect(c.recovery?.problems).toEqual([]);
      expect(c.problems).toEqual(b.problems);
      expect(c.runtime.world.snapshotHash()).toBe(hash);
    },
  );

  it.each([
    ["with", 10],
    ["without", 5],
  ])(
    "a store replaced by garbage falls back to the copy of its last snapshot, %s the tick log's second copy, and says so",
    async (mirror, kept) => {
      const dir = tempDir();
      const a = await host(dir);
      const markers = await tenMarkers(a);
      crash(a);
      const file = storeFile(dir);
      writeFileSync(file, Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919) & 0xff)));
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      if (mirror === "without") rmSync(tickMirrorFile(file));

      const b = await host(dir);
      // The five saved before the snapshot; the rest were only in the log of the lost file, and its
      // second copy.
      expect(survivors(b, markers)).toEqual(markers.slice(0, kept));
      expect(b.problems.join("\n")).toMatch(/started from the snapshot copy \(tick \d+\)/);
      expect(b.origin).toBe("restored");
    },
  );

  it("a store that is gone starts from the copy of its last snapshot", async () => {
    const dir = tempDir();
    const a = await host(dir);
    const markers = await tenMarkers(a);
    saveWorld(a);
    crash(a);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(storeFile(dir) + suffix, { force: true });
    const b = await host(dir);
    expect(survivors(b, markers)).toEqual(markers);
  });

  it("a snapshot of another world or format is refused with a clear error", async () => {
    const lobby = (await host(tempDir())).definition;
    const other = World.create(smallWorld()).snapshot();
    expect(parseForeignSnapshot(lobby, other)).toEqual({
      ok: false,
      reason: expect.stringMatching(/snapshot of world .* cannot restore into "lobby"|scene/),
    });
    const wrongFormat = { ...World.create(lobby).snapshot(), format: "something.else" };
    expect(parseForeignSnapshot(lobby, wrongFormat)).toEqual({
      ok: false,
      reason: expect.stringMatching(/format "something.else" is not openclawworld.snapshot.v1/),
    });
    expect(parseForeignSnapshot(lobby, World.create(lobby).snapshot()).ok).toBe(true);
  });
});

describe("journal failure", () => {
  it("a tick that cannot be saved is answered with a retryable error and rolled back", async () => {
    const dir = tempDir();
    const h = await host(dir);
    await tick(h, [{ kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" }]);
    const hash = h.runtime.world.snapshotHash();
    const journal = h.runtime.journal!;
    let fail = true;
    h.runtime.journal = {
      commit: (inputs, result) => {
        if (fail) throw new Error("disk full");
        journal.commit(inputs, result);
      },
      recover: journal.recover,
    };
    const chat: Input = { kind: "chat", entityId: "agt_a", channel: "global", message: "x", tx: tx("tx_x") };
    const pending = h.runtime.submit(chat);
    h.runtime.stepNow();
    await expect(pending).rejects.toMatchObject({ code: "internal" });
    expect(h.runtime.world.snapshotHash()).toBe(hash);
    expect(h.runtime.health().failedCommits).toBe(1);
    fail = false;
    const [retry] = await tick(h, [chat]);
    expect(retry).toMatchObject({ ok: true });
    expect(retry!.replayed).toBeUndefined();
    expect(h.runtime.world.chatFor("agt_a", "lobby", 0)).toHaveLength(1);
  });
});

describe("the periodic snapshot, written over several event-loop turns (saveWorldInSlices)", () => {
  /** A world with some of everything a snapshot holds: actors, chat, memory, idempotent results. */
  async function busyHost(dir: string): Promise<OpenedWorld> {
    const h = await host(dir);
    await tick(h, [
      { kind: "join", entityId: "agt_a", actorKind: "agent", name: "A" },
      { kind: "join", entityId: "agt_b", actorKind: "agent", name: "B" },
    ]);
    saveWorld(h);
    for (let i = 0; i < 5; i++) {
      await tick(h, [
        { kind: "moveTo", entityId: "agt_a", dest: { tx: 3 + i, ty: 4 }, tx: tx(`tx_m${i}`) },
        { kind: "chat", entityId: "agt_b", channel: "global", message: `m${i}`, tx: tx(`tx_c${i}`) },
      ]);
    }
    return h;
  }

  /** Ticks (moving, chatting, leaving) until `saving` settles; how many ran meanwhile. */
  async function tickUntil(h: OpenedWorld, saving: Promise<boolean>): Promise<number> {
    let done = false;
    void saving.finally(() => {
      done = true;
    });
    let ticks = 0;
    while (!done) {
      await tick(h, [
        { kind: "moveTo", entityId: "agt_a", dest: { tx: 3 + (ticks % 5), ty: 6 } },
        {
          kind: "chat",
          entityId: "agt_b",
          channel: "global",
          message: `during ${ticks}`,
          tx: tx(`tx_d${ticks}`),
        },
        ...(ticks === 3 ? [{ kind: "leave", entityId: "agt_b", reason: "disconnect" } as const] : []),
      ]);
      ticks += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return ticks;
  }

  it("stores exactly the world at the tick it was taken, while the world goes on ticking", async () => {
    const dir = tempDir();
    const a = await busyHost(dir);
    const takenAt = a.runtime.world.tick;
    const hashThen = a.runtime.world.snapshotHash();
    const saving = saveWorldInSlices(a, { sliceMs: 0 });
    expect(await tickUntil(a, saving)).toBeGreaterThan(3);
    expect(await saving).toBe(true);
    expect(a.runtime.world.tick).toBeGreaterThan(takenAt + 3);

    const newest = a.store!.autoSnapshots()[0]!;
    expect(newest).toMatchObject({ tick: takenAt, hash: hashThen });
    const check = checkStoredSnapshot(newest);
    expect(check.ok && World.restore(a.runtime.world.definition, check.snapshot).snapshotHash()).toBe(
      hashThen,
    );
    // Recovery: that snapshot plus the ticks logged while it was written give the state at the crash.
    const hashAtCrash = a.runtime.world.snapshotHash();
    const tickAtCrash = a.runtime.world.tick;
    crash(a);
    const b = await host(dir);
    expect(b.recovery?.problems).toEqual([]);
    expect(b.recovery?.base).toEqual({ kind: "snapshot", tick: takenAt, hash: hashThen });
    expect(b.recovery?.replayedTicks).toBe(tickAtCrash - takenAt);
    expect(b.runtime.world.snapshotHash()).toBe(hashAtCrash);
  });

  it("a crash before it is stored leaves the previous snapshot and the log as they were", async () => {
    const dir = tempDir();
    const a = await busyHost(dir);
    const previous = a.store!.autoSnapshots()[0]!;
    const saving = saveWorldInSlices(a, { sliceMs: 0 });
    await tick(a, [{ kind: "chat", entityId: "agt_b", channel: "global", message: "last" }]);
    const hashAtCrash = a.runtime.world.snapshotHash();
    crash(a);
    // The process is gone: what it was writing never reaches the (closed) store.
    expect(await saving).toBe(false);

    const b = await host(dir);
    expect(b.recovery?.problems).toEqual([]);
    expect(b.recovery?.base).toEqual({ kind: "snapshot", tick: previous.tick, hash: previous.hash });
    expect(b.runtime.world.snapshotHash()).toBe(hashAtCrash);
  });

  it("is dropped when a newer snapshot or a new timeline came meanwhile; one at a time", async () => {
    const dir = tempDir();
    const a = await busyHost(dir);
    const first = saveWorldInSlices(a, { sliceMs: 0 });
    expect(await saveWorldInSlices(a)).toBe(false);
    await tick(a, [{ kind: "chat", entityId: "agt_b", channel: "global", message: "newer" }]);
    saveWorld(a); // the shutdown's, at a later tick
    expect(await first).toBe(false);
    expect(a.store!.autoSnapshots()[0]!.tick).toBe(a.runtime.world.tick);

    const second = saveWorldInSlices(a, { sliceMs: 0 });
    const fresh = World.create(a.runtime.world.definition);
    a.store!.resetTimeline(snapshotEntry(fresh.snapshot())); // an operator restore
    expect(await second).toBe(false);
    expect(a.store!.autoSnapshots().map((s) => s.tick)).toEqual([0]);
  });

  it("stores the JSON gzipped; a store written before, with JSON text, still recovers", async () => {
    const dir = tempDir();
    const a = await busyHost(dir);
    expect(await saveWorldInSlices(a)).toBe(true);
    const newest = a.store!.autoSnapshots()[0]!;
    expect(newest.body).toBeInstanceOf(Uint8Array);
    const text = gunzipSync(newest.body as Uint8Array).toString("utf8");
    // The snapshot's own key order (a restored world serializes its records as the live one did).
    expect(text).toBe(JSON.stringify(a.runtime.world.snapshot()));

    // As snapshots were stored before: the JSON as text.
    const snapshot = a.runtime.world.snapshot();
    a.store!.saveAutoSnapshot({ ...snapshotEntry(snapshot), body: JSON.stringify(snapshot) });
    const hash = a.runtime.world.snapshotHash();
    crash(a);
    const b = await host(dir);
    expect(b.recovery?.problems).toEqual([]);
    expect(b.recovery?.base).toEqual({ kind: "snapshot", tick: snapshot.tick, hash });
    expect(b.runtime.world.snapshotHash()).toBe(hash);
  });
});

describe("property: snapshot + log replay is the uninterrupted run", () => {
  const def = smallWorld();
  const actors = ["agt_a", "agt_b", "hum_c"];
  const inputArb: fc.Arbitrary<Input> = fc.oneof(
    fc.constantFrom(...actors).map(
      (id): Input => ({
        kind: "join",
        entityId: id,
        actorKind: id.startsWith("hum") ? "human" : "agent",
        name: id,
      }),
    ),
    fc
      .record({
        id: fc.constantFrom(...actors),
        tx: fc.integer({ min: 0, max: 6 }),
        ty: fc.integer({ min: 0, max: 6 }),
        k: fc.integer({ min: 0, max: 5 }),
      })
      .map(
        ({ id, tx: x, ty: y, k }): Input => ({
          kind: "moveTo",
          entityId: id,
          dest: { tx: x, ty: y },
          tx: tx(`tx_m${k}`, `${x},${y}`),
        }),
      ),
    fc
      .record({
        id: fc.constantFrom(...actors),
        k: fc.integer({ min: 0, max: 5 }),
        m: fc.constantFrom("hi", "yo"),
      })
      .map(
        ({ id, k, m }): Input => ({
          kind: "chat",
          entityId: id,
          channel: "proximity",
          message: m,
          tx: tx(`tx_c${k}`, m),
        }),
      ),
    fc.constantFrom(...actors).map((id): Input => ({ kind: "leave", entityId: id, reason: "disconnect" })),
  );
  const planArb = fc.array(
    fc.record({
      inputs: fc.array(inputArb, { maxLength: 3 }),
      snapshot: fc.boolean(),
      idle: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 12 },
  );

  it("holds for random inputs, snapshot points and crash points", () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const dir = tempDir();
        const store = WorldStore.open(path.join(dir, "w.db"), { synchronous: "off" });
        try {
          const live = World.create(def);
          store.saveAutoSnapshot(snapshotEntry(live.snapshot()));
          const answers: InputResult[][] = [];
          for (const step of plan) {
            const r = live.step(step.inputs);
            commitTick(store, step.inputs, r);
            answers.push(r.results);
            for (let i = 0; i < step.idle; i++) commitTick(store, [], live.step([]));
            if (step.snapshot) store.saveAutoSnapshot(snapshotEntry(live.snapshot()));
          }
          const { world, report } = recoverWorld(def, store);
          expect(report.problems).toEqual([]);
          expect(world.tick).toBe(live.tick);
          expect(world.snapshotHash()).toBe(live.snapshotHash());
          // Idempotency records are part of the state: every tx answers the same after recovery.
          for (const k of [0, 1, 2, 3, 4, 5]) {
            for (const key of [`tx_m${k}`, `tx_c${k}`])
              expect(world.lookupTx(key)).toEqual(live.lookupTx(key));
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
