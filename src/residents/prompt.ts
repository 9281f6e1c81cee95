// The compact world prompt a resident's turn starts with: where it is, what happened since its last
// turn (who spoke, what they said, who came near) and who is near now. It stays within a few hundred
// tokens (the benchmark measures it; prompt.test.ts bounds the worst case): the resident looks
// further with its ocw_* tools if it wants to.
import type { Happening } from "./wake.ts";

export interface PromptPerson {
  name: string;
  kind: "human" | "agent";
  /** Tiles away (Chebyshev), when known. */
  tiles?: number;
}

export interface WakeContext {
  agentId: string;
  name: string;
  roomName: string;
  tile: { tx: number; ty: number };
  /** Happenings since its last turn, oldest first (the prompt keeps the newest). */
  happenings: readonly (Happening & { from: PromptPerson })[];
  /** Others near it now, nearest first. */
  nearby: readonly PromptPerson[];
  /** Where its answer is heard by those who woke it (wake.ts `replyChannel`). */
  replyChannel?: "proximity" | "global";
  /** Who it is (its config's persona), told each turn. */
  persona?: string;
  /** The named places of its room, each with a tile to walk to, when it may walk (ocw_move_to). */
  places?: readonly { name: string; tx: number; ty: number }[];
}

/** What the prompt keeps: the newest happenings, short quotes, a few neighbours, short names. */
export const PROMPT_LIMITS = {
  happenings: 3,
  quoteChars: 72,
  nearby: 3,
  nameChars: 16,
  personaChars: 240,
  places: 8,
} as const;

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const who = (p: PromptPerson) =>
  `${clip(p.name, PROMPT_LIMITS.nameChars)} (${p.kind === "human" ? "person" : "AI"}${p.tiles !== undefined ? `, ${p.tiles} tiles` : ""})`;

function line(h: Happening & { from: PromptPerson }): string {
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
  }
}

function walking(places: WakeContext["places"]): string[] {
  if (!places) return [];
  const named = places
    .slice(0, PROMPT_LIMITS.places)
    .map((p) => `${clip(p.name, PROMPT_LIMITS.nameChars)} ${p.tx},${p.ty}`);
  return [
    `You may walk with someone who asks ("take me to..."): say so, then ocw_move_to the place's tile.${named.length > 0 ? ` Places here: ${named.join("; ")}.` : ""}`,
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
    ...walking(ctx.places),
    ctx.replyChannel === "global"
      ? "People see only what you say with ocw_chat_send; answer there, briefly, on channel global (one who spoke is out of earshot). ocw_heartbeat shows more."
      : "People see only what you say with ocw_chat_send; answer there, briefly. ocw_heartbeat shows more.",
  ].join("\n");
}
