import type { InteractContext, InteractOutcome, ObjectTypeHandler } from "./types.ts";

function travel(ctx: InteractContext): InteractOutcome {
  const roomId = String(ctx.state.targetRoom);
  ctx.moveActor(roomId, { tx: Number(ctx.state.targetTx), ty: Number(ctx.state.targetTy) });
  return { type: "ok", message: `You step through the portal to ${roomId}.` };
}

export const portal: ObjectTypeHandler = {
  objectType: "portal",
  props: { targetRoom: "string", targetTx: "int", targetTy: "int" },
  actions: ["use"],
  validate(def, rooms) {
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
  }),
  affordances: (state) => [{ action: "use", label: `Go to ${state.targetRoom}` }],
  interact: (ctx) => travel(ctx),
  // Standing on it is using it, as its sign says.
  enter: (ctx) => travel(ctx),
};
