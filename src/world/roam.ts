// What a creature may know of its room each tick (objects/object-type.ts RoamContext): where it may
// stand or swim (habitat.ts, less what the running world closes) and who is near. Everything it
// reads is world state, and its chance is drawn from the world's seed, its id and the moment
// (rng.ts keyedInt), so a replay from any snapshot moves it alike.
import { compareIds } from "./actor.ts";
import type { WorldCore } from "./core.ts";
import { habitable, homeOf, regionRect, wholeRoom, within } from "./habitat.ts";
import type { Noticed, ObjectState, RoamContext } from "./objects/object-type.ts";
import { keyedInt } from "./rng.ts";
import type { Room, WorldObject } from "./room.ts";
import type { RegionDefinition } from "./types.ts";

export function roamContext(w: WorldCore, obj: WorldObject): RoamContext {
  const room = w.rooms.get(obj.def.roomId)!;
  // A home region the definition lacks never reaches here: the loader refuses it and a new
  // definition refits the creature (fit-definition.ts); the whole room stands in should one slip by.
  const home = homeOf(room.def, obj.def) ?? wholeRoom(room.def);
  let closed: RegionDefinition[] | undefined;
  let draws = 0;
  const open = (tx: number, ty: number): boolean => {
    closed ??= room.privatePlaces();
    return !closed.some((r) => within(regionRect(r), tx, ty));
  };
  const onLand = habitable(room.def, home, false, room.blocked);
  const inWater = habitable(room.def, home, true);
  const mayStand = (tx: number, ty: number): boolean => onLand(tx, ty) && open(tx, ty);
  const maySwim = (tx: number, ty: number): boolean => inWater(tx, ty) && open(tx, ty);
  // Someone at the water's edge stands on land a fish cannot reach: it notices anyone in its home.
  const inHome = (tx: number, ty: number): boolean => within(home, tx, ty) && open(tx, ty);
  return {
    objectId: obj.def.id,
    state: obj.state,
    def: obj.def,
    nowMs: w.serverTsMs,
    home,
    int: (from, to) => keyedInt(w.definition.seed, obj.def.id, w.serverTsMs, draws++, from, to),
    mayStand,
    maySwim,
    nearestPerson: (radiusTiles, except) => nearestPerson(room, obj, radiusTiles, mayStand, except),
    nearestOnShore: (radiusTiles) => nearestPerson(room, obj, radiusTiles, inHome, undefined),
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
  where: (tx: number, ty: number) => boolean,
  except: string | undefined,
): Noticed | undefined {
  const ts = room.tileSize;
  const at = obj.handler.tileOf?.(obj.state) ?? obj.def.tile;
  let best: { id: string; d: number; n: Noticed } | undefined;
  // The grid's cells hold actors in arrival order, which a restore does not keep: ties go by id.
  room.grid.forEachWithin((at.tx + 0.5) * ts, (at.ty + 0.5) * ts, radiusTiles * ts, (actor, d) => {
    if (actor.id === except || !where(actor.tx, actor.ty)) return;
    if (!best || d < best.d || (d === best.d && compareIds(actor.id, best.id) < 0))
      best = { id: actor.id, d, n: noticed(actor) };
  });
  return best?.n;
}
