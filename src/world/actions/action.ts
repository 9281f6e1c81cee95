// One action kind of the world: its input shape check, its rate class and its rule. Every kind is
// one file in this folder, listed in registry.ts; the world's tick (world.ts) runs `check` on every
// input and `apply` after the room and guard checks. The input's fields are typed in types.ts
// (`ActionInputs`, `ActionValues`): a new kind adds its own there by declaration merging, from its
// own file (emote.ts shows how).
import type { Outcome, WorldCore } from "../core.ts";
import type { Input, InputKind, WorldError } from "../types.ts";

export interface WorldAction<K extends InputKind = InputKind> {
  readonly kind: K;
  /** The rate bucket every door takes a token from for it (rate-limit.ts); absent for the kinds
   * only the host sends. */
  readonly rateClass?: string;
  /** Sent by the host, not by an actor: `check` is its whole shape (no actor id, room, tx, guards). */
  readonly host?: true;
  /** Carries free text, which the world must be able to store (World.unstorable). */
  readonly freeText?: true;
  /** The problem with the kind's own fields, after the common ones (entityId, roomId, tx, guards). */
  check(input: Record<string, unknown> & { entityId: string }): WorldError | undefined;
  /** The rule: the input applied to the world at the tick, after its room and guards held. */
  apply(world: WorldCore, input: Extract<Input, { kind: K }>): Outcome;
}

/** Any one of the kinds (a list of actions holds each with its own input type). */
export type AnyWorldAction = { [K in InputKind]: WorldAction<K> }[InputKind];

export function defineAction<K extends InputKind>(action: WorldAction<K>): WorldAction<K> {
  return action;
}

export function bad(message: string, details?: Record<string, unknown>): WorldError {
  return details ? { code: "bad_request", message, details } : { code: "bad_request", message };
}

export function isInt(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
