// An entity as the browser is shown it (positions in whole world units: the client smooths between
// patches anyway, and short numbers are most of a delta's bytes). Deltas: patch-fragments.ts.
import path from "node:path";
import type { EntityView, WorldReads } from "../../aic/reads.ts";
import type { WireEntity, WireObject, WireRoom } from "./protocol.ts";

export function toWire(view: EntityView, h: number): WireEntity {
  return {
    h,
    id: view.id,
    kind: view.kind === "agent" ? "agent" : "human",
    name: view.name,
    x: Math.round(view.pos.x),
    y: Math.round(view.pos.y),
    tx: view.tile.tx,
    ty: view.tile.ty,
    facing: view.facing,
    ...(view.thinking ? { thinking: true } : {}),
    ...(view.asleep ? { asleep: true } : {}),
    ...(view.unwell ? { unwell: true } : {}),
    ...(view.away ? { away: true } : {}),
  };
}

/** A room as the browser is told it (the live view and the operator's replay both send it). */
export function toWireRoom(
  definition: {
    tickRate: number;
    chatRadiusTiles: number;
    rooms: Record<
      string,
      { name: string; mapFile: string; widthTiles: number; heightTiles: number; tileSize: number }
    >;
  },
  roomId: string,
): WireRoom {
  const room = definition.rooms[roomId]!;
  return {
    roomId,
    name: room.name,
    mapUrl: `/world/${room.mapFile.split(path.sep).join("/")}`,
    widthTiles: room.widthTiles,
    heightTiles: room.heightTiles,
    tileSize: room.tileSize,
    tickRate: definition.tickRate,
    chatRadiusTiles: definition.chatRadiusTiles,
  };
}

/** A room's objects as the browser is shown them, each on the tile it stands on now (a creature
 * moves); the live view, the replay and the follow page all send them so. */
export function toWireObjects(
  world: Pick<WorldReads, "definition" | "objectView" | "getEntity">,
  roomId: string,
  only?: (objectType: string) => boolean,
): WireObject[] {
  return world.definition.rooms[roomId]!.objects.flatMap((o) => {
    if (only && !only(o.objectType)) return [];
    const view = world.objectView(o.id);
    if (!view) return [];
    const tile = world.getEntity(o.id)?.tile ?? o.tile;
    const { objectType, state, version, affords } = view;
    return [{ id: o.id, objectType, name: o.name, tx: tile.tx, ty: tile.ty, state, version, affords }];
  });
}
