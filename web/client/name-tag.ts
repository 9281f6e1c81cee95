// The name tag over an actor's head, kept apart from the scene (no Phaser) so that tests running in
// Node can name what the page shows.
import type { WireEntity } from "../../src/http/humans/protocol.ts";
import { isolate } from "./bidi.ts";

const MAX_TAG_CHARS = 16;

/** A resident thinking: plain text every font draws (an emoji was an empty box without an emoji
 * font), set apart by a space from the "…" of a name cut short. */
export const THINKING_MARK = " …";

/** The name tag: short enough not to run into neighbours; agents say so in the tag itself. */
export function tagText(e: Pick<WireEntity, "name" | "kind" | "thinking">, away: boolean): string {
  const name = e.name.length > MAX_TAG_CHARS ? `${e.name.slice(0, MAX_TAG_CHARS - 1)}…` : e.name;
  return `${isolate(name)}${e.kind === "agent" ? " · AI" : ""}${away ? " (away)" : ""}${e.thinking ? THINKING_MARK : ""}`;
}
