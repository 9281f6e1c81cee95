// Places that open and close by the world's clock: the hours a map declares, a closed place refused
// at its edge with the reason, everyone inside shown out at closing time, and a replay across closing
// exact to the snapshot.
import { describe, expect, it } from "vitest";
import { parseWorld } from "./definition.ts";
import { WORLD_NOTICE_ENTITY_ID } from "./fit-definition.ts";
import { isOpenAt, minuteOfDay } from "./opening-hours.ts";
import {
  type FixtureRegion,
  type FixtureRoom,
  openRoom,
  tiledMapJson,
  worldToml,
} from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import type { Input, WorldDefinition } from "./types.ts";
import { World } from "./world.ts";

const at = (clock: string) => Date.parse(`2026-02-10T${clock}:00Z`);
/** 00:16:55 on the first day: the shop below closes at 00:17, 100 ticks (5 s) in. */
const EPOCH = 16 * 60_000 + 55_000;
const shop: FixtureRegion = {
  id: "shop",
  label: "The Shop",
  tx: 6,
  ty: 2,
  w: 4,
  h: 4,
  hours: { opens: "00:00", closes: "00:17" },
};

function files(regions: FixtureRegion[], epoch = EPOCH): Map<string, string> {
  const rooms: FixtureRoom[] = [
    { id: "a", rows: openRoom(14, 9), objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }], regions },
  ];
  const out = new Map<string, string>();
  out.set("world.toml", worldToml(rooms, {}, { epoch }));
  out.set("maps/a.json", tiledMapJson(rooms[0]!.rows, rooms[0]!.objects, regions));
  return out;
}

const shopWorld = (epoch = EPOCH): WorldDefinition => parseWorld(files([shop], epoch));
const ticksToClose = 100;

describe("opening hours", () => {
  it("open between opens and closes, across midnight when closes comes first", () => {
    const day = { opens: "07:00", closes: "19:00" };
    expect(isOpenAt(day, at("06:59"))).toBe(false);
    expect(isOpenAt(day, at("07:00"))).toBe(true);
    expect(isOpenAt(day, at("18:59"))).toBe(true);
    expect(isOpenAt(day, at("19:00"))).toBe(false);
    const bar = { opens: "18:00", closes: "02:00" };
    expect(isOpenAt(bar, at("23:30"))).toBe(true);
    expect(isOpenAt(bar, at("01:59"))).toBe(true);
    expect(isOpenAt(bar, at("02:00"))).toBe(false);
    expect(minuteOfDay(at("13:45"))).toBe(13 * 60 + 45);
  });

  it("are read from a region's opens and closes properties; a bad clock or one alone is refused", () => {
    expect(shopWorld().rooms.a!.regions[0]!.hours).toEqual({ opens: "00:00", closes: "00:17" });
    expect(() => parseWorld(files([{ ...shop, hours: { opens: "7:00", closes: "19:00" } }]))).toThrow(
      /properties\.opens: expected a clock HH:MM/,
    );
    expect(() => parseWorld(files([{ ...shop, hours: { opens: "07:00", closes: "07:00" } }]))).toThrow(
      /closes at another time than it opens/,
    );
    const lone = files([shop]);
    const map = JSON.parse(lone.get("maps/a.json")!);
    const region = map.layers.find((l: { name: string }) => l.name === "regions").objects[0];
    region.properties = region.properties.filter((p: { name: string }) => p.name !== "closes");
    lone.set("maps/a.json", JSON.stringify(map));
    expect(() => parseWorld(lone)).toThrow(/properties\.closes: expected a clock HH:MM/);
  });

  it("a closed place refuses a walk into it, saying why and when it opens, and changes nothing", () => {
    const world = World.create(shopWorld());
    one(world, join("agt_ann"));
    run(world, ticksToClose);
    expect(world.closedPlaces("a").map((p) => p.id)).toEqual(["shop"]);
    const before = world.getEntity("agt_ann")!;
    const refused = one(world, { kind: "moveTo", entityId: "agt_ann", dest: { tx: 7, ty: 3 } });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: "collision_blocked",
        message: "The Shop is closed; it opens at 00:00.",
        details: { placeId: "shop", opensAt: "00:00" },
      },
    });
    expect(world.getEntity("agt_ann")!.tile).toEqual(before.tile);
    expect(world.isBlocked("a", { tx: 7, ty: 3 })).toBe(true);
    // A walk past it goes round it: the path never enters its tiles.
    expect(one(world, { kind: "moveTo", entityId: "agt_ann", dest: { tx: 11, ty: 3 } }).ok).toBe(true);
    const inShop = ({ tx, ty }: { tx: number; ty: number }) => tx >= 6 && tx < 10 && ty >= 2 && ty < 6;
    for (let i = 0; i < 400 && (world.getEntity("agt_ann")!.speed ?? 0) > 0; i++) {
      world.step([]);
      expect(inShop(world.getEntity("agt_ann")!.tile)).toBe(false);
    }
    expect(world.getEntity("agt_ann")!.tile).toEqual({ tx: 11, ty: 3 });
  });

  it("a held key walking into a closed place stops at its edge and is told why, in the click's words, once", () => {
    const world = World.create(shopWorld());
    one(world, join("hum_cy"));
    walkTo(world, "hum_cy", 3, 3);
    run(world, ticksToClose);
    const toldOf = (steps: { events: { type: string; payload: Record<string, unknown> }[] }[]) =>
      steps
        .flatMap((s) => s.events)
        .filter((e) => e.type === "chat.message" && e.payload.fromEntityId === WORLD_NOTICE_ENTITY_ID)
        .map((e) => e.payload.message);
    const words = "The Shop is closed; it opens at 00:00.";
    // Held east: she walks up to its edge, stops, and is told; held on, nothing more is said.
    const pressed = world.step([{ kind: "moveDir", entityId: "hum_cy", dx: 1, dy: 0 }]);
    const held = [pressed, ...run(world, 60)];
    expect(world.getEntity("hum_cy")!.tile).toEqual({ tx: 5, ty: 3 });
    expect(toldOf(held)).toEqual([words]);
    // Let go and pressed again, flush against it: told at once, and still outside.
    world.step([{ kind: "moveDir", entityId: "hum_cy", dx: 0, dy: 0 }]);
    const again = world.step([{ kind: "moveDir", entityId: "hum_cy", dx: 1, dy: 0 }]);
    expect(toldOf([again, ...run(world, 20)])).toEqual([words]);
    expect(world.getEntity("hum_cy")!.tile).toEqual({ tx: 5, ty: 3 });
    // Walking away from it says nothing.
    world.step([{ kind: "moveDir", entityId: "hum_cy", dx: -1, dy: 0 }]);
    expect(toldOf(run(world, 20))).toEqual([]);
  });

  it("at closing time everyone inside is moved to the nearest open tile outside and told", () => {
    const world = World.create(shopWorld());
    one(world, join("agt_ann"));
    one(world, join("hum_bo"));
    walkTo(world, "agt_ann", 7, 3);
    walkTo(world, "hum_bo", 8, 5);
    const told: string[] = [];
    for (const step of run(world, ticksToClose)) {
      for (const e of step.events)
        if (e.type === "chat.message" && e.payload.fromEntityId === WORLD_NOTICE_ENTITY_ID)
          told.push(`${(e.audience as { ids: string[] }).ids.join()}: ${e.payload.message}`);
    }
    expect(world.getEntity("agt_ann")!.tile).toEqual({ tx: 7, ty: 1 });
    expect(world.getEntity("hum_bo")!.tile).toEqual({ tx: 8, ty: 6 });
    expect(told).toEqual([
      "agt_ann: The Shop closes at 00:17: you were shown out. It opens again at 00:00.",
      "hum_bo: The Shop closes at 00:17: you were shown out. It opens again at 00:00.",
    ]);
    expect(world.memoryOf("agt_ann")!.episodes.map((e) => e.text)).toContain(
      "was shown out of The Shop at closing time",
    );
  });

  it("the way out is through its door, never through a wall into the next room", () => {
    // The shop's walls around it, its door at the bottom (7, 6); beyond the top wall another room.
    const rows = openRoom(14, 9).map((row, y) =>
      [...row]
        .map((c, x) => {
          const ring = x >= 5 && x <= 10 && y >= 1 && y <= 6;
          const inside = x >= 6 && x <= 9 && y >= 2 && y <= 5;
          return ring && !inside && !(x === 7 && y === 6) ? "#" : c;
        })
        .join(""),
    );
    const rooms: FixtureRoom[] = [
      { id: "a", rows, objects: [{ type: "spawn", name: "s", tx: 2, ty: 2 }], regions: [shop] },
    ];
    const walled = new Map([
      ["world.toml", worldToml(rooms, {}, { epoch: EPOCH })],
      ["maps/a.json", tiledMapJson(rows, rooms[0]!.objects, [shop])],
    ]);
    const world = World.create(parseWorld(walled));
    one(world, join("agt_ann"));
    walkTo(world, "agt_ann", 7, 2);
    run(world, ticksToClose);
    expect(world.getEntity("agt_ann")!.tile).toEqual({ tx: 7, ty: 6 });
  });

  it("opens again at its hour, quietly: its tiles are open and nobody is told", () => {
    // 23:59:55: the shop (00:00-00:17) opens 5 s in.
    const world = World.create(shopWorld(at("23:59") - Date.parse("2026-02-10T00:00:00Z") + 55_000));
    one(world, join("agt_ann"));
    expect(world.closedPlaces("a")).toHaveLength(1);
    const steps = run(world, ticksToClose);
    expect(world.closedPlaces("a")).toEqual([]);
    expect(steps.flatMap((s) => s.events).filter((e) => e.type === "chat.message")).toEqual([]);
    expect(one(world, { kind: "moveTo", entityId: "agt_ann", dest: { tx: 7, ty: 3 } }).ok).toBe(true);
  });

  it("a snapshot before closing restores and replays across it exactly", () => {
    const def = shopWorld();
    const world = World.create(def);
    const inputs: Input[][] = [
      [join("agt_ann")],
      [{ kind: "moveTo", entityId: "agt_ann", dest: { tx: 7, ty: 3 } }],
    ];
    for (const tick of inputs) world.step(tick);
    const copy = World.restore(def, world.snapshot());
    for (let i = 0; i < ticksToClose; i++) {
      const a = world.step([]);
      const b = copy.step([]);
      expect(b.events).toEqual(a.events);
    }
    expect(copy.snapshotHash()).toBe(world.snapshotHash());
    expect(copy.getEntity("agt_ann")!.tile).toEqual({ tx: 7, ty: 1 });
    // Restored while closed: its tiles block at once.
    const closed = World.restore(def, world.snapshot());
    expect(closed.isBlocked("a", { tx: 7, ty: 3 })).toBe(true);
  });
});
