// Who the world wakes, and with what: a pure function of one tick's events. A resident is woken by
// speech it hears nearby, by its name said anywhere in its room, and (when configured) by a person
// coming near. Residents wake each other only where one's rules allow it (`residents`): another
// resident coming near (the one whose id sorts first opens) or speaking near it; the scheduler holds
// those to the world's talk budget and lets a reply go unanswered, so two of them never talk on for as
// long as their turn caps allow. A resident that came through a portal itself is woken to go on (it
// was walking someone to a place in that room). A resident whose move an object waits for (a game's
// player on turn) is woken to make it when someone else changed the object.
import type { WorldEvent, WorldReads } from "../aic/reads.ts";

export interface WakeRules {
  /** Speech on the proximity channel that reaches it. */
  nearby: boolean;
  /** Its name said in its room, on any channel, from anywhere. */
  name: boolean;
  /** A person (not an agent) comes within proximity. */
  approach: boolean;
  /** Another resident comes near or speaks near it (default off). */
  residents?: boolean;
}

export interface WakeSubject {
  entityId: string;
  name: string;
  wake: WakeRules;
}

export type WakeReason =
  | "spoken_nearby"
  | "name_said"
  | "approached"
  | "resident_near"
  | "resident_spoke"
  /** It came through a portal itself (walking someone to a place in another room): it goes on. */
  | "arrived"
  /** An object waits for its move (a game's player on turn): `objectId` names it. */
  | "your_move";

/** Whether a happening is another resident's doing (a talk turn: the world's talk budget holds it). */
export const byResident = (h: Pick<Happening, "reason">): boolean =>
  h.reason === "resident_near" || h.reason === "resident_spoke";

/** One thing that happened to a resident, kept until its next turn. */
export interface Happening {
  reason: WakeReason;
  tick: number;
  roomId: string;
  fromEntityId: string;
  message?: string;
  /** Said where the resident heard it nearby (false: on the room channel, or from beyond earshot). */
  heardNearby?: boolean;
  /** The object that waits for its move (`your_move`). */
  objectId?: string;
}

const NOT_WORD = "[^\\p{L}\\p{N}_]";

/** Each name's pattern, compiled once: every message is tested against every resident's name. */
const namePatterns = new Map<string, RegExp | null>();
const NAME_PATTERNS_MAX = 4096;

/** Whether `message` says `name` as a word of its own, whatever the case. */
export function saysName(message: string, name: string): boolean {
  let pattern = namePatterns.get(name);
  if (pattern === undefined) {
    const escaped = name.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    pattern = escaped.length === 0 ? null : new RegExp(`(^|${NOT_WORD})${escaped}($|${NOT_WORD})`, "iu");
    if (namePatterns.size >= NAME_PATTERNS_MAX) namePatterns.clear();
    namePatterns.set(name, pattern);
  }
  return pattern?.test(message) === true;
}

const heardBy = (event: WorldEvent, entityId: string) =>
  event.audience.kind === "room" || event.audience.ids.includes(entityId);

/**
 * What in `events` (one tick's, in order) wakes `subject`, which is in `roomId` now.
 * `residentIds`: every resident's entity id (their speech wakes no resident). `objects`: the world's
 * objects as they are now (whose move one waits for).
 */
export function wakeHappenings(
  subject: WakeSubject,
  roomId: string | undefined,
  events: readonly WorldEvent[],
  residentIds: Pick<ReadonlySet<string>, "has">,
  objects?: Pick<WorldReads, "objectView">,
): Happening[] {
  if (roomId === undefined) return [];
  const found: Happening[] = [];
  for (const event of events) {
    if (event.roomId !== roomId) continue;
    if (event.type === "object.state_changed") {
      const objectId = String(event.payload.objectId);
      // One move changes several fields (an event each): woken once, by someone else's change.
      if (
        event.actorId !== subject.entityId &&
        objects?.objectView(objectId)?.awaits === subject.entityId &&
        !found.some((h) => h.objectId === objectId)
      )
        found.push({
          reason: "your_move",
          tick: event.tick,
          roomId,
          fromEntityId: event.actorId ?? objectId,
          objectId,
        });
    } else if (event.type === "presence.join") {
      if (event.payload.entityId === subject.entityId && event.fromRoomId !== undefined)
        found.push({ reason: "arrived", tick: event.tick, roomId, fromEntityId: subject.entityId });
    } else if (event.type === "chat.message") {
      const from = event.payload.fromEntityId;
      const message = event.payload.message;
      if (typeof from !== "string" || typeof message !== "string") continue;
      if (from === subject.entityId) continue;
      const nearby = event.payload.channel === "proximity" && heardBy(event, subject.entityId);
      if (residentIds.has(from)) {
        if (subject.wake.residents && nearby)
          found.push({
            reason: "resident_spoke",
            tick: event.tick,
            roomId,
            fromEntityId: from,
            message,
            heardNearby: true,
          });
        continue;
      }
      const reason: WakeReason | undefined =
        subject.wake.nearby && nearby
          ? "spoken_nearby"
          : subject.wake.name && saysName(message, subject.name)
            ? "name_said"
            : undefined;
      if (reason)
        found.push({ reason, tick: event.tick, roomId, fromEntityId: from, message, heardNearby: nearby });
    } else if (event.type === "proximity.enter") {
      const other = event.payload.otherId;
      if (event.payload.subjectId !== subject.entityId || typeof other !== "string") continue;
      // Two residents meeting both hear of it; the one whose id sorts first says the first line.
      if (residentIds.has(other)) {
        if (subject.wake.residents && subject.entityId < other)
          found.push({ reason: "resident_near", tick: event.tick, roomId, fromEntityId: other });
      } else if (subject.wake.approach && other.startsWith("hum_"))
        found.push({ reason: "approached", tick: event.tick, roomId, fromEntityId: other });
    }
  }
  return found;
}

/** Where a turn answering `happenings` speaks so that whoever woke it hears: nearby chat when every
 * speaker was heard nearby (speech carries both ways), the whole room when one spoke from afar or on
 * the room channel (its name called across the room). The one rule; the chat tool defaults to it and
 * the wake prompt says it. */
export function replyChannel(happenings: readonly Happening[]): "proximity" | "global" {
  return happenings.some((h) => h.message !== undefined && h.heardNearby === false) ? "global" : "proximity";
}
