// The name tag over an actor's head, kept apart from the scene (no Phaser) so that tests running in
// Node can name what the page shows.
import type { WireEntity } from "../../src/http/humans/protocol.ts";
import { isolate } from "./bidi.ts";

const MAX_TAG_CHARS = 16;

/** A resident thinking: plain text every font draws (an emoji was an empty box without an emoji
 * font), set apart by a space from the "…" of a name cut short. */
export const THINKING_MARK = " …";

/** A resident asleep (no model configured): it stays as long as it sleeps. */
export const ASLEEP_MARK = " z z";

/** A resident whose turns fail: it cannot answer now; it goes once it answers again. */
export const UNWELL_MARK = " (!)";

/** The name tag: short enough not to run into neighbours; agents say so in the tag itself. */
export function tagText(
  e: Pick<WireEntity, "name" | "kind" | "thinking" | "asleep" | "unwell">,
  away: boolean,
): string {
  const name = e.name.length > MAX_TAG_CHARS ? `${e.name.slice(0, MAX_TAG_CHARS - 1)}…` : e.name;
  return `${isolate(name)}${e.kind === "agent" ? " · AI" : ""}${away ? " (away)" : ""}${e.thinking ? THINKING_MARK : ""}${e.asleep ? ASLEEP_MARK : ""}${e.unwell ? UNWELL_MARK : ""}`;
}

/** What the pointer over an asleep resident shows: why it sleeps and the README's step that wakes
 * the residents (the words it says to one who comes near say the same). */
export function asleepCard(name: string): string {
  return `${isolate(name)} is asleep: this world has no model for its residents to think with. To wake them: OCW_GATEWAY_CONFIG=examples/gateway-config.example.json npm start (README, "Residents").`;
}

/** What the pointer over a resident whose turns fail shows: that it cannot answer now, and that it
 * tries again by itself (words said to it meanwhile may go unanswered). */
export function unwellCard(name: string): string {
  return `${isolate(name)} cannot answer right now: its last turn failed. It recovers by itself; try again in a minute.`;
}
