// The bundled residents against the bundled world: each home and stop a free tile of its room with no
// object on it or beside it to the north (where its name and bubble are drawn), the config valid, and
// two of them meeting now and then by their routines alone (so they talk, within the talk budget).
import { describe, expect, it } from "vitest";
import { ResolvedConfigSchema } from "../../src/config/config.ts";
import { routineStop } from "../../src/residents/routine.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../src/runtime/load-world-dir.ts";
import { isOpenAt } from "../../src/world/opening-hours.ts";
import { BUNDLED_RESIDENTS, bundledResidentsConfig } from "./bundled-residents.ts";

describe("the bundled residents", () => {
  it("stand on free tiles, never on a sign or object nor just below one", async () => {
    const world = await loadWorldDir(BUNDLED_WORLD_DIR);
    for (const [id, r] of Object.entries(BUNDLED_RESIDENTS)) {
      const room = world.rooms[r.home.roomId]!;
      for (const { tx, ty } of [r.home, ...(r.routine?.stops ?? [])]) {
        expect(room.blocked[ty * room.widthTiles + tx], `${id} at ${tx},${ty}`).toBe(0);
        const covered = room.objects.filter(
          (o) => o.tile.tx === tx && (o.tile.ty === ty || o.tile.ty === ty - 1),
        );
        expect(
          covered.map((o) => o.name),
          `${id} at ${tx},${ty}`,
        ).toEqual([]);
      }
    }
  });

  it("are a valid config: greeters who may talk and walk", () => {
    const config = ResolvedConfigSchema.parse(bundledResidentsConfig());
    expect(Object.keys(config.residents)).toHaveLength(5);
    for (const r of Object.values(config.residents))
      expect(r.wake).toMatchObject({ approach: true, residents: true });
    expect(config.tools.perAgent.clerk?.enabled).toEqual(["ocw_chat_send", "ocw_move_to", "ocw_lead"]);
    // The gardener also uses objects (it waters the garden's plots), the café keeper the game table.
    for (const agentId of ["gardener", "cafe"])
      expect(config.tools.perAgent[agentId]?.enabled).toEqual([
        "ocw_chat_send",
        "ocw_move_to",
        "ocw_lead",
        "ocw_interact",
      ]);
  });

  it("Mara and Amos meet on the square now and then, by their routines alone", () => {
    const { cafe, clerk } = BUNDLED_RESIDENTS;
    const meetings: number[] = [];
    for (let minute = 0; minute < 24 * 60; minute++) {
      const ms = Date.parse("2026-02-10T00:00:00Z") + minute * 60_000;
      const a = routineStop(cafe!.routine, cafe!.home, ms).tile;
      const b = routineStop(clerk!.routine, clerk!.home, ms).tile;
      if (Math.hypot(a.tx - b.tx, a.ty - b.ty) <= 4) meetings.push(minute);
    }
    expect(meetings.length).toBeGreaterThan(0);
    expect(meetings.length).toBeLessThan((24 * 60) / 2);
  });

  it("follow the town's hours: home at night, in the café and library only while they are open", async () => {
    const world = await loadWorldDir(BUNDLED_WORLD_DIR);
    const places = Object.values(world.rooms).flatMap((room) => room.regions.filter((r) => r.hours));
    expect(places.map((p) => p.id).sort()).toEqual(["cafe", "library"]);
    const covering = (tile: { tx: number; ty: number }) =>
      places.find(
        (p) =>
          tile.tx >= p.tile.tx &&
          tile.ty >= p.tile.ty &&
          tile.tx < p.tile.tx + p.widthTiles &&
          tile.ty < p.tile.ty + p.heightTiles,
      );
    const seen = new Set<string>();
    for (const [id, r] of Object.entries(BUNDLED_RESIDENTS)) {
      expect(covering(r.home), `${id}'s home`).toBeUndefined();
      for (let minute = 0; minute < 24 * 60; minute += 5) {
        const ms = Date.parse("2026-02-10T00:00:00Z") + minute * 60_000;
        const stop = routineStop(r.routine, r.home, ms);
        const place = covering(stop.tile);
        if (place) {
          expect(isOpenAt(place.hours!, ms), `${id} in ${place.id} at minute ${minute}`).toBe(true);
          seen.add(`${id}:${place.id}`);
        }
        if (minute < 5 * 60 || minute >= 21 * 60) expect(stop.index, `${id} at minute ${minute}`).toBe(0);
      }
    }
    expect([...seen].sort()).toEqual(["cafe:cafe", "librarian:library"]);
  });
});
