import { describe, expect, it } from "vitest";
import { lobbyMaps } from "../../scripts/gen-lobby-maps.ts";
import { parseIsoToMs, timeOfDay } from "../../src/world/time.ts";
import { type LampMapData, lampShines, lampsLit, lampTilesOf } from "./lamps.ts";

/** Lit or not at a moment of the world, as the page decides it: by the tint's part of the day. */
const litAt = (iso: string) => lampsLit(timeOfDay(parseIsoToMs(iso)!).part);

describe("the map's lamps", () => {
  it("are lit at night and out by day, turning at the hours the tint turns", () => {
    expect(litAt("2026-02-10T08:00:00Z")).toBe(false);
    expect(litAt("2026-02-10T13:00:00Z")).toBe(false);
    expect(litAt("2026-02-10T20:59:59Z")).toBe(false); // evening: tinted, not yet dark
    expect(litAt("2026-02-10T21:00:00Z")).toBe(true);
    expect(litAt("2026-02-11T00:30:00Z")).toBe(true);
    expect(litAt("2026-02-11T04:59:59Z")).toBe(true);
    expect(litAt("2026-02-11T05:00:00Z")).toBe(false);
  });

  it("are the tiles the tileset marks as lights, on the ground or decor layer", () => {
    const map: LampMapData = {
      width: 3,
      tilesets: [
        { firstgid: 1, tiles: [{ id: 4, properties: [{ name: "light", value: true }] }, { id: 1 }] },
      ],
      layers: [
        { name: "ground", type: "tilelayer", data: [1, 1, 5, 1, 1, 1] },
        { name: "decor", type: "tilelayer", data: [0, 0, 0, 5, 2, 0] },
        // The collision layer draws nothing: a light's gid there is no lamp.
        { name: "collision", type: "tilelayer", data: [5, 5, 5, 5, 5, 5] },
      ],
    };
    expect(lampTilesOf(map)).toEqual([
      { tx: 2, ty: 0 },
      { tx: 0, ty: 1 },
    ]);
    expect(lampTilesOf({ ...map, tilesets: [{ firstgid: 1 }] })).toEqual([]);
  });

  it("stand in the bundled town's square and street, and in its café and library", () => {
    const town = JSON.parse(lobbyMaps()["town.json"]) as LampMapData;
    const lamps = lampTilesOf(town).map((t) => `${t.tx},${t.ty}`);
    expect(lamps).toEqual(expect.arrayContaining(["19,14", "36,14", "19,26", "36,26", "14,18", "40,22"]));
    expect(lamps).toContain("15,10"); // the café
    expect(lamps).toContain("51,11"); // the library
    for (const name of ["lobby.json", "garden.json"] as const)
      expect(lampTilesOf(JSON.parse(lobbyMaps()[name]) as LampMapData).length).toBeGreaterThan(0);
  });

  it("a lamp inside a place closed now stays out; one outside it shines", () => {
    const cafe = { id: "cafe", tile: { tx: 10, ty: 5 }, widthTiles: 8, heightTiles: 6 };
    expect(lampShines({ tx: 15, ty: 11 }, [cafe])).toBe(true); // just below it, on the street
    expect(lampShines({ tx: 15, ty: 10 }, [cafe])).toBe(false);
    expect(lampShines({ tx: 15, ty: 9 }, [])).toBe(true);
  });
});
