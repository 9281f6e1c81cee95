import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until as waitUntil } from "../../test/support/wait.ts";
import { closeWorld, type OpenedWorld, openWorld } from "../runtime/open-world.ts";
import type { ReloadOutcome } from "../runtime/world-reload.ts";
import { type FixtureRoom, fixtureFiles, openRoom } from "../world/testing/fixtures.ts";
import type { WorldHost } from "./host.ts";
import { WorldReloads } from "./world-reloads.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function room(wallAt?: number): FixtureRoom {
  return {
    id: "a",
    rows: openRoom(16, 10).map((row, y) =>
      y === 6 && wallAt !== undefined ? `${row.slice(0, wallAt)}#${row.slice(wallAt + 1)}` : row,
    ),
    objects: [{ type: "spawn", name: "s1", tx: 3, ty: 3 }],
  };
}

function write(dir: string, files: Map<string, string>): void {
  for (const [name, text] of files) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** A world from a directory of its own, its ticks run by the test (`step`), and what was logged. */
async function hosted(cluster = false) {
  const worldDir = mkdtempSync(path.join(os.tmpdir(), "ocw-reloads-"));
  cleanups.push(() => rmSync(worldDir, { recursive: true, force: true }));
  write(worldDir, fixtureFiles([room()]));
  const opened: OpenedWorld = await openWorld({
    worldDir,
    defaultRoomId: "a",
    storeFile: undefined,
    logger: quiet,
  });
  cleanups.push(() => {
    opened.runtime.stop();
    if (opened.store?.isOpen) closeWorld(opened, quiet);
  });
  const host = {
    ...opened,
    config: { worldDir, defaultRoomId: "a" },
    ...(cluster ? { cluster: {} } : {}),
  } as unknown as WorldHost;
  const logged: string[] = [];
  const logger = {
    info: (m: string) => logged.push(m),
    warn: (m: string) => logged.push(m),
    error: () => {},
  };
  const reloads = new WorldReloads(host, logger);
  cleanups.push(() => reloads.unwatch());
  /** Runs ticks until `done` (a reload waits for the tick that applies it). */
  const until = (done: () => boolean, what: string) =>
    waitUntil(
      what,
      () => {
        if (done()) return true;
        opened.runtime.stepNow();
        return false;
      },
      { timeoutMs: 10_000, everyMs: 5 },
    );
  const settle = async (pending: Promise<ReloadOutcome>) => {
    let outcome: ReloadOutcome | undefined;
    void pending.then((o) => {
      outcome = o;
    });
    await until(() => outcome !== undefined, "the reload settled");
    return outcome!;
  };
  return { worldDir, opened, reloads, logged, until, settle };
}

describe("the world's reloads (route, CLI, directory watch)", () => {
  it("watching, a change reloads once the files settle: several writes in a row are one reload", async () => {
    const { worldDir, opened, reloads, logged, until, settle } = await hosted();
    const before = opened.runtime.world.definition.sceneHash;
    reloads.watch();
    expect(reloads.status()).toMatchObject({ watching: true });
    // An editor's save in steps, and a second save right after: the last content is what loads.
    write(worldDir, fixtureFiles([room(5)]));
    write(worldDir, fixtureFiles([room(6)]));
    await until(() => logged.some((m) => m.includes("world reloaded (watch)")), "the watched reload");
    expect(opened.runtime.world.definition.sceneHash).not.toBe(before);
    expect(logged.filter((m) => m.includes("world reloaded"))).toHaveLength(1);
    expect(reloads.status()).toMatchObject({
      watching: true,
      last: { cause: "watch", outcome: { status: "applied" } },
    });
    // The last save is the one in force: asked again, there is nothing new.
    expect((await settle(reloads.reload("operator"))).status).toBe("unchanged");
    reloads.unwatch();
    expect(reloads.status()).toMatchObject({ watching: false });
  });

  it("watching, a file saved atomically again and again (written aside, renamed over) reloads each time", async () => {
    const { worldDir, opened, reloads, logged, until } = await hosted();
    reloads.watch();
    // What editors and scripts do: the new text beside the file, then renamed over it. Node's
    // recursive watch saw the first such save of a file and none after it.
    const saveAtomically = (files: Map<string, string>) => {
      for (const [name, text] of files) {
        const file = path.join(worldDir, name);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
      }
    };
    const seen = new Set<string>([opened.runtime.world.definition.sceneHash]);
    for (const wallAt of [5, 6, 7]) {
      saveAtomically(fixtureFiles([room(wallAt)]));
      await until(
        () => !seen.has(opened.runtime.world.definition.sceneHash),
        `the save with a wall at ${wallAt}`,
      );
      seen.add(opened.runtime.world.definition.sceneHash);
    }
    expect(logged.filter((m) => m.includes("world reloaded (watch)"))).toHaveLength(3);
  });

  it("the operator's reloads run one after another; nothing new is 'unchanged'; a bad file is refused, the last applied kept", async () => {
    const { worldDir, reloads, logged, settle } = await hosted();
    write(worldDir, fixtureFiles([room(5)]));
    // Two asked at once: the second finds the first's definition in force.
    const [first, second] = await Promise.all([
      settle(reloads.reload("operator")),
      settle(reloads.reload("operator")),
    ]);
    expect(first.status).toBe("applied");
    expect(second.status).toBe("unchanged");
    writeFileSync(path.join(worldDir, "world.toml"), 'name = "testworld"\nversion = \nseed = 7\n');
    const refused = await settle(reloads.reload("operator"));
    expect(refused).toMatchObject({ status: "refused", reason: "invalid", file: "world.toml", line: 2 });
    expect(reloads.status()).toMatchObject({
      last: { cause: "operator", outcome: { status: "refused" } },
      lastApplied: { cause: "operator", outcome: { status: "applied" } },
    });
    expect(logged.some((m) => /refused, the world runs on unchanged: .*world\.toml/.test(m))).toBe(true);
  });

  it("in cluster mode a reload is refused with the reason, and the directory is not watched", async () => {
    const { reloads } = await hosted(true);
    reloads.watch();
    expect(reloads.status()).toMatchObject({ watching: false });
    expect(await reloads.reload("operator")).toMatchObject({ status: "refused", reason: "cluster" });
  });
});
