// A private room: the sign by a room's door that makes the room (a named region of the map) private
// or open. While private, chat said inside is heard only by those inside, on either channel, and chat
// from outside does not reach in (src/world/places.ts `withinHearing`); agents perceive chat by the
// same rule, because the world decides who hears when the line is said.
import type { ObjectTypeHandler } from "./object-type.ts";

export const privateRoom: ObjectTypeHandler = {
  objectType: "private_room",
  props: { region: "string", private: "bool" },
  actions: ["make_private", "make_public", "read"],
  about:
    "`region`: a region id of this map. `make_private` / `make_public`: while private, chat inside the region is heard only inside; made private only with nobody else in.",
  validate(def, rooms) {
    const region = rooms[def.roomId]?.regions.find((r) => r.id === def.props.region);
    if (!region)
      return { field: "region", problem: `room "${def.roomId}" has no region "${def.props.region}"` };
    return undefined;
  },
  initialState: (def) => ({ region: String(def.props.region), private: def.props.private === true }),
  affordances: (state) => [
    { action: "read", label: "Who hears you in this room?" },
    state.private
      ? { action: "make_public", label: "Open the room (chat carries as usual)" }
      : { action: "make_private", label: "Make the room private (only those inside hear)" },
  ],
  interact(ctx, action) {
    if (action === "read")
      return {
        type: "ok",
        message: ctx.state.private
          ? "This room is private: what is said inside is heard only inside, and nothing from outside comes in."
          : "This room is open: chat carries in and out as anywhere else.",
      };
    const want = action === "make_private";
    if (ctx.state.private === want)
      return {
        type: "no_effect",
        message: want ? "The room is already private." : "The room is already open.",
      };
    // Those talking inside chose to be heard only inside: nobody opens the room on them (one of
    // them, or someone who walked in). It opens once its last other person has left.
    const inside = want ? 0 : ctx.othersIn(String(ctx.state.region));
    if (inside > 0)
      return {
        type: "no_effect",
        message: `The room stays private while ${inside === 1 ? "someone else is" : `${inside} others are`} inside: it opens only when nobody else is in it.`,
      };
    ctx.setState("private", want);
    return {
      type: "ok",
      message: want
        ? "The room is now private: only those inside hear what is said here."
        : "The room is open again.",
    };
  },
  privateRegion: (state) => (state.private === true ? String(state.region) : undefined),
  checkState(state, def) {
    if (state.region !== def.props.region) return "region differs from the map's";
    if (typeof state.private !== "boolean") return "private must be a boolean";
    return Object.keys(state).sort().join(",") === "private,region" ? undefined : "unknown state fields";
  },
};
