// Each kind of mistake in a world directory, and what the error says: the file, then the line and
// column of text that does not parse, or the path of a field that parsed but is wrong.
import { describe, expect, it } from "vitest";
import { parseWorld } from "./definition.ts";
import { type FixtureRoom, fixtureFiles, openRoom, worldLoadError } from "./testing/fixtures.ts";
import { positionOf } from "./text-errors.ts";

const rooms = (): FixtureRoom[] => [
  {
    id: "a",
    rows: openRoom(10, 8),
    objects: [
      { type: "spawn", name: "s", tx: 2, ty: 2 },
      { type: "sign", name: "hello", tx: 4, ty: 2, props: { text: "Hello" } },
      { type: "portal", name: "p", tx: 5, ty: 5, props: { targetRoom: "a", targetTx: 2, targetTy: 4 } },
    ],
  },
];

const loadError = worldLoadError;

/** The fixture world with one file's text changed. */
function edited(file: string, edit: (text: string) => string): Map<string, string> {
  const files = fixtureFiles(rooms());
  files.set(file, edit(files.get(file)!));
  return files;
}

/** The map as pretty-printed JSON (as Tiled writes it), so that lines mean something. */
function prettyMap(edit: (map: { layers: { objects?: { properties?: { value: unknown }[] }[] }[] }) => void) {
  const files = fixtureFiles(rooms());
  const map = JSON.parse(files.get("maps/a.json")!);
  edit(map);
  files.set("maps/a.json", JSON.stringify(map, null, 1));
  return files;
}

describe("a world that does not load says where and what", () => {
  it("loads as written (the fixture itself is fine)", () => {
    expect(parseWorld(fixtureFiles(rooms())).rooms.a!.objects).toHaveLength(2);
  });

  it("TOML that does not parse: world.toml, line and column", () => {
    const err = loadError(edited("world.toml", (toml) => toml.replace(/^seed = .*$/m, "seed = ")));
    const line = fixtureFiles(rooms())
      .get("world.toml")!
      .split("\n")
      .findIndex((l) => l.startsWith("seed"));
    expect(err.file).toBe("world.toml");
    expect(err.at?.line).toBe(line + 1);
    expect(err.message).toMatch(
      new RegExp(`^world\\.toml:${line + 1}:\\d+: unreadable TOML: invalid value$`),
    );
  });

  it("a TOML value of the wrong kind: the field", () => {
    const err = loadError(edited("world.toml", (toml) => toml.replace(/^seed = .*$/m, 'seed = "one"')));
    expect(err.message).toBe('world.toml: seed: expected a number, got "one"');
  });

  it("a room's missing map file: the file and the field that names it", () => {
    const err = loadError(edited("world.toml", (toml) => toml.replace("maps/a.json", "maps/cafe.json")));
    expect(err.message).toBe("maps/cafe.json: missing map file (rooms[0].map)");
  });

  it("JSON that does not parse: the map, line and column (a missing comma)", () => {
    const files = prettyMap(() => {});
    const text = files.get("maps/a.json")!;
    const cut = text.indexOf('"orientation"');
    const broken = `${text.slice(0, cut - 3)}${text.slice(cut - 2)}`; // the comma before it
    files.set("maps/a.json", broken);
    const err = loadError(files);
    expect(err.at).toEqual(positionOf(broken, broken.indexOf('"orientation"')));
    expect(err.message).toMatch(/^maps\/a\.json:\d+:\d+: unreadable JSON: Expected ',' or '}'/);
  });

  it("JSON that does not parse where the parser gives no position (a bad word): still a line", () => {
    const files = prettyMap(() => {});
    const text = files.get("maps/a.json")!.replace('"orthogonal"', "orthogonal");
    files.set("maps/a.json", text);
    const err = loadError(files);
    expect(err.at).toEqual(positionOf(text, text.indexOf("orthogonal")));
    expect(err.message).toMatch(/^maps\/a\.json:\d+:\d+: unreadable JSON: Unexpected token 'o'$/);
  });

  it("JSON cut short: the end of the file", () => {
    expect(loadError(edited("maps/a.json", () => "")).message).toBe(
      "maps/a.json:1:1: unreadable JSON: Unexpected end of JSON input",
    );
    const text = fixtureFiles(rooms()).get("maps/a.json")!.slice(0, -1);
    const err = loadError(edited("maps/a.json", () => text));
    expect(err.at).toEqual(positionOf(text, text.length));
    expect(err.message).toContain("unreadable JSON: Expected ',' or '}' after property value");
  });

  it("a property of the wrong kind: the object and property", () => {
    const err = loadError(
      prettyMap((map) => {
        map.layers[3]!.objects![1]!.properties![0]!.value = 7;
      }),
    );
    expect(err.message).toBe(
      "maps/a.json: layers.objects.objects[1] (hello).properties.text: expected a string, got 7",
    );
  });

  it("a portal to an unknown room: the object, the property and the room", () => {
    const err = loadError(
      prettyMap((map) => {
        map.layers[3]!.objects![2]!.properties![0]!.value = "x";
      }),
    );
    expect(err.message).toBe(
      'maps/a.json: layers.objects (p).properties.targetRoom: room "x" does not exist',
    );
  });

  it("an unknown object type: the object and its type", () => {
    const err = loadError(
      prettyMap((map) => {
        (map.layers[3]!.objects![1] as { type: string }).type = "signpost";
      }),
    );
    expect(err.message).toBe('maps/a.json: layers.objects.objects[1].type: unknown object type "signpost"');
  });

  it("a tileset tile's water mark that is not a bool: the tile and the property", () => {
    const files = edited("maps/a.json", (text) => {
      const map = JSON.parse(text);
      map.tilesets[0].tiles = [{ id: 4, properties: [{ name: "water", type: "string", value: "yes" }] }];
      return JSON.stringify(map);
    });
    expect(loadError(files).message).toMatch(
      /maps\/a\.json.*tilesets\[0\]\.tiles\[0\]\.properties\.water.*expected a bool/,
    );
  });

  it("positions count lines and columns from 1", () => {
    expect(positionOf("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(positionOf("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(positionOf("ab\ncd", 99)).toEqual({ line: 2, column: 3 });
  });
});
