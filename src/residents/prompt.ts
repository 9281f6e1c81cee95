// The compact world prompt a resident's turn starts with: where it is, what happened since its last
// turn (who spoke, what they said, who came near) and who is near now. It stays within a few hundred
// tokens (the benchmark measures it; prompt.test.ts bounds the worst case): the resident looks
// further with its ocw_* tools if it wants to.
import type { Place } from "./resident-places.ts";
import type { Happening } from "./wake.ts";

export interface PromptPerson {
  name: string;
  kind: "human" | "agent";
  /** Tiles away (Chebyshev), when known. */
  tiles?: number;
}

/** An object that waits for its move, as it stands now. */
export interface PromptObject {
  id: string;
  name: string;
  /** Its state in words (object-words.ts), when it has some. */
  words?: string;
  /** What it can be asked to do now: "action (label)". */
  affords: string[];
}

export interface WakeContext {
  agentId: string;
  name: string;
  roomName: string;
  tile: { tx: number; ty: number };
  /** Happenings since its last turn, oldest first (the prompt keeps the newest). */
  happenings: readonly (Happening & { from: PromptPerson; object?: PromptObject })[];
  /** Others near it now, nearest first. */
  nearby: readonly PromptPerson[];
  /** Where its answer is heard by those who woke it (wake.ts `replyChannel`). */
  replyChannel?: "proximity" | "global";
  /** Who it is (its config's persona), told each turn. */
  persona?: string;
  /** The named places of its room, each with a tile to walk to, when it may walk (ocw_move_to); and
   * those of rooms a portal away, each with the room and the portal here (places.ts `placesFrom`). */
  places?: readonly Place[];
  /** It may walk with someone (ocw_lead): the entity id of the one it would lead, the newest who
   * spoke to it (or whom it led through a portal, on arriving). */
  leadWith?: string;
}

/** What the prompt keeps: the newest happenings, short quotes, a few neighbours, short names. */
export const PROMPT_LIMITS = {
  happenings: 3,
  quoteChars: 72,
  nearby: 3,
  nameChars: 16,
  personaChars: 240,
  places: 8,
  /** Rooms a portal away whose places it is told of (by name: their tiles when it is there). */
  roomsBeyond: 2,
} as const;

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const who = (p: PromptPerson) =>
  `${clip(p.name, PROMPT_LIMITS.nameChars)} (${p.kind === "human" ? "person" : "AI"}${p.tiles !== undefined ? `, ${p.tiles} tiles` : ""})`;

function line(h: Happening & { from: PromptPerson; object?: PromptObject }): string {
  const quote = h.message !== undefined ? `: "${clip(h.message, PROMPT_LIMITS.quoteChars)}"` : "";
  switch (h.reason) {
    case "spoken_nearby":
      return `- ${who(h.from)} said near you${quote}`;
    case "name_said":
      return `- ${who(h.from)} said your name${quote}`;
    case "approached":
      return `- ${who(h.from)} came near you`;
    case "resident_near":
      return `- ${who(h.from)}, a resident, came near you (say a line to them if you like)`;
    case "resident_spoke":
      return `- ${who(h.from)}, a resident, said near you${quote}`;
    case "arrived":
      return "- You came through the portal into this room: go on to the place you were heading for";
    case "your_move": {
      const o = h.object;
      if (!o) return `- ${who(h.from)} moved: it is your move`;
      return `- ${who(h.from)} moved at ${clip(o.name, PROMPT_LIMITS.nameChars)}: it is your move${o.words ? ` (${o.words})` : ""}. ocw_interact ${o.id}: ${o.affords.join(", ")}`;
    }
  }
}

function walking(places: WakeContext["places"], leadWith: WakeContext["leadWith"]): string[] {
  if (!places) return [];
  const here = places
    .filter((p) => !p.beyond)
    .slice(0, PROMPT_LIMITS.places)
    .map((p) => `${clip(p.name, PROMPT_LIMITS.nameChars)} ${p.tx},${p.ty}`);
  // Another room's places by name only, under the portal that leads there: their tiles are told
  // once it stands in that room (it is woken on arriving).
  const rooms = new Map<string, string[]>();
  for (const p of places) {
    if (!p.beyond) continue;
    const key = `${clip(p.beyond.roomName, PROMPT_LIMITS.nameChars)} (portal ${p.beyond.portal.tx},${p.beyond.portal.ty})`;
    const names = rooms.get(key) ?? [];
    if (!rooms.has(key) && rooms.size >= PROMPT_LIMITS.roomsBeyond) continue;
    if (names.length < PROMPT_LIMITS.places) names.push(clip(p.name, PROMPT_LIMITS.nameChars));
    rooms.set(key, names);
  }
  const beyond = [...rooms].map(([room, names]) => `${room}: ${names.join(", ")}`);
  // With ocw_lead the world keeps it beside the one it walks with (it waits for them, at portals too).
  const walk = leadWith
    ? `ocw_lead the place's tile with "${leadWith}": it waits for them`
    : "ocw_move_to the place's tile";
  const tool = leadWith ? "ocw_lead" : "ocw_move_to";
  return [
    `You may walk with someone who asks ("take me to..."): say so, then ${walk}.${here.length > 0 ? ` Places here: ${here.join("; ")}.` : ""}`,
    ...(beyond.length > 0
      ? [
          `Elsewhere, through a portal (${tool} its tile; you are told the way on there): ${beyond.join("; ")}.`,
        ]
      : []),
  ];
}

export function wakePrompt(ctx: WakeContext): string {
  const kept = ctx.happenings.slice(-PROMPT_LIMITS.happenings);
  const earlier = ctx.happenings.length - kept.length;
  const near = ctx.nearby.slice(0, PROMPT_LIMITS.nearby);
  return [
    `[OpenClawWorld] You are ${clip(ctx.name, PROMPT_LIMITS.nameChars)}, a resident of the world (agent "${ctx.agentId}"), in ${clip(ctx.roomName, PROMPT_LIMITS.nameChars)} at tile ${ctx.tile.tx},${ctx.tile.ty}.`,
    ...(ctx.persona ? [clip(ctx.persona, PROMPT_LIMITS.personaChars)] : []),
    "Since your last turn:",
    ...(earlier > 0 ? [`- (${earlier} earlier ${earlier === 1 ? "thing" : "things"} left out)`] : []),
    ...kept.map(line),
    near.length > 0 ? `Near you now: ${near.map(who).join(", ")}.` : "Nobody is near you now.",
    ...walking(ctx.places, ctx.leadWith),
    ctx.replyChannel === "global"
      ? "People see only what you say with ocw_chat_send; answer there, briefly, on channel global (one who spoke is out of earshot). ocw_heartbeat shows more."
      : "People see only what you say with ocw_chat_send; answer there, briefly. ocw_heartbeat shows more.",
  ].join("\n");
}
