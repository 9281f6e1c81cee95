// The smallest world that starts as it is, for `npm run world:new`: one walled room with a floor, a
// sign, a portal to the room's far corner and a resident with a routine. A world is files
// (worlds/README.md); residents are plugin config, so the world comes with the config it needs,
// beside it rather than in it: a file in the world directory is part of its scene hash, and editing a
// resident should not make the saved world another world's.
import { readFileSync } from "node:fs";
import { BUNDLED_WORLD_DIR } from "../../src/runtime/load-world-dir.ts";
import { MapBuilder, type Prop, T } from "../gen-lobby-maps.ts";

/** Where world:new writes, inside the folder it is given. */
export const NEW_WORLD = { worldDir: "world", configFile: "plugin-config.json", map: "maps/main.json" };
export const ROOM_ID = "main";
const WIDTH = 16;
const HEIGHT = 12;

type Placed = { name: string; type: string; tx: number; ty: number; properties?: Prop[] };

/** What stands in the room: where people arrive, a sign beside them, and a portal in the bottom-right
 * corner that takes whoever steps on it to the top-left one. */
const OBJECTS: Placed[] = [
  { name: "arrival", type: "spawn", tx: 3, ty: 5 },
  {
    name: "welcome",
    type: "sign",
    tx: 5,
    ty: 3,
    properties: [
      { name: "text", type: "string", value: "Welcome! This world was made with npm run world:new." },
    ],
  },
  {
    name: "corner_portal",
    type: "portal",
    tx: 13,
    ty: 9,
    properties: [
      { name: "targetRoom", type: "string", value: ROOM_ID },
      { name: "targetTx", type: "int", value: 2 },
      { name: "targetTy", type: "int", value: 2 },
    ],
  },
];

/** The room as Tiled writes it (pretty-printed JSON, so it reads and diffs well): stone walls around
 * a wooden floor, drawn by the bundled maps' own builder (the walls are blocked in its collision layer). */
export function roomMap(): string {
  const map = new MapBuilder(WIDTH, HEIGHT, 1);
  map.rectG(0, 0, WIDTH - 1, HEIGHT - 1, T.wood);
  map.frameG(0, 0, WIDTH - 1, HEIGHT - 1, T.wall);
  for (const o of OBJECTS) map.obj(o.type, o.name, o.tx, o.ty, o.properties);
  return map.toJson();
}

export function worldToml(name: string): string {
  return `# A world made by npm run world:new. Its keys are documented in worlds/README.md.
name = ${JSON.stringify(name)}
version = "0.1.0"
seed = 1
epoch = 2026-01-01T00:00:00Z
default_room = "${ROOM_ID}"

[[rooms]]
id = "${ROOM_ID}"
name = "Main Room"
map = "${NEW_WORLD.map}"
`;
}

/** The plugin config the world needs (OCW_CONFIG for npm start, or the `openclawworld` plugin's
 * config in a gateway's own): the world, its room for joins, and a resident who stands beside the
 * sign and walks to the middle of the room and back. `world` is relative to this file. */
export function pluginConfig(): Record<string, unknown> {
  return {
    world: NEW_WORLD.worldDir,
    defaultRoomId: ROOM_ID,
    residents: {
      host: {
        name: "Host",
        look: 2,
        home: { roomId: ROOM_ID, tx: 6, ty: 4 },
        persona: "You are the host of this small room. You greet newcomers and point them to the sign.",
        routine: { everySec: 300, stops: [{ tx: 8, ty: 7 }] },
        wake: { nearby: true, name: true, approach: true },
      },
    },
    tools: { perAgent: { host: { enabled: ["ocw_chat_send", "ocw_move_to"] } } },
  };
}

/** The world's name from the folder's: what world.toml's `name` may hold, never empty. */
export function worldNameOf(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name || "new-world";
}

/** Every file world:new writes, by path inside its folder. */
export function newWorldFiles(name: string): Map<string, string | Uint8Array> {
  const world = NEW_WORLD.worldDir;
  return new Map<string, string | Uint8Array>([
    [`${world}/world.toml`, worldToml(name)],
    [`${world}/${NEW_WORLD.map}`, roomMap()],
    // The bundled tileset as it is (scripts/gen-tiles.ts draws it): the maps' gids are its tiles.
    [`${world}/tiles.png`, readFileSync(`${BUNDLED_WORLD_DIR}/tiles.png`)],
    [NEW_WORLD.configFile, `${JSON.stringify(pluginConfig(), null, 2)}\n`],
  ]);
}
