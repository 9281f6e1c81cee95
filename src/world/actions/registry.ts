// The one list of the world's action kinds. Adding a kind = one file in this folder + one line here
// (docs/dev/GUIDE.md, "How to add an action").
import type { InputKind } from "../types.ts";
import type { ActionDoors, ActionWire, AnyWorldAction, DoorKind } from "./action.ts";
import { approach } from "./approach.ts";
import { arrive } from "./arrive.ts";
import { asleep } from "./asleep.ts";
import { away } from "./away.ts";
import { chat } from "./chat.ts";
import { emote } from "./emote.ts";
import { interact } from "./interact.ts";
import { join } from "./join.ts";
import { lead } from "./lead.ts";
import { leave } from "./leave.ts";
import { moderate } from "./moderate.ts";
import { moveDir } from "./move-dir.ts";
import { moveTo } from "./move-to.ts";
import type { OfferedAction } from "./offer.ts";
import { redefine } from "./redefine.ts";
import { reflect } from "./reflect.ts";
import { thinking } from "./thinking.ts";
import { transfersSent } from "./transfers-sent.ts";
import { unwell } from "./unwell.ts";

export const ACTIONS = [
  join,
  leave,
  thinking,
  asleep,
  unwell,
  away,
  moveTo,
  lead,
  approach,
  moveDir,
  interact,
  moderate,
  chat,
  emote,
  reflect,
  arrive,
  transfersSent,
  redefine,
] as const satisfies readonly AnyWorldAction[];

const BY_KIND: ReadonlyMap<string, AnyWorldAction> = new Map(ACTIONS.map((a) => [a.kind, a]));

/** The action of an input kind (undefined for a kind the world does not know). */
export function actionOf(kind: unknown): AnyWorldAction | undefined {
  return typeof kind === "string" ? BY_KIND.get(kind) : undefined;
}

/** A kind's own fields and answer at the doors (its `wire`, or its `doors`), if it has them. */
export function wireOf(
  kind: string,
): Pick<ActionWire, "fields" | "answer" | "applied" | "humans"> | undefined {
  const action = actionOf(kind);
  if (!action) return undefined;
  if ("doors" in action && action.doors) return action.doors;
  return "wire" in action ? (action.wire as ActionWire | undefined) : undefined;
}

/** The rate class of every kind an actor may send, by kind. */
export const ACTION_RATE_CLASSES: Readonly<Partial<Record<InputKind, string>>> = Object.fromEntries(
  ACTIONS.flatMap((a) => ("rateClass" in a && a.rateClass ? [[a.kind, a.rateClass]] : [])),
);

/** The action kinds with doors (ActionDoors), in registry order. */
export const DOOR_ACTIONS: readonly { kind: DoorKind; doors: ActionDoors }[] = ACTIONS.flatMap((a) =>
  "doors" in a && a.doors ? [{ kind: a.kind as DoorKind, doors: a.doors as ActionDoors }] : [],
);

/** The controls the page offers people, in registry order (the client build writes them into the
 * bundle: scripts/build-client.ts). */
export const PAGE_OFFERS: readonly OfferedAction[] = DOOR_ACTIONS.flatMap(({ kind, doors }) =>
  doors.humans && doors.offer !== "none" ? [{ kind, ...doors.offer }] : [],
);
