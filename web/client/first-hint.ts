// The hint a player sees on first joining: how to walk, use things and chat, worded for keys or for
// touch; it goes by itself, on its close button, or on the first step.
import { $, touchFirst } from "./page-state.ts";

export function showHint(): void {
  $("hint-text").textContent = touchFirst()
    ? "Use the pad or tap the map to walk. Tap signs, doors, seats and portals. Chat below."
    : "Walk with WASD or click the map. Click signs, doors, seats and portals, or someone to talk to. Enter to chat, Esc to walk again.";
  $("hint").hidden = false;
  window.setTimeout(hideHint, 12_000);
}

export function hideHint(): void {
  $("hint").hidden = true;
}

export function mountHint(): void {
  $("hint-close").addEventListener("click", hideHint);
}
