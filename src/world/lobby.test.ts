// biome-ignore-all lint/style/noRestrictedImports: this test checks the bundled world as the runtime loads it from disk.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import { PathFinder } from "./grid.ts";
import { join, one, walkTo } from "./testing/helpers.ts";
import { World } from "./world.ts";

const def = await loadWorldDir(fileURLToPath(new URL("../../worlds/lobby", import.meta.url)));

describe("bundled lobby world", () => {
  it("has three 40x30+ rooms with spawns, signs, portals both ways and a door", () => {
    expect(def.name).toBe("lobby");
    expect(def.defaultRoomId).toBe("lobby");
    for (const id of ["lobby", "garden", "town"]) {
      const room = def.rooms[id]!;
      expect(room.widthTiles).toBeGreaterThanOrEqual(40);
      expect(room.heightTiles).toBeGreaterThanOrEqual(30);
      expect(room.spawns.length).toBeGreaterThanOrEqual(3);
      expect(room.objects.filter((o) => o.objectType === "sign").length).toBeGreaterThanOrEqual(3);
    }
    expect(def.rooms.lobby!.objects.find((o) => o.id === "obj_portal_to_garden")!.props.targetRoom).toBe(
      "garden",
    );
    expect(def.rooms.garden!.objects.find((o) => o.id === "obj_portal_to_lobby")!.props.targetRoom).toBe(
      "lobby",
    );
    expect(def.rooms.lobby!.objects.some((o) => o.objectType === "door")).toBe(true);
    expect(def.rooms.lobby!.objects.find((o) => o.id === "obj_portal_to_town")!.props.targetRoom).toBe(
      "town",
    );
    expect(def.rooms.town!.objects.find((o) => o.id === "obj_town_portal_to_lobby")!.props.targetRoom).toBe(
      "lobby",
    );
  });

  it("the town has at least four named places and every new object type, usable from where it stands", () => {
    const town = def.rooms.town!;
    expect(town.regions.map((r) => r.name)).toEqual(
      expect.arrayContaining(["Town Square", "Café", "Library", "Council Room", "Park", "Market"]),
    );
    const types = new Set(town.objects.map((o) => o.objectType));
    for (const type of ["notice_board", "seat", "private_room", "door", "sign", "portal"])
      expect(types).toContain(type);
    // Every seat stands on a free tile inside a named place, and the private room's region exists.
    for (const seat of town.objects.filter((o) => o.objectType === "seat")) {
      expect(town.blocked[seat.tile.ty * town.widthTiles + seat.tile.tx], seat.id).toBe(0);
      expect(World.create(def).regionsAt("town", seat.tile).length, seat.id).toBeGreaterThan(0);
    }
    const privacy = town.objects.find((o) => o.objectType === "private_room")!;
    expect(town.regions.some((r) => r.id === privacy.props.region)).toBe(true);
  });

  it("every spawn reaches every object on land (with doors open; fish are looked at from the shore)", () => {
    for (const room of Object.values(def.rooms)) {
      const finder = new PathFinder(room.widthTiles * room.heightTiles);
      const grid = { width: room.widthTiles, height: room.heightTiles, blocked: room.blocked };
      for (const spawn of room.spawns) {
        for (const obj of room.objects) {
          const start = spawn.tile.ty * room.widthTiles + spawn.tile.tx;
          const goal = obj.tile.ty * room.widthTiles + obj.tile.tx;
          if (room.water[goal] === 1) continue;
          expect(finder.find(grid, start, goal), `${room.roomId}:${spawn.name} -> ${obj.id}`).toBeDefined();
        }
      }
    }
  });

  it("Scenario A/C: read the welcome sign, then take the portal to the garden", () => {
    const world = World.create(def);
    one(world, join("agt_helper"));
    walkTo(world, "agt_helper", 21, 13);
    const read = one(world, {
      kind: "interact",
      entityId: "agt_helper",
      roomId: "lobby",
      targetId: "obj_sign_welcome",
      action: "read",
    });
    expect(read.ok && read.value).toEqual({
      kind: "interact",
      outcome: { type: "ok", message: "Welcome to OpenClawWorld!" },
    });
    walkTo(world, "agt_helper", 45, 16);
    const use = one(world, {
      kind: "interact",
      entityId: "agt_helper",
      targetId: "obj_portal_to_garden",
      action: "use",
    });
    expect(use.ok).toBe(true);
    expect(world.getEntity("agt_helper")).toMatchObject({ roomId: "garden", tile: { tx: 2, ty: 16 } });
  });

  it("approach walks into reach of a door in a wall, then the door opens; an unknown object is not_found", () => {
    const world = World.create(def);
    one(world, join("agt_walker"));
    walkTo(world, "agt_walker", 30, 12);
    const door = def.rooms.lobby!.objects.find((o) => o.id === "obj_door_meeting")!;
    const approached = one(world, { kind: "approach", entityId: "agt_walker", targetId: door.id });
    if (!approached.ok || approached.value.kind !== "approach") throw new Error(JSON.stringify(approached));
    const { dest } = approached.value;
    expect(approached.value.result).toBe("accepted");
    expect(world.isBlocked("lobby", dest)).toBe(false);
    expect(Math.hypot(dest.tx - door.tile.tx, dest.ty - door.tile.ty)).toBeLessThanOrEqual(
      def.interactRangeTiles,
    );
    for (let i = 0; i < 400 && world.getEntity("agt_walker")!.speed !== 0; i++) world.step([]);
    expect(world.getEntity("agt_walker")!.tile).toEqual(dest);
    const again = one(world, { kind: "approach", entityId: "agt_walker", targetId: door.id });
    expect(again).toMatchObject({ ok: true, value: { kind: "approach", result: "no_op", dest } });
    const open = one(world, { kind: "interact", entityId: "agt_walker", targetId: door.id, action: "open" });
    expect(open).toMatchObject({ ok: true, value: { outcome: { type: "ok" } } });
    expect(one(world, { kind: "approach", entityId: "agt_walker", targetId: "obj_nope" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
  });

  it("approach to a person ends on a free tile beside them, never on theirs; oneself is not_found", () => {
    const world = World.create(def);
    one(world, join("agt_host"));
    one(world, join("agt_guest"));
    walkTo(world, "agt_host", 20, 12);
    walkTo(world, "agt_guest", 26, 12);
    const approached = one(world, { kind: "approach", entityId: "agt_guest", targetId: "agt_host" });
    if (!approached.ok || approached.value.kind !== "approach") throw new Error(JSON.stringify(approached));
    expect(approached.value.dest).toEqual({ tx: 21, ty: 12 });
    for (let i = 0; i < 400 && world.getEntity("agt_guest")!.speed !== 0; i++) world.step([]);
    expect(world.getEntity("agt_guest")!.tile).toEqual({ tx: 21, ty: 12 });
    const again = one(world, { kind: "approach", entityId: "agt_guest", targetId: "agt_host" });
    expect(again).toMatchObject({ ok: true, value: { result: "no_op", dest: { tx: 21, ty: 12 } } });
    // A third comes up beside the host too: not onto the guest's tile, nor the host's.
    one(world, join("agt_third"));
    walkTo(world, "agt_third", 26, 12);
    const third = one(world, { kind: "approach", entityId: "agt_third", targetId: "agt_host" });
    if (!third.ok || third.value.kind !== "approach") throw new Error(JSON.stringify(third));
    expect(third.value.dest).not.toEqual({ tx: 21, ty: 12 });
    expect(Math.max(Math.abs(third.value.dest.tx - 20), Math.abs(third.value.dest.ty - 12))).toBe(1);
    expect(one(world, { kind: "approach", entityId: "agt_host", targetId: "agt_host" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
  });
});
