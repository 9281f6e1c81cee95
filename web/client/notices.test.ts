import { describe, expect, it } from "vitest";
import { noticeForError, noticeForOutcome } from "./notices.ts";

describe("notices", () => {
  it("colours by kind: success green, neutral blue, refusal amber, failure red", () => {
    expect(noticeForOutcome({ type: "ok", message: "The door opens." })).toEqual({
      text: "The door opens.",
      kind: "ok",
    });
    expect(noticeForOutcome({ type: "no_effect", message: "The door is already open." })?.kind).toBe("info");
    expect(noticeForOutcome({ type: "too_far" })?.kind).toBe("warn");
    expect(noticeForError("collision_blocked", "tile (1, 2) is blocked")).toEqual({
      text: "You can't go there.",
      kind: "warn",
    });
    expect(noticeForError("internal", "internal error").kind).toBe("error");
  });

  it("a closed place's refusal is said in the world's words", () => {
    expect(noticeForError("collision_blocked", "Café is closed; it opens at 07:00.", "07:00")).toEqual({
      text: "Café is closed; it opens at 07:00.",
      kind: "warn",
    });
  });

  it("says nothing for a silent success", () => {
    expect(noticeForOutcome({ type: "ok" })).toBeUndefined();
  });
});
