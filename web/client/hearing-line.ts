// The "who hears you" line under the chat box while the player types: the scene draws the hearers on
// the map, this says them in words, so nobody talks to an empty room without knowing.
import { $, nameOf, state } from "./page-state.ts";
import type { Hearing, WorldScene } from "./scene.ts";

/** Who would hear a line on the chosen channel, in words (and drawn on the map by the scene). */
function hearingText(h: Hearing | undefined, channel: string): string {
  if (!h) return "";
  const names = h.ids.map((id) => nameOf(id));
  const list =
    names.length > 4 ? `${names.slice(0, 4).join(", ")} and ${names.length - 4} more` : names.join(", ");
  if (channel === "global") {
    if (h.zone)
      return `Only those in the ${h.zone.name} hear you${names.length ? `: ${list}` : " — nobody else is here"}.`;
    const others = Math.max(0, state.roster.size - 1);
    return `Everyone in the ${state.room?.name ?? "room"} hears you (${others} other${others === 1 ? "" : "s"}).`;
  }
  if (names.length === 0)
    return h.zone
      ? `Nobody else is in the ${h.zone.name} to hear you.`
      : "Nobody is near enough to hear you. Walk closer, or switch to room.";
  return `Heard by ${list}${h.zone ? ` (only those in the ${h.zone.name})` : ""}.`;
}

export function updateHearing(scene: WorldScene): Hearing | undefined {
  const typing = document.activeElement === $("chat-input") && state.joined;
  const channel = $<HTMLSelectElement>("chat-channel").value as "proximity" | "global";
  const hearing = scene.showHearing(typing ? channel : undefined);
  const line = $("chat-hearers");
  line.hidden = !typing;
  if (typing) {
    line.textContent = hearingText(hearing, channel);
    line.dataset.none = String(channel === "proximity" && (hearing?.ids.length ?? 0) === 0);
  }
  return hearing;
}
