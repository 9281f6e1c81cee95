import { describe, expect, it } from "vitest";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../runtime/load-world-dir.ts";
import { placesOf } from "./places.ts";

describe("the places a walking resident is told of", () => {
  it("the town's, largest first, each at a free tile inside it (the café among them)", async () => {
    const world = await loadWorldDir(BUNDLED_WORLD_DIR);
    const town = world.rooms.town!;
    const places = placesOf(town);
    expect(places.slice(0, 8).map((p) => p.name)).toContain("Café");
    for (const p of places) {
      expect(town.blocked[p.ty * town.widthTiles + p.tx]).toBe(0);
      expect(town.objects.some((o) => o.tile.tx === p.tx && o.tile.ty === p.ty)).toBe(false);
      const region = town.regions.find((r) => r.name === p.name)!;
      expect(p.tx).toBeGreaterThanOrEqual(region.tile.tx);
      expect(p.tx).toBeLessThan(region.tile.tx + region.widthTiles);
    }
    expect(new Set(places.map((p) => p.name)).size).toBe(places.length);
    expect(placesOf(undefined)).toEqual([]);
  });
});
