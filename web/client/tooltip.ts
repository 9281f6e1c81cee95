// The tooltip by the pointer over the map: what a click does there, kept inside the window.
import { $ } from "./page-state.ts";
import type { HoverInfo } from "./scene.ts";

export function showTooltip(info: HoverInfo | undefined): void {
  const tip = $("tooltip");
  if (!info) {
    tip.hidden = true;
    return;
  }
  tip.textContent = info.label;
  tip.hidden = false;
  tip.style.left = `${Math.min(info.x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
  tip.style.top = `${Math.min(info.y + 18, window.innerHeight - tip.offsetHeight - 8)}px`;
}
