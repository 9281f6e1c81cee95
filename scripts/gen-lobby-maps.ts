// Generates worlds/lobby/maps/{lobby,garden,town}.json (Tiled JSON). Deterministic: run it again and the
// output is byte-identical (scripts/gen-lobby-maps.test.ts fails when the committed maps are stale).
// Usage: npx node scripts/gen-lobby-maps.ts
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { hoursProperties } from "../src/world/opening-hours.ts";

// Tile legend (gids; scripts/gen-tiles.ts draws tiles.png in this order, 8 columns x 4 rows).
export const T = {
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
  water2: 17,
  water3: 18,
  table: 19,
  bookshelf: 20,
  counter: 21,
  plant: 22,
  rug: 23,
  checker: 24,
  plaster: 25,
  lamp: 26,
  desk: 27,
  stall: 28,
  hedge: 29,
  paving: 30,
  window: 31,
  fireplace: 32,
} as const;
const BLOCKING = new Set<number>([
  T.wall,
  T.water,
  T.tree,
  T.crate,
  T.bush,
  T.rock,
  T.brick,
  T.fence,
  T.water2,
  T.water3,
  T.table,
  T.bookshelf,
  T.counter,
  T.plant,
  T.plaster,
  T.lamp,
  T.desk,
  T.stall,
  T.hedge,
  T.window,
  T.fireplace,
]);
/** Water plays its three frames (tile ids are gids - 1); the client's renderer animates it. */
const WATER_ANIMATION = [T.water, T.water2, T.water3].map((gid) => ({ tileid: gid - 1, duration: 450 }));
const TILE = 32;

export type Prop = { name: string; type: "string" | "int" | "bool"; value: string | number | boolean };
/** A named region: an inclusive tile rectangle (the "regions" object layer; world signals count
 * activity per region). */
interface MapRegion {
  id: string;
  label: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Opening hours (HH:MM): a closed place cannot be entered (src/world/opening-hours.ts). */
  hours?: { opens: string; closes: string };
}
interface MapObject {
  name: string;
  type: string;
  tx: number;
  ty: number;
  props?: Prop[];
}

/** A map drawn in code (here, and a new world's room in scripts/lib/new-world.ts), written as Tiled
 * writes it: the collision layer follows the blocking tiles. */
export class MapBuilder {
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
  rectD(x0: number, y0: number, x1: number, y1: number, gid: number): void {
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) this.d(x, y, gid);
  }
  frameD(x0: number, y0: number, x1: number, y1: number, gid: number): void {
    for (let x = x0; x <= x1; x++) {
      this.d(x, y0, gid);
      this.d(x, y1, gid);
    }
    for (let y = y0; y <= y1; y++) {
      this.d(x0, y, gid);
      this.d(x1, y, gid);
    }
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
  region(
    id: string,
    label: string,
    x0: number,
    y0: number,
    x1: number,
    y1: number,
    hours?: MapRegion["hours"],
  ): void {
    this.regions.push({ id, label, x0, y0, x1, y1, ...(hours ? { hours } : {}) });
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
          imageheight: 128,
          tilewidth: TILE,
          tileheight: TILE,
          columns: 8,
          tilecount: 32,
          margin: 0,
          spacing: 0,
          tiles: [
            // Marked water: fish swim on its ground tiles (src/world/habitat.ts).
            {
              id: T.water - 1,
              animation: WATER_ANIMATION,
              properties: [{ name: "water", type: "bool", value: true }],
            },
            // The page lights a lamp's tile at night (web/client/lamps.ts).
            { id: T.lamp - 1, properties: [{ name: "light", type: "bool", value: true }] },
          ],
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
            properties: [{ name: "label", type: "string", value: r.label }, ...hoursProperties(r.hours)],
          })),
        },
      ],
    };
    // One row of tiles per line keeps diffs readable while staying valid JSON.
    return `${JSON.stringify(map, null, 1)}\n`;
  }
}

const text = (value: string): Prop[] => [{ name: "text", type: "string", value }];
const seatProps = (
  facing: "up" | "down" | "left" | "right",
  style: "chair" | "bench" | "stool" | "sofa",
): Prop[] => [
  { name: "facing", type: "string", value: facing },
  { name: "style", type: "string", value: style },
];
const door = (open: boolean): Prop[] => [{ name: "open", type: "bool", value: open }];
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
  // Lamp posts where the north and south paths meet the plaza, in the bushes' line (lit at night).
  for (const [x, y] of [
    [20, 9],
    [26, 9],
    [20, 23],
    [26, 23],
  ] as const)
    m.d(x, y, T.lamp);
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
  // Furniture: shelves and a plant along the hall's north wall, a reading table by the west wall;
  // the meeting room gets its table, chairs (seat objects, below) and a plant. The way from the
  // entrance (34-35, 10) to the inner door (37, 6) stays clear.
  m.rectD(33, 3, 35, 3, T.bookshelf);
  m.d(36, 3, T.plant);
  m.d(31, 9, T.lamp); // the hall's lamp, in its south-west corner
  m.rectD(32, 6, 32, 7, T.table);
  m.rectD(40, 5, 41, 7, T.table);
  m.d(43, 3, T.lamp); // the meeting room's
  m.rectG(39, 4, 42, 8, T.rug);
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
  m.obj(
    "sign",
    "sign_to_town",
    3,
    14,
    text("West gate: the Town, with its café, library, council room, park and market. Step onto the portal."),
  );
  m.obj("portal", "portal_to_town", 1, 16, portalTo("town", 53, 20));
  for (const [name, x, y, facing] of [
    ["hall_chair", 31, 7, "right"],
    ["meeting_chair_w1", 39, 5, "right"],
    ["meeting_chair_w2", 39, 7, "right"],
    ["meeting_chair_e1", 42, 5, "left"],
    ["meeting_chair_e2", 42, 7, "left"],
  ] as const)
    m.obj("seat", name, x, y, seatProps(facing, "chair"));
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
  // The Guide's tour board, two tiles west of the Guide (19,12): five places that stay open day and
  // night (worlds/README.md, the tour object).
  m.obj("tour", "guide_tour", 17, 12, [
    { name: "stops", type: "string", value: "fountain town_hall flower_bed main_street town_square" },
    { name: "guide", type: "string", value: "Guide" },
    { name: "offerTiles", type: "int", value: 2 },
  ]);
  m.obj("creature", "mochi", 6, 26, [
    { name: "species", type: "string", value: "cat" },
    { name: "called", type: "string", value: "Mochi" },
    { name: "region", type: "string", value: "reading_corner" },
  ]);
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
  m.region("west_gate", "West Gate", 1, 13, 5, 18);
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
  ] as const) {
    m.g(x, y, T.wall);
    m.d(x, y, T.lamp); // a lantern on each of the gazebo's posts
  }
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
  // Lamp posts along the main path's north edge.
  m.d(16, 14, T.lamp);
  m.d(30, 14, T.lamp);
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
  m.obj(
    "sign",
    "sign_flowers",
    12,
    18,
    text("Flower bed and plots: plant, water, come back to see it grow. Please close the gate behind you."),
  );
  // Plots in the bed's east half, by the gardener's home (10, 22): three that take an hour of
  // simulation time to flower, and a cress tray that flowers in a minute and is thirsty after one
  // more, for a visitor to see a stage pass, and the gardener come to water it, while there.
  for (const [name, x, y, grow, thirst] of [
    ["plot_bed_1", 13, 22, 0, 0],
    ["plot_bed_2", 14, 22, 0, 0],
    ["plot_bed_3", 13, 24, 0, 0],
    ["plot_cress", 14, 24, 60, 120],
  ] as const) {
    m.d(x, y, 0);
    m.obj(
      "garden_plot",
      name,
      x,
      y,
      grow
        ? [
            { name: "growSeconds", type: "int", value: grow },
            { name: "thirstSeconds", type: "int", value: thirst },
          ]
        : undefined,
    );
  }
  m.obj("door", "door_garden_gate", 11, 20, door(true));
  m.obj("seat", "gazebo_bench_w", 37, 25, seatProps("right", "bench"));
  m.obj("seat", "gazebo_bench_e", 40, 25, seatProps("left", "bench"));
  m.obj("portal", "portal_to_lobby", 1, 16, portalTo("lobby", 45, 16));
  for (const [name, x, y] of [
    ["garden_west", 3, 16],
    ["garden_path", 6, 15],
    ["garden_path_s", 6, 17],
    ["garden_bridge", 20, 10],
  ] as const) {
    m.obj("spawn", name, x, y);
  }
  for (const [name, x] of [
    ["bird_1", 18],
    ["bird_2", 30],
  ] as const)
    m.obj("creature", name, x, 16, [
      { name: "species", type: "string", value: "bird" },
      { name: "region", type: "string", value: "garden_path" },
    ]);
  // Fish in the pond, north and south of the bridge: they come to whoever stands at its edge.
  for (const [name, x, y] of [
    ["fish_pond_1", 28, 5],
    ["fish_pond_2", 38, 6],
    ["fish_pond_3", 33, 11],
  ] as const)
    m.obj("creature", name, x, y, [
      { name: "species", type: "string", value: "fish" },
      { name: "region", type: "string", value: "pond" },
    ]);
  m.region("garden_gate", "Garden Gate", 1, 13, 6, 18);
  m.region("garden_path", "Garden Path", 7, 15, 40, 17);
  m.region("pond_path", "Pond Path", 19, 4, 21, 14);
  m.region("pond", "Pond", 22, 2, 46, 14);
  m.region("bridge", "Bridge", 22, 8, 44, 8);
  m.region("flower_bed", "Flower Bed", 6, 18, 16, 28);
  m.region("gazebo", "Gazebo", 35, 21, 42, 28);
  return m;
}

/** A building: walls of `wall` around a floor of `floor`, with a doorway (a door object, open). */
function building(
  m: MapBuilder,
  box: { x0: number; y0: number; x1: number; y1: number },
  floor: number,
  doorAt: { x: number; y: number; name: string },
  windows: readonly number[],
): void {
  m.frameG(box.x0, box.y0, box.x1, box.y1, T.plaster);
  for (const x of windows) m.g(x, box.y0, T.window);
  m.rectG(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1, floor);
  m.g(doorAt.x, doorAt.y, floor);
  m.obj("door", doorAt.name, doorAt.x, doorAt.y, door(true));
}

/** The Town: a square with a notice board and a fountain, a café, a library, a private
 * council room, a park with a pond, a market, and the gate back to the lobby. */
function buildTown(): MapBuilder {
  const m = new MapBuilder(56, 40, 23);
  m.frameD(0, 0, 55, 39, T.hedge);
  // Streets: the main street east-west, lanes to each building.
  m.rectG(1, 19, 54, 21, T.path);
  m.rectG(10, 12, 10, 18, T.path); // café lane
  m.rectG(46, 13, 46, 18, T.path); // library lane
  m.rectG(44, 22, 44, 26, T.path); // council lane
  m.rectG(8, 22, 8, 25, T.path); // park lane
  // The square: paving, a fountain in the middle, lamp posts at its corners.
  m.rectG(18, 13, 37, 27, T.paving);
  m.rectG(26, 18, 29, 21, T.water);
  for (const [x, y] of [
    [19, 14],
    [36, 14],
    [19, 26],
    [36, 26],
  ] as const)
    m.d(x, y, T.lamp);
  // Street lamps along the main street, west and east of the square.
  for (const [x, y] of [
    [14, 18],
    [14, 22],
    [40, 18],
    [40, 22],
  ] as const)
    m.d(x, y, T.lamp);
  // The café (north-west): checkered floor, a counter, three tables with chairs, plants.
  building(m, { x0: 4, y0: 3, x1: 16, y1: 11 }, T.checker, { x: 10, y: 11, name: "door_cafe" }, [7, 13]);
  m.rectD(5, 4, 9, 4, T.counter);
  for (const [x, y] of [
    [8, 7],
    [13, 7],
    [11, 9],
  ] as const)
    m.d(x, y, T.table);
  m.d(15, 4, T.plant);
  m.d(15, 10, T.lamp); // the café's lamp
  // The library (north-east): shelves along the north wall round a fireplace, desks, a rug.
  building(m, { x0: 39, y0: 3, x1: 52, y1: 12 }, T.wood, { x: 46, y: 12, name: "door_library" }, [42, 49]);
  m.rectD(40, 4, 44, 4, T.bookshelf);
  m.d(45, 4, T.fireplace);
  m.rectD(46, 4, 51, 4, T.bookshelf);
  m.rectG(41, 9, 50, 10, T.rug);
  for (const x of [42, 45, 48]) m.d(x, 7, T.desk);
  m.d(40, 11, T.plant);
  m.d(51, 11, T.lamp); // the library's reading lamp
  m.rectD(40, 6, 40, 8, T.bookshelf);
  m.rectD(51, 6, 51, 8, T.bookshelf);
  // The council room (south-east): carpet, one long table with chairs round it. Private: see its
  // private_room object by the door.
  building(m, { x0: 39, y0: 27, x1: 50, y1: 36 }, T.carpet, { x: 44, y: 27, name: "door_council" }, [41, 48]);
  m.rectD(43, 31, 46, 32, T.table);
  m.d(40, 35, T.plant);
  m.d(49, 35, T.plant);
  m.d(49, 28, T.bookshelf);
  // The park (south-west): a pond, trees, flowers.
  m.rectG(4, 29, 10, 33, T.water);
  m.rectG(3, 28, 11, 28, T.sand);
  m.rectG(3, 34, 11, 34, T.sand);
  // The market (south of the square): paving and two rows of stalls.
  m.rectG(19, 29, 36, 36, T.paving);
  m.rectG(27, 28, 28, 28, T.paving);
  for (const x of [21, 24, 27, 30, 33]) {
    m.d(x, 31, T.stall);
    m.d(x + 1, 34, T.stall);
  }
  const keepClear = (x: number, y: number) =>
    (x >= 3 && x <= 17 && y >= 2 && y <= 12) ||
    (x >= 38 && x <= 53 && y >= 2 && y <= 13) ||
    (x >= 38 && x <= 51 && y >= 22 && y <= 37) ||
    (x >= 17 && x <= 38 && y >= 12 && y <= 37) ||
    (y >= 17 && y <= 23) ||
    (x >= 2 && x <= 12 && y >= 22 && y <= 35) ||
    (x >= 45 && y >= 14 && y <= 24);
  m.scatter(T.tree, 34, [1, 1, 54, 38], keepClear);
  m.scatter(T.flowers, 30, [1, 1, 54, 38], keepClear);
  m.scatter(T.bush, 8, [1, 1, 54, 38], keepClear);
  for (const [x, y] of [
    [3, 25],
    [13, 27],
    [12, 36],
    [2, 37],
    [14, 31],
  ] as const)
    m.d(x, y, T.tree);
  for (let x = 4; x <= 10; x += 2) m.d(x, 36, T.flowers);

  m.obj(
    "sign",
    "sign_town",
    52,
    18,
    text(
      "The Town. Café to the north-west, library to the north-east, council room to the south-east, park to the south-west, market to the south. The portal leads back to the lobby.",
    ),
  );
  m.obj(
    "sign",
    "sign_cafe",
    11,
    12,
    text(
      "The Café. Take a seat: chairs and tables inside, the counter at the back, a game table for two by the west wall.",
    ),
  );
  m.obj(
    "sign",
    "sign_library",
    47,
    13,
    text("The Library. Quiet, please: read at the desks, sit by the fire."),
  );
  m.obj(
    "sign",
    "sign_council",
    45,
    25,
    text(
      "Council Room. Private: what is said inside is heard only inside. The plaque by the door opens or closes it.",
    ),
  );
  m.obj("sign", "sign_park", 7, 23, text("The Park. Benches by the pond; the fish do not talk back."));
  m.obj("sign", "sign_market", 26, 28, text("The Market. Stalls open every day; haggling encouraged."));
  m.obj("notice_board", "board_square", 23, 16, [
    { name: "title", type: "string", value: "Town notice board" },
  ]);
  // The café's game table (four-in-a-row) posts its results to the café's own board.
  m.obj("notice_board", "board_cafe", 12, 4, [{ name: "title", type: "string", value: "Café board" }]);
  m.obj("game_table", "cafe_game_table", 6, 9, [
    { name: "noticeBoard", type: "string", value: "obj_board_cafe" },
  ]);
  m.obj("private_room", "council_privacy", 42, 28, [
    { name: "region", type: "string", value: "council_room" },
    { name: "private", type: "bool", value: true },
  ]);
  m.obj("portal", "town_portal_to_lobby", 54, 20, portalTo("lobby", 2, 16));
  const seats: [
    string,
    number,
    number,
    "up" | "down" | "left" | "right",
    "chair" | "bench" | "stool" | "sofa",
  ][] = [
    // the café
    ["cafe_chair_1", 7, 7, "right", "chair"],
    ["cafe_chair_2", 9, 7, "left", "chair"],
    ["cafe_chair_3", 12, 7, "right", "chair"],
    ["cafe_chair_4", 14, 7, "left", "chair"],
    ["cafe_chair_5", 10, 9, "right", "chair"],
    ["cafe_chair_6", 12, 9, "left", "chair"],
    ["cafe_stool_1", 6, 5, "up", "stool"],
    ["cafe_stool_2", 8, 5, "up", "stool"],
    ["cafe_game_chair_r", 5, 9, "right", "chair"],
    ["cafe_game_chair_y", 7, 9, "left", "chair"],
    // the library
    ["library_chair_1", 42, 8, "up", "chair"],
    ["library_chair_2", 45, 8, "up", "chair"],
    ["library_chair_3", 48, 8, "up", "chair"],
    ["library_sofa", 45, 5, "up", "sofa"],
    // the council room
    ["council_chair_n1", 43, 30, "down", "chair"],
    ["council_chair_n2", 44, 30, "down", "chair"],
    ["council_chair_n3", 45, 30, "down", "chair"],
    ["council_chair_n4", 46, 30, "down", "chair"],
    ["council_chair_s1", 43, 33, "up", "chair"],
    ["council_chair_s2", 44, 33, "up", "chair"],
    ["council_chair_s3", 45, 33, "up", "chair"],
    ["council_chair_s4", 46, 33, "up", "chair"],
    // the square, round the fountain
    ["square_bench_n1", 26, 16, "down", "bench"],
    ["square_bench_n2", 29, 16, "down", "bench"],
    ["square_bench_s1", 26, 23, "up", "bench"],
    ["square_bench_s2", 29, 23, "up", "bench"],
    // the park, by the pond
    ["park_bench_1", 5, 27, "down", "bench"],
    ["park_bench_2", 9, 27, "down", "bench"],
    ["park_bench_3", 12, 31, "left", "bench"],
  ];
  for (const [name, x, y, facing, style] of seats) m.obj("seat", name, x, y, seatProps(facing, style));
  for (const [name, x, y] of [
    ["town_gate", 51, 20],
    ["town_gate_n", 51, 19],
    ["town_gate_s", 51, 21],
  ] as const)
    m.obj("spawn", name, x, y);
  // Regions (inclusive tiles): the places people see named as they walk in.
  m.region("town_square", "Town Square", 18, 13, 37, 27);
  m.region("town_fountain", "Fountain", 25, 17, 30, 22);
  m.region("cafe", "Café", 5, 4, 15, 10, { opens: "07:00", closes: "19:00" });
  m.region("library", "Library", 40, 4, 51, 11, { opens: "08:00", closes: "20:00" });
  m.region("council_room", "Council Room", 40, 28, 49, 35);
  m.region("park", "Park", 1, 23, 16, 38);
  for (const [name, x, y] of [
    ["fish_park_1", 5, 30],
    ["fish_park_2", 9, 32],
  ] as const)
    m.obj("creature", name, x, y, [
      { name: "species", type: "string", value: "fish" },
      { name: "region", type: "string", value: "park" },
    ]);
  m.region("market", "Market", 19, 28, 36, 36);
  m.region("main_street", "Main Street", 1, 19, 54, 21);
  m.region("town_gate", "Town Gate", 48, 16, 54, 24);
  m.region("cafe_lane", "Café Lane", 9, 11, 11, 18);
  m.region("library_lane", "Library Lane", 45, 12, 47, 18);
  m.region("council_lane", "Council Lane", 43, 22, 45, 27);
  return m;
}

/** The generated map files by name. */
export function lobbyMaps(): Record<"lobby.json" | "garden.json" | "town.json", string> {
  return {
    "lobby.json": buildLobby().toJson(),
    "garden.json": buildGarden().toJson(),
    "town.json": buildTown().toJson(),
  };
}

export const MAPS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "worlds", "lobby", "maps");

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, json] of Object.entries(lobbyMaps())) writeFileSync(join(MAPS_DIR, name), json);
  console.log(`wrote ${MAPS_DIR}/lobby.json, garden.json and town.json`);
}
