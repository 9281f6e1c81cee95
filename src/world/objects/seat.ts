// A seat (chair, bench, stool): sit on it and stand up again. Sitting puts the actor on the seat's
// tile, facing the way the seat faces; the seat holds it until it stands, walks off, leaves or is
// carried away (the world releases it), so a seat is never held by someone who is not on it.
import type { Facing } from "../types.ts";
import type { ObjectTypeHandler } from "./object-type.ts";

const FACINGS: readonly Facing[] = ["up", "down", "left", "right"];
export const SEAT_STYLES = ["chair", "bench", "stool", "sofa"] as const;

const occupantOf = (state: { occupant?: unknown }) =>
  typeof state.occupant === "string" && state.occupant !== "" ? state.occupant : undefined;

export const seat: ObjectTypeHandler = {
  objectType: "seat",
  props: { facing: "string" },
  optionalProps: { style: "string" },
  actions: ["sit", "stand"],
  about:
    "`facing`: up, down, left or right; `style`: chair (default), bench, stool or sofa. `sit` puts the sitter on its (free) tile facing its way; `stand`, or walking off, stands it up.",
  validate(def, rooms) {
    if (!FACINGS.includes(def.props.facing as Facing))
      return { field: "facing", problem: `expected one of ${FACINGS.join(", ")}` };
    const style = def.props.style;
    if (style !== undefined && !(SEAT_STYLES as readonly unknown[]).includes(style))
      return { field: "style", problem: `expected one of ${SEAT_STYLES.join(", ")}` };
    const room = rooms[def.roomId];
    if (room && room.blocked[def.tile.ty * room.widthTiles + def.tile.tx] === 1)
      return { field: "x/y", problem: "a seat stands on a free tile (its sitter sits there)" };
    return undefined;
  },
  initialState: (def) => ({
    facing: String(def.props.facing),
    style: typeof def.props.style === "string" ? def.props.style : "chair",
    occupant: "",
  }),
  affordances: (state) =>
    occupantOf(state)
      ? [{ action: "stand", label: "Stand up" }]
      : [{ action: "sit", label: `Sit on the ${String(state.style)}` }],
  interact(ctx, action) {
    const occupant = occupantOf(ctx.state);
    if (action === "sit") {
      if (occupant === ctx.actorId) return { type: "no_effect", message: "You are already sitting here." };
      if (occupant) return { type: "no_effect", message: "Someone is sitting here." };
      ctx.hold(ctx.state.facing as Facing);
      ctx.setState("occupant", ctx.actorId);
      return { type: "ok", message: `You sit on the ${String(ctx.state.style)}.` };
    }
    if (occupant !== ctx.actorId) return { type: "no_effect", message: "You are not sitting here." };
    ctx.setState("occupant", "");
    return { type: "ok", message: "You stand up." };
  },
  holder: (state) => occupantOf(state),
  release(ctx) {
    ctx.setState("occupant", "");
  },
  checkState(state) {
    if (!FACINGS.includes(state.facing as Facing)) return "facing must be up, down, left or right";
    if (!(SEAT_STYLES as readonly unknown[]).includes(state.style)) return "unknown style";
    if (
      typeof state.occupant !== "string" ||
      (state.occupant !== "" && !/^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/.test(state.occupant))
    )
      return "occupant must be empty or an actor id";
    return Object.keys(state).sort().join(",") === "facing,occupant,style"
      ? undefined
      : "unknown state fields";
  },
};
