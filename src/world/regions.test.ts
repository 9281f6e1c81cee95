// Named map regions: what a world directory may declare (a "regions" object layer of named, labelled,
// tile-aligned rectangles) and the clear error for each way to get it wrong.
// biome-ignore-all lint/style/noRestrictedImports: the bundled world is checked as the runtime loads it from disk.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import { parseWorld } from "./definition.ts";
import { MAX_REGIONS_PER_ROOM } from "./signals.ts";
import {
  type FixtureRegion,
  type FixtureRoom,
  fixtureFiles,
  openRoom,
  worldLoadError,
} from "./testing/fixtures.ts";
import { World } from "./world.ts";

const rooms = (a: FixtureRegion[] | undefined, b?: FixtureRegion[]): FixtureRoom[] => [
  {
    id: "a",
    rows: openRoom(10, 8),
    objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }],
    ...(a ? { regions: a } : {}),
  },
  {
    id: "b",
    rows: openRoom(10, 8),
    objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }],
    ...(b ? { regions: b } : {}),
  },
];
const square: FixtureRegion = { id: "square", label: "The Square", tx: 1, ty: 1, w: 4, h: 3 };

const loadError = worldLoadError;

/** The map of room "a" with its regions layer's first object edited. */
function editedRegion(edit: (region: Record<string, unknown>) => void): Map<string, string> {
  const files = fixtureFiles(rooms([square]));
  const map = JSON.parse(files.get("maps/a.json")!);
  edit(map.layers.find((l: { name: string }) => l.name === "regions").objects[0]);
  files.set("maps/a.json", JSON.stringify(map));
  return files;
}

describe("map regions", () => {
  it("a world without regions still loads (regions are optional)", () => {
    const def = parseWorld(fixtureFiles(rooms(undefined)));
    expect(def.rooms.a!.regions).toEqual([]);
    expect(World.create(def).signals("a")!.regions).toEqual([]);
  });

  it("parses named rectangles into tile rectangles with ids and human names", () => {
    const def = parseWorld(
      fixtureFiles(rooms([square, { id: "corner", label: "Corner", tx: 8, ty: 6, w: 1, h: 1 }])),
    );
    expect(def.rooms.a!.regions).toEqual([
      {
        id: "square",
        name: "The Square",
        roomId: "a",
        tile: { tx: 1, ty: 1 },
        widthTiles: 4,
        heightTiles: 3,
      },
      { id: "corner", name: "Corner", roomId: "a", tile: { tx: 8, ty: 6 }, widthTiles: 1, heightTiles: 1 },
    ]);
  });

  it.each([
    ["outside the map", { ...square, tx: 8, w: 3 }, "reach outside the 10x8 map"],
    ["a bad id", { ...square, id: "Big Square" }, "expected a region id"],
    ["an empty human name", { ...square, label: " " }, "human name"],
    ["no area", { ...square, w: 0 }, "at least one tile"],
  ])("refuses a region %s", (_what, region, message) => {
    const error = loadError(fixtureFiles(rooms([region])));
    expect(error.file).toBe("maps/a.json");
    expect(error.message).toContain(message);
  });

  it("refuses a region that is not tile-aligned, rotated, not a rectangle, or of another type", () => {
    expect(loadError(editedRegion((r) => (r.x = 40))).message).toContain("multiple of the tile size (32)");
    expect(loadError(editedRegion((r) => (r.rotation = 45))).message).toContain("cannot be rotated");
    expect(loadError(editedRegion((r) => (r.ellipse = true))).message).toContain("plain rectangle");
    expect(loadError(editedRegion((r) => (r.type = "zone"))).message).toContain('expected "region"');
    expect(loadError(editedRegion((r) => delete r.properties)).message).toContain("human name");
  });

  it("refuses duplicate ids, in one room and across rooms", () => {
    expect(loadError(fixtureFiles(rooms([square, square]))).message).toContain('duplicate region "square"');
    const across = loadError(fixtureFiles(rooms([square], [square])));
    expect(across.file).toBe("maps/b.json");
    expect(across.message).toContain("unique across the world");
  });

  it(`refuses more than ${MAX_REGIONS_PER_ROOM} regions in a room`, () => {
    const many = Array.from({ length: MAX_REGIONS_PER_ROOM + 1 }, (_, i) => ({ ...square, id: `r${i}` }));
    expect(loadError(fixtureFiles(rooms(many))).message).toContain(`at most ${MAX_REGIONS_PER_ROOM}`);
    const most = many.slice(0, MAX_REGIONS_PER_ROOM);
    expect(parseWorld(fixtureFiles(rooms(most))).rooms.a!.regions).toHaveLength(MAX_REGIONS_PER_ROOM);
  });

  it("refuses a regions layer that is not an object group", () => {
    const files = fixtureFiles(rooms([square]));
    const map = JSON.parse(files.get("maps/a.json")!);
    map.layers.find((l: { name: string }) => l.name === "regions").type = "tilelayer";
    files.set("maps/a.json", JSON.stringify(map));
    expect(loadError(files).message).toContain("object group of rectangles");
  });

  it("the bundled world names its places; every spawn and sign is in a named region", async () => {
    const def = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));
    const world = World.create(def);
    expect(def.rooms.lobby!.regions.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        "plaza",
        "fountain",
        "town_hall",
        "meeting_room",
        "reading_corner",
        "east_gate",
      ]),
    );
    expect(def.rooms.garden!.regions.map((r) => r.id)).toEqual(
      expect.arrayContaining(["garden_gate", "pond", "bridge", "gazebo", "flower_bed"]),
    );
    for (const room of Object.values(def.rooms)) {
      for (const spawn of room.spawns)
        expect(world.regionsAt(room.roomId, spawn.tile), `${room.roomId}:${spawn.name}`).not.toEqual([]);
      for (const obj of room.objects)
        expect(world.regionsAt(room.roomId, obj.tile), `${room.roomId}:${obj.id}`).not.toEqual([]);
    }
    // Nested regions: the most specific comes first.
    expect(world.regionsAt("lobby", { tx: 23, ty: 14 }).map((r) => r.id)).toEqual(["fountain", "plaza"]);
    expect(world.regionsAt("lobby", { tx: 40, ty: 5 }).map((r) => r.id)).toEqual(["meeting_room"]);
    expect(world.regionsAt("lobby", { tx: 5, ty: 5 })).toEqual([]);
  });
});
