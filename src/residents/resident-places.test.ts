import { describe, expect, it } from "vitest";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../runtime/load-world-dir.ts";
import { placesFrom, placesOf, portalToward } from "./resident-places.ts";

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

  it("from the lobby: its own places, then the town's and the garden's, each with the portal that leads there", async () => {
    const world = await loadWorldDir(BUNDLED_WORLD_DIR);
    const places = placesFrom(world, "lobby", 8);
    expect(places.filter((p) => !p.beyond).map((p) => p.name)).toEqual(
      placesOf(world.rooms.lobby)
        .slice(0, 8)
        .map((p) => p.name),
    );
    expect(places.find((p) => p.name === "Café")).toMatchObject({
      beyond: { roomName: "Town", portal: { tx: 1, ty: 16 } },
    });
    expect(places.find((p) => p.beyond?.roomName === "Garden")?.beyond?.portal).toEqual({ tx: 46, ty: 16 });
  });

  it("the way home: the portal on the fewest crossings, also two rooms away", async () => {
    const world = await loadWorldDir(BUNDLED_WORLD_DIR);
    expect(portalToward(world, "lobby", "town")).toEqual({ tx: 1, ty: 16, toRoomId: "town" });
    expect(portalToward(world, "town", "lobby")).toEqual({ tx: 54, ty: 20, toRoomId: "lobby" });
    // Town to garden goes through the lobby: the first step is the town's portal.
    expect(portalToward(world, "town", "garden")).toEqual({ tx: 54, ty: 20, toRoomId: "lobby" });
    expect(portalToward(world, "town", "nowhere")).toBeUndefined();
  });
});
