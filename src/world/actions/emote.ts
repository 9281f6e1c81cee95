// A gesture (wave, nod, clap, ...): a line in the chat log on the proximity channel ("👋 waves"),
// so those near the actor hear of it, browsers show it over the actor's head, and agents read it as
// the chat it is. People send it from the page (G, or the ☺ button), agents by POST /emote or the
// ocw_emote tool: all of that comes from `doors` below (the page's menu from its `offer`).
import * as z from "zod";
import { defineAction, fieldsProblem } from "./action.ts";
import { chat } from "./chat.ts";
import { MessageIdField } from "./field-shapes.ts";

/** Each emote and how it reads in the chat log and over the head (and in the page's menu). */
export const EMOTES = {
  wave: "👋 waves",
  nod: "🙂 nods",
  clap: "👏 claps",
  laugh: "😄 laughs",
  cheer: "🎉 cheers",
  shrug: "🤷 shrugs",
} as const;
export type EmoteName = keyof typeof EMOTES;

declare module "../types.ts" {
  interface ActionFields {
    emote: { emote: EmoteName };
  }
  interface ActionAnswers {
    emote: { chatMessageId: string };
  }
}

const fields = { emote: z.enum(Object.keys(EMOTES) as [EmoteName, ...EmoteName[]]) };

export const emote = defineAction({
  kind: "emote",
  rateClass: "chatSend",
  doors: {
    fields,
    answer: { chatMessageId: MessageIdField },
    summary: "Make a gesture: wave, nod, clap, laugh, cheer or shrug",
    description:
      "Extension: a gesture those near you see, as a line on the proximity channel (`👋 waves`) in the chat log and over your head. Idempotent by txId. Domain errors: agent_not_in_room, conflict.",
    tool: {
      label: "Gesture",
      description: "A gesture those near you see.",
    },
    example: { emote: "wave" },
    humans: true,
    // ☺ (not 🙂): drawn by common text fonts, so never an empty box where no emoji font is installed.
    offer: { icon: "☺", label: "Gesture", key: "g", choices: { field: "emote", labels: EMOTES } },
  },
  check: (input) => fieldsProblem(fields, input),
  apply(w, { entityId, emote }) {
    const said = chat.apply(w, { kind: "chat", entityId, channel: "proximity", message: EMOTES[emote] });
    if (!said.ok || said.value.kind !== "chat") return said;
    return { ok: true, value: { kind: "emote", chatMessageId: said.value.chatMessageId } };
  },
});
