import type { ObjectTypeHandler } from "./object-type.ts";

export const door: ObjectTypeHandler = {
  objectType: "door",
  props: { open: "bool" },
  actions: ["open", "close"],
  about: "`open` / `close`; a closed door blocks its tile.",
  initialState: (def) => ({ open: def.props.open === true }),
  affordances: (state) =>
    state.open
      ? [{ action: "close", label: "Close the door" }]
      : [{ action: "open", label: "Open the door" }],
  blocksTile: (state) => state.open !== true,
  interact(ctx, action) {
    const wantOpen = action === "open";
    if (ctx.state.open === wantOpen) {
      return {
        type: "no_effect",
        message: wantOpen ? "The door is already open." : "The door is already closed.",
      };
    }
    if (!wantOpen && ctx.tileOccupied())
      return { type: "no_effect", message: "Something is in the doorway." };
    ctx.setState("open", wantOpen);
    return { type: "ok", message: wantOpen ? "The door opens." : "The door closes." };
  },
};
