// What a resident's turn tells its tools, out of band: the gateway hands the run's `toolBindings`
// to every tool factory of that run. The model never sees or writes it.
export const TURN_BINDING_KEY = "openclawworld";

export interface TurnBinding {
  /** Unique per turn (the run id): part of every txId the turn's tools make (identity.ts). */
  turnId: string;
  /** Where the one who woke the resident hears it (src/residents/wake.ts `replyChannel`). */
  replyChannel: "proximity" | "global";
}

/** The binding as the run initiator (src/plugin/resident-turns.ts) attaches it. */
export function turnBindings(binding: TurnBinding): Record<string, unknown> {
  return { [TURN_BINDING_KEY]: binding };
}

/** This plugin's binding in a tool factory's context, when the run carries a well-formed one. */
export function turnBindingOf(
  bindings: Readonly<Record<string, unknown>> | undefined,
): TurnBinding | undefined {
  const raw = bindings?.[TURN_BINDING_KEY] as Partial<TurnBinding> | undefined;
  if (!raw || typeof raw.turnId !== "string" || raw.turnId.length === 0) return undefined;
  return {
    turnId: raw.turnId,
    replyChannel: raw.replyChannel === "global" ? "global" : "proximity",
  };
}
