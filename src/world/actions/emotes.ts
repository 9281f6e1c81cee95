// The gestures an emote may be and how each reads in the chat log and over the head: plain data,
// without zod, because the page's emote menu imports it too (web/client/main.ts) and must not pull
// the schema library into the bundle. The action itself is emote.ts.

/** Each emote and how it reads in the chat log and over the head. */
export const EMOTES = {
  wave: "👋 waves",
  nod: "🙂 nods",
  clap: "👏 claps",
  laugh: "😄 laughs",
  cheer: "🎉 cheers",
  shrug: "🤷 shrugs",
} as const;
export type EmoteName = keyof typeof EMOTES;
