// Generates worlds/lobby/maps/{lobby,garden}.json (Tiled JSON). Deterministic: run it again and the
// output is byte-identical (scripts/gen-lobby-maps.test.ts fails when the committed maps are stale).
// Usage: npx node scripts/gen-lobby-maps.ts
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Tile legend (gids; the web engineer draws tiles.png in this order, 8 columns x 2 rows).
const T = {
  grass: 1,
  wood: 2,
  path: 3,
  wall: 4,
  water: 5,
  tree: 6,
  crate: 7,
  flowers: 8,
  carpet: 9,
  sand: 10,
  bush: 11,
  rock: 12,
  brick: 13,
  bridge: 14,
  dark: 15,
  fence: 16,
} as const;
const BLOCKING = new Set<number>([T.wall, T.water, T.tree, T.crate, T.bush, T.rock, T.brick, T.fence]);
const TILE = 32;

type Prop = { name: string; type: "string" | "int" | "bool"; value: string | number | boolean };
/** A named region: an inclusive tile rectangle (the "regions" object layer; world signals count
 * activity per region). */
interface MapRegion {
  id: string;
  label: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
interface MapObject {
  name: string;
  type: string;
  tx: number;
  ty: number;
  props?: Prop[];
}

class MapBuilder {
  readonly w: number;
  readonly h: number;
  readonly ground: number[];
  readonly decor: number[];
  readonly objects: MapObject[] = [];
  readonly regions: MapRegion[] = [];
  private seed: number;
  constructor(w: number, h: number, seed: number) {
    this.w = w;
    this.h = h;
    this.ground = new Array(w * h).fill(T.grass);
    this.decor = new Array(w * h).fill(0);
    this.seed = seed;
  }
  rand(): number {
    // A tiny LCG keeps the generator self-contained and deterministic.
    this.seed = (Math.imul(this.seed, 1664525) + 1013904223) >>> 0;
    return this.seed / 2 ** 32;
  }
  inside(x: number, y: number): boolean {
    return x >= 0 && y >= 0 && x < this.w && y < this.h;
  }
  g(x: number, y: number, gid: number): void {
    if (this.inside(x, y)) this.ground[y * this.w + x] = gid;
  }
  d(x: number, y: number, gid: number): void {
    if (this.inside(x, y)) this.decor[y * this.w + x] = gid;
  }
  rectG(x0: number, y0: number, x1: number, y1: number, gid: number): void {
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) this.g(x, y, gid);
  }
  frameG(x0: number, y0: number, x1: number, y1: number, gid: number): void {
    for (let x = x0; x <= x1; x++) {
      this.g(x, y0, gid);
      this.g(x, y1, gid);
    }
    for (let y = y0; y <= y1; y++) {
      this.g(x0, y, gid);
      this.g(x1, y, gid);
    }
  }
  groundAt(x: number, y: number): number {
    return this.ground[y * this.w + x]!;
  }
  free(x: number, y: number): boolean {
    return (
      this.inside(x, y) && !BLOCKING.has(this.groundAt(x, y)) && !BLOCKING.has(this.decor[y * this.w + x]!)
    );
  }
  obj(type: string, name: string, tx: number, ty: number, props?: Prop[]): void {
    this.objects.push({ type, name, tx, ty, ...(props ? { props } : {}) });
  }
  region(id: string, label: string, x0: number, y0: number, x1: number, y1: number): void {
    this.regions.push({ id, label, x0, y0, x1, y1 });
  }
  /** Scatter decor on plain grass, keeping `keepClear` tiles (and their neighbours) open. */
  scatter(
    gid: number,
    count: number,
    area: [number, number, number, number],
    keepClear: (x: number, y: number) => boolean,
  ) {
    const [x0, y0, x1, y1] = area;
    let placed = 0;
    for (let attempt = 0; attempt < count * 20 && placed < count; attempt++) {
      const x = x0 + Math.floor(this.rand() * (x1 - x0 + 1));
      const y = y0 + Math.floor(this.rand() * (y1 - y0 + 1));
      if (this.groundAt(x, y) !== T.grass || this.decor[y * this.w + x] !== 0 || keepClear(x, y)) continue;
      this.d(x, y, gid);
      placed++;
    }
  }
  toJson(): string {
    const collision = this.ground.map((gid, i) =>
      BLOCKING.has(gid) || BLOCKING.has(this.decor[i]!) ? T.wall : 0,
    );
    const objects = this.objects.map((o, i) => ({
      id: i + 1,
      name: o.name,
      type: o.type,
      x: o.tx * TILE,
      y: o.ty * TILE,
      width: TILE,
      height: TILE,
      rotation: 0,
      visible: true,
      ...(o.props ? { properties: o.props } : {}),
    }));
    const layer = (id: number, name: string, data: number[], visible = true) => ({
      id,
      name,
      type: "tilelayer",
      x: 0,
      y: 0,
      width: this.w,
      height: this.h,
      opacity: 1,
      visible,
      data,
    });
    const map = {
      type: "map",
      version: "1.10",
      tiledversion: "1.10.2",
      orientation: "orthogonal",
      renderorder: "right-down",
      infinite: false,
      width: this.w,
      height: this.h,
      tilewidth: TILE,
      tileheight: TILE,
      nextlayerid: 6,
      nextobjectid: objects.length + this.regions.length + 1,
      tilesets: [
        {
          firstgid: 1,
          name: "tiles",
          image: "../tiles.png",
          imagewidth: 256,
          imageheight: 64,
          tilewidth: TILE,
          tileheight: TILE,
          columns: 8,
          tilecount: 16,
          margin: 0,
          spacing: 0,
        },
      ],
      layers: [
        layer(1, "ground", this.ground),
        layer(2, "decor", this.decor),
        layer(3, "collision", collision, false),
        {
          id: 4,
          name: "objects",
          type: "objectgroup",
          draworder: "topdown",
          x: 0,
          y: 0,
          opacity: 1,
          visible: true,
          objects,
        },
        {
          id: 5,
          name: "regions",
          type: "objectgroup",
          draworder: "topdown",
          x: 0,
          y: 0,
          opacity: 1,
          visible: false,
          objects: this.regions.map((r, i) => ({
            id: objects.length + i + 1,
            name: r.id,
            type: "region",
            x: r.x0 * TILE,
            y: r.y0 * TILE,
            width: (r.x1 - r.x0 + 1) * TILE,
            height: (r.y1 - r.y0 + 1) * TILE,
            rotation: 0,
            visible: true,
            properties: [{ name: "label", type: "string", value: r.label }],
          })),
        },
      ],
    };
    // One row of tiles per line keeps diffs readable while staying valid JSON.
    return `${JSON.stringify(map, null, 1)}\n`;
  }
}

const text = (value: string): Prop[] => [{ name: "text", type: "string", value }];
const portalTo = (room: string, tx: number, ty: number): Prop[] => [
  { name: "targetRoom", type: "string", value: room },
  { name: "targetTx", type: "int", value: tx },
  { name: "targetTy", type: "int", value: ty },
];

function buildLobby(): MapBuilder {
  const m = new MapBuilder(48, 32, 7);
  m.frameG(0, 0, 47, 31, T.wall);
  // Cross-shaped paths and the central plaza.
  m.rectG(1, 15, 46, 17, T.path);
  m.rectG(22, 1, 24, 30, T.path);
  m.rectG(15, 10, 31, 22, T.path);
  // Fountain in the plaza centre, with flower beds on its corners.
  m.rectG(22, 15, 24, 17, T.water);
  for (const [x, y] of [
    [21, 14],
    [25, 14],
    [21, 18],
    [25, 18],
  ] as const)
    m.d(x, y, T.flowers);
  // Bushes framing the plaza, leaving the four path mouths open.
  for (let x = 15; x <= 31; x++) {
    if (x < 21 || x > 25) {
      m.d(x, 9, T.bush);
      m.d(x, 23, T.bush);
    }
  }
  // The hall: brick shell, wood floor, an interior wall with a door, carpeted meeting room.
  m.frameG(30, 2, 44, 10, T.brick);
  m.rectG(31, 3, 43, 9, T.wood);
  for (let y = 3; y <= 9; y++) m.g(37, y, T.brick);
  m.g(37, 6, T.wood); // doorway (the door object blocks it while closed)
  m.rectG(38, 3, 43, 9, T.carpet);
  m.g(34, 10, T.wood); // hall entrance
  m.g(35, 10, T.wood);
  m.rectG(34, 11, 35, 14, T.path); // walkway from the main path to the entrance
  m.d(31, 3, T.crate);
  m.d(32, 3, T.crate);
  m.d(31, 4, T.crate);
  m.d(43, 9, T.crate);
  // West garden strip with flowers, a sandy reading corner in the south-west.
  m.rectG(3, 24, 10, 29, T.sand);
  m.rectG(5, 26, 8, 27, T.dark);
  for (let x = 2; x <= 12; x += 2) m.d(x, 12, T.flowers);
  // Rocks by the south path.
  m.d(19, 27, T.rock);
  m.d(27, 26, T.rock);
  const keepClear = (x: number, y: number) =>
    (y >= 13 && y <= 19) ||
    (x >= 20 && x <= 26) ||
    (x >= 29 && x <= 45 && y >= 1 && y <= 14) ||
    (y >= 23 && x <= 11);
  m.scatter(T.tree, 26, [1, 1, 46, 30], keepClear);
  m.scatter(T.flowers, 24, [1, 1, 46, 30], keepClear);

  m.obj("sign", "sign_welcome", 21, 12, text("Welcome to OpenClawWorld!"));
  m.obj(
    "sign",
    "sign_plaza",
    25,
    12,
    text("Plaza: humans and agents meet here. Chat reaches people nearby; walk east to reach the garden."),
  );
  m.obj(
    "sign",
    "sign_hall",
    33,
    11,
    text("Town Hall. The meeting room is behind the inner door: open it, and close it behind you."),
  );
  m.obj("sign", "sign_meeting", 39, 4, text("Meeting room. Please keep the door closed during meetings."));
  m.obj("sign", "sign_to_garden", 44, 14, text("East gate: the Garden. Step onto the portal and use it."));
  m.obj("sign", "sign_reading", 7, 25, text("Reading corner. Sit in the sand and watch the clouds."));
  m.obj("door", "door_meeting", 37, 6, [{ name: "open", type: "bool", value: false }]);
  m.obj("portal", "portal_to_garden", 46, 16, portalTo("garden", 2, 16));
  for (const [name, x, y] of [
    ["plaza_nw", 19, 13],
    ["plaza_ne", 27, 13],
    ["plaza_sw", 19, 19],
    ["plaza_se", 27, 19],
    ["plaza_s", 23, 20],
    ["plaza_n", 23, 12],
  ] as const) {
    m.obj("spawn", name, x, y);
  }
  // Named regions (inclusive tiles). The fountain and the meeting room sit inside larger ones.
  m.region("plaza", "Plaza", 15, 10, 31, 22);
  m.region("fountain", "Fountain", 21, 14, 25, 18);
  m.region("town_hall", "Town Hall", 31, 3, 37, 9);
  m.region("hall_steps", "Hall Steps", 32, 10, 36, 14);
  m.region("meeting_room", "Meeting Room", 38, 3, 43, 9);
  m.region("reading_corner", "Reading Corner", 2, 23, 11, 30);
  m.region("north_path", "North Path", 22, 1, 24, 9);
  m.region("south_path", "South Path", 22, 23, 24, 30);
  m.region("west_road", "West Road", 1, 15, 14, 17);
  m.region("east_gate", "East Gate", 41, 11, 46, 20);
  return m;
}

function buildGarden(): MapBuilder {
  const m = new MapBuilder(48, 32, 11);
  m.frameG(0, 0, 47, 31, T.fence);
  // Main path from the west portal, a branch north to the pond bridge and south to the gazebo.
  m.rectG(1, 15, 40, 17, T.path);
  m.rectG(19, 5, 21, 15, T.path);
  m.rectG(37, 17, 39, 21, T.path);
  // The pond: sand shore, water, and a bridge across it.
  for (let y = 2; y <= 14; y++) {
    for (let x = 22; x <= 44; x++) {
      const nx = (x - 33) / 10.5;
      const ny = (y - 8) / 5.5;
      const r = nx * nx + ny * ny;
      if (r <= 0.62) m.g(x, y, T.water);
      else if (r <= 1) m.g(x, y, T.sand);
    }
  }
  m.rectG(22, 8, 44, 8, T.bridge);
  m.g(21, 8, T.path);
  m.g(45, 8, T.sand);
  m.rectG(45, 7, 46, 9, T.sand);
  // Gazebo with a dark floor.
  m.rectG(35, 22, 42, 28, T.dark);
  for (const [x, y] of [
    [35, 22],
    [42, 22],
    [35, 28],
    [42, 28],
  ] as const)
    m.g(x, y, T.wall);
  // Fenced flower bed with a gate (a door object, open by default).
  m.frameG(6, 20, 16, 28, T.fence);
  m.rectG(7, 21, 15, 27, T.grass);
  for (let y = 21; y <= 27; y++) for (let x = 7; x <= 15; x++) if ((x + y) % 2 === 0) m.d(x, y, T.flowers);
  m.g(11, 20, T.path); // gate tile; the door object decides whether it blocks
  m.rectG(11, 18, 11, 19, T.path);
  m.d(11, 21, 0);
  // Rocks and bushes.
  for (const [x, y] of [
    [5, 4],
    [9, 9],
    [28, 20],
    [30, 26],
    [44, 18],
  ] as const)
    m.d(x, y, T.rock);
  for (let x = 2; x <= 12; x += 3) m.d(x, 2, T.bush);
  const keepClear = (x: number, y: number) =>
    (y >= 14 && y <= 18) ||
    (x >= 18 && x <= 22 && y <= 15) ||
    (x >= 34 && x <= 43 && y >= 17) ||
    (x >= 5 && x <= 17 && y >= 19) ||
    (x >= 44 && y >= 6 && y <= 10);
  m.scatter(T.tree, 60, [1, 1, 46, 30], keepClear);
  m.scatter(T.bush, 10, [1, 1, 46, 30], keepClear);
  m.scatter(T.flowers, 30, [1, 1, 46, 30], keepClear);

  m.obj(
    "sign",
    "sign_garden",
    4,
    14,
    text("The Garden. Cross the bridge over the pond, rest in the gazebo."),
  );
  m.obj("sign", "sign_pond", 20, 4, text("Pond: no swimming. The bridge is safe to cross."));
  m.obj(
    "sign",
    "sign_gazebo",
    38,
    21,
    text("Gazebo: a quiet place to talk. Proximity chat only reaches those close by."),
  );
  m.obj("sign", "sign_flowers", 12, 18, text("Flower bed. Please close the gate behind you."));
  m.obj("door", "door_garden_gate", 11, 20, [{ name: "open", type: "bool", value: true }]);
  m.obj("portal", "portal_to_lobby", 1, 16, portalTo("lobby", 45, 16));
  for (const [name, x, y] of [
    ["garden_west", 3, 16],
    ["garden_path", 6, 15],
    ["garden_path_s", 6, 17],
    ["garden_bridge", 20, 10],
  ] as const) {
    m.obj("spawn", name, x, y);
  }
  m.region("garden_gate", "Garden Gate", 1, 13, 6, 18);
  m.region("garden_path", "Garden Path", 7, 15, 40, 17);
  m.region("pond_path", "Pond Path", 19, 4, 21, 14);
  m.region("pond", "Pond", 22, 2, 46, 14);
  m.region("bridge", "Bridge", 22, 8, 44, 8);
  m.region("flower_bed", "Flower Bed", 6, 18, 16, 28);
  m.region("gazebo", "Gazebo", 35, 21, 42, 28);
  return m;
}

/** The generated map files by name. */
export function lobbyMaps(): Record<"lobby.json" | "garden.json", string> {
  return { "lobby.json": buildLobby().toJson(), "garden.json": buildGarden().toJson() };
}

export const MAPS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "worlds", "lobby", "maps");

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, json] of Object.entries(lobbyMaps())) writeFileSync(join(MAPS_DIR, name), json);
  console.log(`wrote ${MAPS_DIR}/lobby.json and garden.json`);
}
