// The state of a walk with a follower, on the walker (the rule: leading.ts). A leaf module: the actor,
// its view and the snapshot name these without importing the rule.

export const LEAD_STATES = ["walking", "waiting", "arrived_together", "left_behind", "blocked"] as const;
export type LeadState = (typeof LEAD_STATES)[number];
export type LeadOutcome = Exclude<LeadState, "walking" | "waiting">;

/** A walk with a follower, on the walker (snapshotted). */
export interface Lead {
  /** The follower's entity id. */
  with: string;
  /** The room it set off in and its goal tile there (index). */
  roomId: string;
  goal: number;
  state: LeadState;
  /** Ticks it has waited for the follower, in all. */
  waitedTicks: number;
}

export function leadEnded(state: LeadState): state is LeadOutcome {
  return state !== "walking" && state !== "waiting";
}
