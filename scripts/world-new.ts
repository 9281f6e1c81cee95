// `npm run world:new -- <dir>`: a small world that starts as it is (scripts/lib/new-world.ts), written
// into <dir>: world/ (world.toml, maps/main.json, tiles.png) and plugin-config.json (the world, its
// resident), then how to start a gateway on it. An existing folder with anything in it is left alone.
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { NEW_WORLD, newWorldFiles, worldNameOf } from "./lib/new-world.ts";
import { PROJECT_DIR } from "./lib/project.ts";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const target = process.argv[2];
if (!target || target.startsWith("-")) fail("Usage: npm run world:new -- <dir>   (a new or empty folder)");
// npm runs scripts in the project's folder; a relative <dir> means the one the command was typed in.
const dir = path.resolve(process.env.INIT_CWD ?? process.cwd(), target);
if (existsSync(dir)) {
  if (!statSync(dir).isDirectory()) fail(`${target} exists and is not a folder; give a new or empty one.`);
  if (readdirSync(dir).length > 0)
    fail(`${target} is not empty; world:new writes only into a new or empty folder, and left it as it was.`);
}

for (const [file, content] of newWorldFiles(worldNameOf(path.basename(dir)))) {
  const full = path.join(dir, file);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
}
// What was written loads: the same check a gateway makes when it opens the world.
const world = await loadWorldDir(path.join(dir, NEW_WORLD.worldDir));

// npm start runs in the project's folder: the config's path as it will read it.
const inProject = path.relative(PROJECT_DIR, dir);
const shown = inProject && !inProject.startsWith("..") && !path.isAbsolute(inProject) ? inProject : dir;
const config = path.join(shown, NEW_WORLD.configFile);
console.log(`Wrote world "${world.name}" into ${shown}/:
  ${NEW_WORLD.worldDir}/world.toml       the world (its keys: worlds/README.md)
  ${NEW_WORLD.worldDir}/${NEW_WORLD.map}   room "${world.defaultRoomId}": open it in Tiled (https://www.mapeditor.org)
  ${NEW_WORLD.worldDir}/tiles.png        the tileset
  ${NEW_WORLD.configFile}     the plugin config it needs: the world and its resident, Host

Next steps, in this project's folder (${PROJECT_DIR}):
  OCW_CONFIG=${config} npm start
    then open the web client it prints, join, and read the sign; Host stands beside it
    (asleep until the gateway has a model: add OCW_GATEWAY_CONFIG=examples/gateway-config.example.json)
  In a gateway of your own: put ${config}'s keys in the openclawworld plugin's config,
    with "world": "${path.join(dir, NEW_WORLD.worldDir)}"
  Make it yours: worlds/README.md walks through a room, a sign, a portal and a resident.`);
