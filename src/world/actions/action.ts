// One action kind of the world: its input shape check, its rate class and its rule. Every kind is
// one file in this folder, listed in registry.ts; the world's tick (world.ts) runs `check` on every
// input and `apply` after the room and guard checks. The input's fields and its rule's answer are
// typed by each kind in its own file, merged into types.ts's ActionFields/ActionAnswers (a kind
// with doors: emote.ts shows how) or ActionInputs/ActionValues (the rest); the unions Input and
// InputValue are derived from those.
import * as z from "zod";
import type { Outcome, WorldCore } from "../core.ts";
import type { ActionFields, Input, InputKind, InputValue, WorldError } from "../types.ts";
import type { PageOffer } from "./offer.ts";

/** An action kind's own fields and its answer as the doors carry them, in zod: the AIC request is
 * the envelope (agentId, roomId, txId, expect) around `fields`, its answer txId, applied, serverTsMs
 * + `answer` (src/aic/schemas.ts composes them); the browser's messages carry `fields` too. For the
 * older kinds (ActionInputs) these are the PRD's shapes, bounds and descriptions. */
export interface ActionWire<K extends InputKind = InputKind> {
  /** The action's own fields: their one shape. */
  readonly fields: Readonly<Record<string, z.ZodType>>;
  /** What its answer adds, picked by key from the rule's value, else from the action's fields. */
  readonly answer: Readonly<Record<string, z.ZodType>>;
  /** Fields the AIC request carries that the action does not (the PRD's moveTo `mode`). */
  readonly requestOnly?: Readonly<Record<string, z.ZodType>>;
  /** The documents' descriptions of the request and the answer. */
  readonly describe?: { readonly request?: string; readonly answer?: string };
  /** Whether the answer says `applied` (the world changed); always, without this. */
  readonly applied?: (value: Extract<InputValue, { kind: K }>) => boolean;
  /** People send it too: the web client's `{type: "act", action: {kind, ...fields}}`. */
  readonly humans?: boolean;
}

/** How an action kind with its own fields (a key of ActionFields) reaches every door without more
 * code: the AIC endpoint named after the kind (its request = the envelope agentId, roomId, txId,
 * expect + `fields`; its answer = txId, applied, serverTsMs + `answer`), the tool `ocw_<kind>`
 * (parameters: `fields`) and, with `humans`, the browser's `{type: "act", action: {kind, ...}}`. */
export type ActionDoors = DoorsOfAnyKind &
  (
    | {
        /** People send it too (the web client's `act` message). */
        readonly humans: true;
        /** How the page offers it to them (offer.ts): a control, or "none" where the page already
         * has its own way; a kind people send must say, so none is left without a way in. */
        readonly offer: PageOffer | "none";
      }
    | { readonly humans: false; readonly offer?: never }
  );

interface DoorsOfAnyKind extends Pick<ActionWire, "fields" | "answer"> {
  /** The world's check parses `fields` too (`fieldsProblem`). */
  readonly summary: string;
  /** The OpenAPI description: what it does and which domain errors it answers. */
  readonly description: string;
  /** The tool's label and what the model is told of it; `guards` offers the acting tools' `expect`
   * (tokens in every model request: worth it where acting on a stale view would do harm). */
  readonly tool: { readonly label: string; readonly description: string; readonly guards?: boolean };
  /** A valid request's own fields (the envelope is added around them): what the fuzz and contract
   * tests start from, so a new kind is tested without a test edit. */
  readonly example: Readonly<Record<string, unknown>>;
}

export interface WorldAction<K extends InputKind = InputKind> {
  readonly kind: K;
  /** The rate bucket every door takes a token from for it (rate-limit.ts); absent for the kinds
   * only the host sends. */
  readonly rateClass?: string;
  /** Sent by the host, not by an actor: `check` is its whole shape (no actor id, room, tx, guards). */
  readonly host?: true;
  /** Carries free text, which the world must be able to store (World.unstorable). */
  readonly freeText?: true;
  /** The doors of a kind with its own fields (ActionFields). */
  readonly doors?: K extends keyof ActionFields ? ActionDoors : never;
  /** An older kind's (ActionInputs) fields and answer at the doors, the PRD's shapes; its endpoint
   * (src/aic/endpoints.ts) and browser message name it. */
  readonly wire?: K extends keyof ActionFields ? never : ActionWire<K>;
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

/** The kinds with doors (ActionFields): their endpoint is named after them. */
export type DoorKind = keyof ActionFields & InputKind;

/** The tool name of a door kind. */
export function toolNameOf(kind: string): `ocw_${string}` {
  return `ocw_${kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/** The problem with a door kind's own fields, by their one shape (ActionDoors.fields). */
export function fieldsProblem(
  fields: Readonly<Record<string, z.ZodType>>,
  input: Record<string, unknown>,
): WorldError | undefined {
  const own = Object.fromEntries(Object.keys(fields).map((key) => [key, input[key]]));
  const parsed = z.strictObject(fields).safeParse(own);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return bad(`${issue.path.join(".") || "input"}: ${issue.message}`);
}
