// `npm run world:new` writes a world that loads and a config the plugin takes, refuses a folder with
// anything in it, and worlds/README.md's tutorial works as written: its marked blocks are applied to a
// fresh world:new folder, step by step, and the world is loaded after each.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/config.ts";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import type { WorldDefinition } from "../src/world/types.ts";
import { WORLDS_README } from "./gen-schemas.ts";
import { deepMerge } from "./lib/merge.ts";
import { NEW_WORLD } from "./lib/new-world.ts";
import { PROJECT_DIR } from "./lib/project.ts";

const parent = mkdtempSync(path.join(os.tmpdir(), "ocw-world-new-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** `node scripts/world-new.ts <args>` as npm runs it: in the project, typed in `cwd` (INIT_CWD). */
function worldNew(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["scripts/world-new.ts", ...args],
      { cwd: PROJECT_DIR, env: { ...process.env, INIT_CWD: cwd } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

/** The tutorial's block marked `tutorial:<name>` (its language, then the mark, after the fence). */
function block(name: string): string {
  const readme = readFileSync(WORLDS_README, "utf8");
  const found = new RegExp(`\`\`\`\\w+ tutorial:${name}\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!found?.[1]) throw new Error(`worlds/README.md has no block tutorial:${name}`);
  return found[1].trim();
}

type TiledObject = { name: string; type: string; x: number; y: number };
type TiledMap = { layers: { name: string; objects?: TiledObject[] }[] };

function editMap(file: string, edit: (objects: TiledObject[]) => TiledObject[]): void {
  const map = JSON.parse(readFileSync(file, "utf8")) as TiledMap;
  const layer = map.layers.find((l) => l.name === "objects")!;
  layer.objects = edit(layer.objects ?? []);
  writeFileSync(file, JSON.stringify(map, null, 1));
}

/** A resident's home and stops are free tiles of its room, clear of every object. */
function expectWalkable(world: WorldDefinition, roomId: string, tiles: { tx: number; ty: number }[]) {
  const room = world.rooms[roomId]!;
  for (const { tx, ty } of tiles) {
    expect(room.blocked[ty * room.widthTiles + tx], `${roomId} (${tx}, ${ty})`).toBe(0);
    expect(room.objects.filter((o) => o.tile.tx === tx && o.tile.ty === ty)).toEqual([]);
  }
}

describe("npm run world:new", () => {
  it("writes a world that loads, with a sign, a portal and a resident the config takes", async () => {
    const made = await worldNew(parent, ["fresh"]);
    expect(made.code, made.out).toBe(0);
    const dir = path.join(parent, "fresh");
    expect(made.out).toContain(`OCW_CONFIG=${path.join(dir, NEW_WORLD.configFile)} npm start`);
    const world = await loadWorldDir(path.join(dir, NEW_WORLD.worldDir));
    expect(world.name).toBe("fresh");
    const room = world.rooms[world.defaultRoomId]!;
    expect(room.objects.map((o) => o.objectType).sort()).toEqual(["portal", "sign"]);
    const raw = JSON.parse(readFileSync(path.join(dir, NEW_WORLD.configFile), "utf8"));
    const config = resolveConfig({ ...raw, world: path.join(dir, raw.world) });
    expect(config.defaultRoomId).toBe(world.defaultRoomId);
    const [host] = Object.values(config.residents);
    expect(host?.routine?.stops.length).toBeGreaterThan(0);
    expectWalkable(world, host!.home.roomId, [host!.home, ...host!.routine!.stops]);
  });

  it("refuses a folder with anything in it, and leaves it as it was", async () => {
    const dir = path.join(parent, "taken");
    cpSync(path.join(PROJECT_DIR, "worlds", "README.md"), path.join(dir, "notes.md"));
    const refused = await worldNew(parent, ["taken"]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("taken is not empty");
    expect(readdirSync(dir)).toEqual(["notes.md"]);
    expect((await worldNew(parent, [])).code).toBe(1);
  });
});

describe("worlds/README.md's tutorial, step by step", () => {
  const town = path.join(parent, "mytown");
  const worldDir = path.join(town, NEW_WORLD.worldDir);
  const maps = path.join(worldDir, "maps");

  it("1. makes the world", async () => {
    const [, folder] = /^npm run world:new -- (\S+)$/.exec(block("new")) ?? [];
    expect(folder).toBe("mytown");
    expect((await worldNew(parent, [folder!])).code).toBe(0);
    expect(Object.keys((await loadWorldDir(worldDir)).rooms)).toEqual(["main"]);
  });

  it("2. makes a room from a copy of the first, and names it in world.toml", async () => {
    const [, from, to] = /^cp mytown\/(\S+) mytown\/(\S+)$/.exec(block("room-file")) ?? [];
    cpSync(path.join(town, from!), path.join(town, to!));
    // In Tiled: the sign and the portal deleted from the copy, the spawn kept.
    editMap(path.join(maps, "cafe.json"), (objects) => objects.filter((o) => o.type === "spawn"));
    writeFileSync(
      path.join(worldDir, "world.toml"),
      `${readFileSync(path.join(worldDir, "world.toml"), "utf8")}\n${block("room")}\n`,
    );
    expect(Object.keys((await loadWorldDir(worldDir)).rooms)).toEqual(["main", "cafe"]);
  });

  it("3. places a sign", async () => {
    editMap(path.join(maps, "cafe.json"), (objects) => [...objects, JSON.parse(block("sign"))]);
    const cafe = (await loadWorldDir(worldDir)).rooms.cafe!;
    expect(cafe.objects.find((o) => o.id === "obj_menu")?.props.text).toBe("Coffee 2, tea 1, cake 3.");
  });

  it("4. places a portal each way; a typo is named as the tutorial shows", async () => {
    const there = JSON.parse(block("portal-there"));
    const typo = structuredClone(there);
    typo.properties[0].value = "caffe";
    editMap(path.join(maps, "main.json"), (objects) => [...objects, typo]);
    await expect(loadWorldDir(worldDir)).rejects.toThrow(block("mistake"));
    editMap(path.join(maps, "main.json"), (objects) => [
      ...objects.filter((o) => o.name !== "to_cafe"),
      there,
    ]);
    editMap(path.join(maps, "cafe.json"), (objects) => [...objects, JSON.parse(block("portal-back"))]);
    const world = await loadWorldDir(worldDir);
    expect(world.rooms.main!.objects.find((o) => o.name === "to_cafe")?.props.targetRoom).toBe("cafe");
    expect(world.rooms.cafe!.objects.find((o) => o.name === "to_main")?.props.targetRoom).toBe("main");
  });

  it("5. adds a resident the config takes, at home on a free tile", async () => {
    const file = path.join(town, NEW_WORLD.configFile);
    const merged = deepMerge(JSON.parse(readFileSync(file, "utf8")), JSON.parse(block("resident")));
    writeFileSync(file, JSON.stringify(merged, null, 2));
    const config = resolveConfig({ ...merged, world: worldDir });
    expect(Object.keys(config.residents).sort()).toEqual(["barista", "host"]);
    const bea = config.residents.barista!;
    expectWalkable(await loadWorldDir(worldDir), "cafe", [bea.home, ...bea.routine!.stops]);
  });

  it("6. starts with the config world:new wrote (test/install/world-new.test.ts starts one)", () => {
    const [, config] = /^OCW_CONFIG=mytown\/(\S+) npm start$/.exec(block("start")) ?? [];
    expect(config).toBe(NEW_WORLD.configFile);
  });
});
