// "Walk to where I can use this object": the destination comes from the world's pure approachTile
// over the room's current blocked tiles (walls and closed doors), so a click on a door in a wall walks
// to the reachable side instead of asking for the wall tile below it.
import { approachTile } from "../../world/approach.ts";
import type { TileCoord, WorldApi } from "../../world/types.ts";

export type ApproachResult =
  | { ok: true; dest: TileCoord }
  | { ok: false; code: "not_found" | "collision_blocked" | "agent_not_in_room"; message: string };

export function approachDestination(
  world: Pick<WorldApi, "getEntity" | "definition" | "isBlocked">,
  entityId: string,
  targetId: string,
): ApproachResult {
  const self = world.getEntity(entityId);
  if (!self) return { ok: false, code: "agent_not_in_room", message: `${entityId} is not in the world` };
  const room = world.definition.rooms[self.roomId]!;
  const target = room.objects.find((o) => o.id === targetId);
  if (!target) return { ok: false, code: "not_found", message: `no object "${targetId}" in this room` };
  const { widthTiles: width, heightTiles: height } = room;
  const blocked = new Uint8Array(width * height);
  for (let ty = 0; ty < height; ty++)
    for (let tx = 0; tx < width; tx++)
      if (world.isBlocked(self.roomId, { tx, ty })) blocked[ty * width + tx] = 1;
  const dest = approachTile(
    { width, height, blocked },
    self.tile,
    target.tile,
    world.definition.interactRangeTiles,
  );
  return dest
    ? { ok: true, dest }
    : { ok: false, code: "collision_blocked", message: `${target.name} cannot be reached from here` };
}
