import { describe, expect, it } from "vitest";
import { computeSceneHash, parseWorld } from "./definition.ts";
import {
  type FixtureRoom,
  fixtureFiles,
  openRoom,
  tiledMapJson,
  worldLoadError,
} from "./testing/fixtures.ts";
import { parseIsoToMs } from "./time.ts";

const baseRooms = (): FixtureRoom[] => [
  {
    id: "a",
    rows: openRoom(10, 8),
    objects: [
      { type: "spawn", name: "s", tx: 2, ty: 2 },
      { type: "portal", name: "p", tx: 5, ty: 5, props: { targetRoom: "b", targetTx: 2, targetTy: 2 } },
    ],
  },
  { id: "b", rows: openRoom(10, 8), objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }] },
];

const loadError = worldLoadError;

function withToml(edit: (toml: string) => string): Map<string, string> {
  const files = fixtureFiles(baseRooms());
  files.set("world.toml", edit(files.get("world.toml")!));
  return files;
}

describe("parseWorld", () => {
  it("parses a valid world with defaults and a scene hash", () => {
    const def = parseWorld(fixtureFiles(baseRooms()));
    expect(def.name).toBe("testworld");
    expect(def.tickRate).toBe(20);
    expect(def.rooms.a!.widthTiles).toBe(10);
    expect(def.rooms.a!.blocked[0]).toBe(1);
    expect(def.rooms.a!.blocked[11]).toBe(0);
    expect(def.rooms.a!.objects.map((o) => o.id)).toEqual(["obj_p"]);
    expect(def.rooms.a!.spawns).toEqual([{ name: "s", tile: { tx: 2, ty: 2 } }]);
    expect(def.sceneHash).toMatch(/^[0-9a-f]{64}$/);
    expect(def.proximityMaxNeighbors).toBe(12);
    const capped = parseWorld(
      withToml((t) => t.replace("[simulation]", "[simulation]\nproximity_max_neighbors = 3")),
    );
    expect(capped.proximityMaxNeighbors).toBe(3);
  });

  it("scene hash ignores map insertion order and changes with any byte", () => {
    const files = fixtureFiles(baseRooms());
    const reversed = new Map([...files.entries()].reverse());
    expect(computeSceneHash(reversed)).toBe(computeSceneHash(files));
    const bytes = new Map<string, Uint8Array | string>(files);
    bytes.set("tiles.png", new Uint8Array([1, 2, 3]));
    expect(computeSceneHash(bytes)).not.toBe(computeSceneHash(files));
  });

  it("parses ISO and integer epochs without a host clock", () => {
    expect(parseIsoToMs("2026-02-10T00:00:00Z")).toBe(1770681600000);
    expect(parseIsoToMs("2026-02-10T01:00:00+01:00")).toBe(1770681600000);
    expect(parseIsoToMs("1970-01-01")).toBe(0);
    expect(parseIsoToMs("not a date")).toBeUndefined();
    const def = parseWorld(withToml((t) => t.replace("epoch = 1000000", "epoch = 2026-02-10T00:00:00Z")));
    expect(def.epochMs).toBe(1770681600000);
    const iso = parseWorld(
      withToml((t) => t.replace("epoch = 1000000", 'epoch = "2026-02-10T00:00:00.250Z"')),
    );
    expect(iso.epochMs).toBe(1770681600250);
  });

  it.each([
    [
      "missing name",
      (t: string) => t.replace(/^name = .*$/m, ""),
      "world.toml: name: missing required field",
    ],
    ["missing rooms", (t: string) => t.slice(0, t.indexOf("[[rooms]]")), "world.toml: rooms: missing"],
    [
      "wrong type",
      (t: string) => t.replace("seed = 7", 'seed = "seven"'),
      "world.toml: seed: expected a number",
    ],
    [
      "tick rate too high",
      (t: string) => t.replace("tick_rate = 20", "tick_rate = 30"),
      "world.toml: tick_rate: 30 is out of range 10..20",
    ],
    [
      "tick rate too low",
      (t: string) => t.replace("tick_rate = 20", "tick_rate = 5"),
      "tick_rate: 5 is out of range",
    ],
    [
      "bad sim field",
      (t: string) => t.replace("walk_speed = 128", "walk_speed = true"),
      "simulation.walk_speed: expected a number",
    ],
    [
      "no proximity places",
      (t: string) => t.replace("[simulation]", "[simulation]\nproximity_max_neighbors = 0"),
      "world.toml: simulation.proximity_max_neighbors: 0 is out of range 1..256",
    ],
    [
      "too many proximity places",
      (t: string) => t.replace("[simulation]", "[simulation]\nproximity_max_neighbors = 257"),
      "simulation.proximity_max_neighbors: 257 is out of range 1..256",
    ],
    [
      "fractional proximity places",
      (t: string) => t.replace("[simulation]", "[simulation]\nproximity_max_neighbors = 2.5"),
      "simulation.proximity_max_neighbors: expected an integer, got 2.5",
    ],
    ["bad epoch", (t: string) => t.replace("epoch = 1000000", 'epoch = "yesterday"'), "world.toml: epoch:"],
    [
      "unknown default room",
      (t: string) => t.replace('default_room = "a"', 'default_room = "zzz"'),
      "default_room",
    ],
    [
      "unreadable TOML",
      (t: string) => `${t}\n[[[broken`,
      "world.toml:25:3: unreadable TOML: illegal character in key",
    ],
    [
      "missing map file",
      (t: string) => t.replace('map = "maps/b.json"', 'map = "maps/nope.json"'),
      "maps/nope.json: missing map file",
    ],
  ])("rejects %s", (_name, edit, message) => {
    expect(loadError(withToml(edit)).message).toContain(message);
  });

  it("rejects a missing world.toml", () => {
    const files = fixtureFiles(baseRooms());
    files.delete("world.toml");
    expect(loadError(files).message).toBe("world.toml: missing file");
  });

  it("rejects unreadable map JSON", () => {
    const files = fixtureFiles(baseRooms());
    files.set("maps/b.json", "{ not json");
    expect(loadError(files).message).toContain("maps/b.json:1:3: unreadable JSON");
  });

  it("rejects unknown tile ids, naming the layer and cell", () => {
    const files = fixtureFiles(baseRooms());
    const map = JSON.parse(files.get("maps/b.json")!);
    map.layers[0].data[13] = 17;
    files.set("maps/b.json", JSON.stringify(map));
    const err = loadError(files);
    expect(err.message).toContain("maps/b.json: layers.ground.data[13]: unknown tile id 17");
    expect(err.file).toBe("maps/b.json");
  });

  it("rejects a portal to a missing room", () => {
    const rooms = baseRooms();
    rooms[0] = {
      ...rooms[0]!,
      objects: [
        rooms[0]!.objects[0]!,
        { type: "portal", name: "p", tx: 5, ty: 5, props: { targetRoom: "c", targetTx: 1, targetTy: 1 } },
      ],
    };
    expect(loadError(fixtureFiles(rooms)).message).toContain(
      'maps/a.json: layers.objects (p).properties.targetRoom: room "c" does not exist',
    );
  });

  it("rejects a portal target out of bounds or blocked", () => {
    const rooms = baseRooms();
    const portal = (tx: number, ty: number) => ({
      type: "portal",
      name: "p",
      tx: 5,
      ty: 5,
      props: { targetRoom: "b", targetTx: tx, targetTy: ty },
    });
    rooms[0] = { ...rooms[0]!, objects: [rooms[0]!.objects[0]!, portal(40, 2)] };
    expect(loadError(fixtureFiles(rooms)).message).toContain(
      'layers.objects (p).properties.targetTx/targetTy: tile (40, 2) is outside room "b"',
    );
    rooms[0] = { ...rooms[0]!, objects: [rooms[0]!.objects[0]!, portal(0, 0)] };
    expect(loadError(fixtureFiles(rooms)).message).toContain('tile (0, 0) in room "b" is blocked');
  });

  it("rejects duplicate object ids across maps", () => {
    const rooms = baseRooms();
    rooms[1] = {
      ...rooms[1]!,
      objects: [...rooms[1]!.objects, { type: "sign", name: "p", tx: 3, ty: 3, props: { text: "x" } }],
    };
    expect(loadError(fixtureFiles(rooms)).message).toContain('duplicate object id "obj_p"');
  });

  it("rejects bad object properties and unknown object types", () => {
    const rooms = baseRooms();
    rooms[1] = {
      ...rooms[1]!,
      objects: [...rooms[1]!.objects, { type: "sign", name: "empty", tx: 3, ty: 3 }],
    };
    expect(loadError(fixtureFiles(rooms)).message).toContain("properties.text: expected a string");
    rooms[1] = {
      ...rooms[1]!,
      objects: [...baseRooms()[1]!.objects, { type: "teapot", name: "t", tx: 3, ty: 3 }],
    };
    expect(loadError(fixtureFiles(rooms)).message).toContain('unknown object type "teapot"');
  });

  it("accepts Tiled's `class` in place of `type`", () => {
    const files = fixtureFiles(baseRooms());
    const map = JSON.parse(
      tiledMapJson(openRoom(10, 8), [
        { type: "spawn", name: "s", tx: 2, ty: 2 },
        { type: "sign", name: "c", tx: 3, ty: 3, props: { text: "hi" } },
      ]),
    );
    const sign = map.layers[3].objects[1];
    sign.class = sign.type;
    delete sign.type;
    files.set("maps/b.json", JSON.stringify(map));
    expect(parseWorld(files).rooms.b!.objects[0]!.objectType).toBe("sign");
  });
});
