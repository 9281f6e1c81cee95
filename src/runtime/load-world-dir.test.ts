import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureFiles, openRoom } from "../world/testing/fixtures.ts";
import { WorldLoadError } from "../world/world-errors.ts";
import { loadWorldDir } from "./load-world-dir.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function writeWorld(files: Map<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ocw-world-"));
  dirs.push(dir);
  for (const [path, text] of files) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const rooms = [{ id: "a", rows: openRoom(8, 6), objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }] }];

describe("loadWorldDir", () => {
  it("loads the bundled lobby", async () => {
    const def = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));
    expect(Object.keys(def.rooms).sort()).toEqual(["garden", "lobby", "town"]);
    expect(def.rooms.lobby!.mapFile).toBe("maps/lobby.json");
  });

  it("reads nested files with /-relative paths; the scene hash matches the pure parser's", async () => {
    const files = fixtureFiles(rooms);
    const def = await loadWorldDir(await writeWorld(files));
    expect(def.rooms.a!.widthTiles).toBe(8);
    const again = await loadWorldDir(await writeWorld(files));
    expect(again.sceneHash).toBe(def.sceneHash);
  });

  it("names the missing map file", async () => {
    const files = fixtureFiles(rooms);
    files.delete("maps/a.json");
    await expect(loadWorldDir(await writeWorld(files))).rejects.toThrow("maps/a.json: missing map file");
  });

  it("reports an unreadable directory as a WorldLoadError", async () => {
    await expect(loadWorldDir(join(tmpdir(), "ocw-no-such-world-dir"))).rejects.toBeInstanceOf(
      WorldLoadError,
    );
  });
});
