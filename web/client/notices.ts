// What the player is told, and in which colour: good news green, neutral information blue, a refusal
// amber, a real failure red. Pure, so the wording and the kind are unit tested.
export type NoticeKind = "ok" | "info" | "warn" | "error" | "social";

export interface Notice {
  text: string;
  kind: NoticeKind;
}

/** An interaction's outcome (from the world's handlers) as a notice; undefined when nothing to say. */
export function noticeForOutcome(outcome: { type: string; message?: string }): Notice | undefined {
  switch (outcome.type) {
    case "ok":
      return outcome.message ? { text: outcome.message, kind: "ok" } : undefined;
    case "no_effect":
      return { text: outcome.message ?? "Nothing happens.", kind: "info" };
    case "too_far":
      return { text: "That is out of reach from here.", kind: "warn" };
    case "invalid_action":
      return { text: outcome.message ?? "That does not work here.", kind: "warn" };
    default:
      return { text: outcome.message ?? outcome.type.replace(/_/g, " "), kind: "info" };
  }
}

/** A server error as a notice a person understands. */
export function noticeForError(code: string, message: string, opensAt?: string): Notice {
  switch (code) {
    case "collision_blocked":
      // A closed place: the world's own words say which and when it opens.
      return { text: opensAt ? message : "You can't go there.", kind: "warn" };
    case "invalid_destination":
      return { text: "That is outside the map.", kind: "warn" };
    case "rate_limited":
      return { text: "Slow down a little.", kind: "warn" };
    case "not_found":
      return { text: "That is no longer here.", kind: "warn" };
    default:
      return { text: message, kind: "error" };
  }
}
