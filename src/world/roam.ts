// What a creature may know of its room each tick (objects/object-type.ts RoamContext): where it may
// stand and who is near. Everything it reads is world state, and its chance is drawn from the
// world's seed, its id and the moment (rng.ts keyedInt), so a replay from any snapshot moves it alike.
import { compareIds } from "./actor.ts";
import type { WorldCore } from "./core.ts";
import type { Noticed, ObjectState, RoamContext } from "./objects/object-type.ts";
import { keyedInt } from "./rng.ts";
import type { Room, WorldObject } from "./room.ts";
import type { RegionDefinition } from "./types.ts";

const within = (r: RegionDefinition, tx: number, ty: number) =>
  tx >= r.tile.tx && ty >= r.tile.ty && tx < r.tile.tx + r.widthTiles && ty < r.tile.ty + r.heightTiles;

export function roamContext(w: WorldCore, obj: WorldObject): RoamContext {
  const room = w.rooms.get(obj.def.roomId)!;
  const homeId = obj.def.props.region;
  const home = typeof homeId === "string" ? room.def.regions.find((r) => r.id === homeId) : undefined;
  let closed: RegionDefinition[] | undefined;
  let draws = 0;
  const mayStand = (tx: number, ty: number): boolean => {
    if (!room.inBounds(tx, ty) || room.blocked[ty * room.width + tx] === 1) return false;
    if (home && !within(home, tx, ty)) return false;
    closed ??= room.privatePlaces();
    return !closed.some((r) => within(r, tx, ty));
  };
  return {
    objectId: obj.def.id,
    state: obj.state,
    def: obj.def,
    nowMs: w.serverTsMs,
    home: home
      ? { ...home.tile, widthTiles: home.widthTiles, heightTiles: home.heightTiles }
      : { tx: 0, ty: 0, widthTiles: room.width, heightTiles: room.height },
    int: (from, to) => keyedInt(w.definition.seed, obj.def.id, w.serverTsMs, draws++, from, to),
    mayStand,
    nearestPerson: (radiusTiles, except) => nearestPerson(room, obj, radiusTiles, mayStand, except),
    person: (id) => {
      const actor = w.actors.get(id);
      return actor && actor.roomId === room.def.roomId ? noticed(actor) : undefined;
    },
    quietly: (fields: Readonly<ObjectState>) => Object.assign(obj.state, fields),
  };
}

const noticed = (a: { id: string; name: string; tx: number; ty: number }): Noticed => ({
  id: a.id,
  name: a.name,
  tx: a.tx,
  ty: a.ty,
});

function nearestPerson(
  room: Room,
  obj: WorldObject,
  radiusTiles: number,
  mayStand: (tx: number, ty: number) => boolean,
  except: string | undefined,
): Noticed | undefined {
  const ts = room.tileSize;
  const at = obj.handler.tileOf?.(obj.state) ?? obj.def.tile;
  let best: { id: string; d: number; n: Noticed } | undefined;
  // The grid's cells hold actors in arrival order, which a restore does not keep: ties go by id.
  room.grid.forEachWithin((at.tx + 0.5) * ts, (at.ty + 0.5) * ts, radiusTiles * ts, (actor, d) => {
    if (actor.id === except || !mayStand(actor.tx, actor.ty)) return;
    if (!best || d < best.d || (d === best.d && compareIds(actor.id, best.id) < 0))
      best = { id: actor.id, d, n: noticed(actor) };
  });
  return best?.n;
}
