// An actor using an object: what the object's handler may do to the world (objects/types.ts
// InteractContext), seating, stepping onto an object's tile.
import type { Actor } from "./actor.ts";
import type { WorldCore } from "./core.ts";
import type { ActorDealings, InteractContext, InteractOutcome } from "./objects/object-type.ts";
import { actorOnTile, depart, releaseHeld, setObjectState, stop, teleport } from "./placement.ts";
import { byPlaceOrder, covers } from "./places.ts";
import type { WorldObject } from "./room.ts";
import type { Facing } from "./types.ts";

/** A region's name, whatever room it is in (region ids are unique across the world). */
export function regionName(w: Pick<WorldCore, "rooms">, regionId: string): string | undefined {
  for (const room of w.rooms.values()) {
    const region = room.def.regions.find((r) => r.id === regionId);
    if (region) return region.name;
  }
  return undefined;
}

/** An object's dealings with one actor (its record of it, a line to it), wherever the actor is. */
function dealings(w: WorldCore, actor: Actor, obj: WorldObject): ActorDealings {
  return {
    def: obj.def,
    actorId: actor.id,
    actorName: actor.name,
    record: () => w.records.get(obj.def.id, actor.id),
    setRecord: (record) => w.records.set(obj.def.id, actor.id, record),
    say: (message) => {
      const room = w.rooms.get(actor.roomId)!;
      w.sayTo(room, actor.id, obj.def.id, obj.handler.speaker?.(obj.def) ?? obj.def.name, message);
    },
    placesHere: () => {
      const room = w.rooms.get(actor.roomId)!;
      return room.def.regions
        .filter((r) => covers(r, actor.tx, actor.ty))
        .sort(byPlaceOrder)
        .map((r) => r.id);
    },
    placeName: (regionId) => regionName(w, regionId),
  };
}

/** An actor moved or arrived: an object that watches where actors go (`visit`) hears of it. */
export function visitObject(w: WorldCore, actor: Actor, obj: WorldObject, entered: readonly string[]): void {
  const room = w.rooms.get(actor.roomId)!;
  const ts = room.tileSize;
  const distanceTiles =
    obj.def.roomId === actor.roomId
      ? Math.hypot((obj.def.tile.tx + 0.5) * ts - actor.x, (obj.def.tile.ty + 0.5) * ts - actor.y) / ts
      : Number.POSITIVE_INFINITY;
  obj.handler.visit!(
    {
      ...dealings(w, actor, obj),
      objectId: obj.def.id,
      state: obj.state,
      distanceTiles,
      setState: (field, value) => setObjectState(w, obj, field, value, actor.id),
    },
    entered,
  );
}

export function interactContext(w: WorldCore, actor: Actor, obj: WorldObject): InteractContext {
  const room = w.rooms.get(obj.def.roomId)!;
  return {
    ...dealings(w, actor, obj),
    objectId: obj.def.id,
    state: obj.state,
    nowMs: w.serverTsMs,
    setState: (field, value) => setObjectState(w, obj, field, value, actor.id),
    moveActor: (roomId, tile) => teleport(w, actor, roomId, tile),
    sendActor: (world, roomId, tile) => depart(w, actor, world, roomId, tile),
    tileOccupied: () => actorOnTile(room, obj.def.tile.tx, obj.def.tile.ty),
    othersIn: (regionId) => {
      const region = room.def.regions.find((r) => r.id === regionId);
      if (!region) return 0;
      return room.actors.filter((a) => a.id !== actor.id && covers(region, a.tx, a.ty)).length;
    },
    hold: (facing) => hold(w, actor, obj, facing),
    inRoom: (actorId) => room.actors.some((a) => a.id === actorId),
    postNotice: (boardId, text) => {
      const board = w.objects.get(boardId);
      if (!board || board.def.roomId !== obj.def.roomId || board.def.objectType !== "notice_board")
        return { type: "invalid_action", message: `no notice board ${boardId} in this room` };
      return board.handler.interact(interactContext(w, actor, board), "post", { text });
    },
  };
}

/** Seats an actor on an object's tile (it lets go of anything it held before). */
function hold(w: WorldCore, actor: Actor, obj: WorldObject, facing: Facing): void {
  releaseHeld(w, actor);
  const room = w.rooms.get(actor.roomId)!;
  stop(actor);
  teleport(w, actor, room.def.roomId, obj.def.tile);
  actor.facing = facing;
}

/** An actor stepped onto a tile whose object acts on arrival (a portal): as if it used it. */
export function enterObject(w: WorldCore, actor: Actor, obj: WorldObject): void {
  const enter = obj.handler.enter;
  if (!enter) return;
  const room = w.rooms.get(actor.roomId)!;
  const mask = actor.regionMask;
  const outcome = enter(interactContext(w, actor, obj));
  if (!outcome) return;
  if (outcome.type === "ok") room.signals.count(w.signalBucket(), mask, "interact");
  const said = outcome.message === undefined ? "" : ` — ${outcome.message}`;
  w.remember(actor.id, "used", `stepped onto ${obj.def.name}: ${outcome.type}${said}`);
}

/** The outcome an object gave, as the world's answer (only the fields it set). */
export function outcomeOf(outcome: InteractOutcome): { type: InteractOutcome["type"]; message?: string } {
  return outcome.message === undefined
    ? { type: outcome.type }
    : { type: outcome.type, message: outcome.message };
}
