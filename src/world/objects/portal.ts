import { ROOM_ID_PATTERN } from "../ids.ts";
import type { InteractContext, InteractOutcome, ObjectTypeHandler } from "./object-type.ts";

/** A portal leads to a room of this world, or, with `targetWorld` (a cluster room id), to a room
 * of another world, hosted by whichever gateway serves it (docs/cluster.md). */
function travel(ctx: InteractContext): InteractOutcome {
  const roomId = String(ctx.state.targetRoom);
  const tile = { tx: Number(ctx.state.targetTx), ty: Number(ctx.state.targetTy) };
  const world = ctx.state.targetWorld;
  if (typeof world === "string") {
    ctx.sendActor(world, roomId, tile);
    return { type: "ok", message: `You step through the portal to ${roomId} in ${world}.` };
  }
  ctx.moveActor(roomId, tile);
  return { type: "ok", message: `You step through the portal to ${roomId}.` };
}

export const portal: ObjectTypeHandler = {
  objectType: "portal",
  props: { targetRoom: "string", targetTx: "int", targetTy: "int" },
  optionalProps: { targetWorld: "string" },
  actions: ["use"],
  about:
    "`use`, or stepping on it: the actor moves to the target room and tile (inside the map, not blocked, not another portal). `targetWorld`: a cluster room of another world (docs/cluster.md).",
  validate(def, rooms) {
    const world = def.props.targetWorld;
    if (world !== undefined) {
      // Another world's map is not known here: its gateway places an arrival on a spawn when the
      // target tile is not walkable there (World.applyArrive).
      if (typeof world !== "string" || !ROOM_ID_PATTERN.test(world))
        return { field: "targetWorld", problem: `must match ${ROOM_ID_PATTERN.source}` };
      if (!ROOM_ID_PATTERN.test(String(def.props.targetRoom)))
        return { field: "targetRoom", problem: `must match ${ROOM_ID_PATTERN.source}` };
      const tx = Number(def.props.targetTx);
      const ty = Number(def.props.targetTy);
      return tx >= 0 && ty >= 0 ? undefined : { field: "targetTx/targetTy", problem: "must not be negative" };
    }
    const room = rooms[String(def.props.targetRoom)];
    if (!room) return { field: "targetRoom", problem: `room "${def.props.targetRoom}" does not exist` };
    const tx = Number(def.props.targetTx);
    const ty = Number(def.props.targetTy);
    if (tx < 0 || ty < 0 || tx >= room.widthTiles || ty >= room.heightTiles) {
      return { field: "targetTx/targetTy", problem: `tile (${tx}, ${ty}) is outside room "${room.roomId}"` };
    }
    const closedDoorThere = room.objects.some(
      (o) => o.objectType === "door" && o.props.open !== true && o.tile.tx === tx && o.tile.ty === ty,
    );
    if (room.blocked[ty * room.widthTiles + tx] === 1 || closedDoorThere) {
      return {
        field: "targetTx/targetTy",
        problem: `tile (${tx}, ${ty}) in room "${room.roomId}" is blocked`,
      };
    }
    // Stepping onto a portal uses it: arriving on one would carry the traveller on at once.
    if (room.objects.some((o) => o.objectType === "portal" && o.tile.tx === tx && o.tile.ty === ty)) {
      return {
        field: "targetTx/targetTy",
        problem: `tile (${tx}, ${ty}) in room "${room.roomId}" holds a portal`,
      };
    }
    return undefined;
  },
  initialState: (def) => ({
    targetRoom: String(def.props.targetRoom),
    targetTx: Number(def.props.targetTx),
    targetTy: Number(def.props.targetTy),
    ...(typeof def.props.targetWorld === "string" ? { targetWorld: def.props.targetWorld } : {}),
  }),
  affordances: (state) => [
    {
      action: "use",
      label:
        typeof state.targetWorld === "string"
          ? `Go to ${state.targetRoom} in ${state.targetWorld}`
          : `Go to ${state.targetRoom}`,
    },
  ],
  interact: (ctx) => travel(ctx),
  // Standing on it is using it, as its sign says.
  enter: (ctx) => travel(ctx),
};
