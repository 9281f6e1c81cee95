// The buttons over the map: the collision view and the minimap, each showing its state; the notices
// sit below the minimap wherever the minimap is, and a folded minimap is remembered.
import { $ } from "./page-state.ts";
import type { WorldScene } from "./scene.ts";

export function mountMapButtons(scene: WorldScene, releaseKeys: () => void): void {
  $("debug-toggle").addEventListener("click", () => {
    scene.toggleDebug();
    releaseKeys();
  });
  window.addEventListener("ocw:debug", (event) => {
    const on = (event as CustomEvent<boolean>).detail;
    const button = $("debug-toggle");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Collision: on" : "Collision: off";
  });
  window.addEventListener("ocw:minimap", (event) => {
    const m = (event as CustomEvent<{ x: number; y: number; width: number; height: number; shown: boolean }>)
      .detail;
    document.documentElement.style.setProperty("--minimap-bottom", `${m.y + m.height + 8}px`);
    document.documentElement.style.setProperty("--minimap-width", `${m.width}px`);
    $("minimap-toggle").setAttribute("aria-pressed", String(m.shown));
  });
  // Only a person's own choice is remembered: a phone's folded start, once kept as if chosen, folded
  // the minimap of every later page on a wide screen.
  window.addEventListener("ocw:minimap-choice", (event) => {
    localStorage.setItem("ocw.minimap", (event as CustomEvent<boolean>).detail ? "1" : "0");
  });
  // A phone starts without the minimap (it covered a good part of the room); the button brings it.
  scene.showMinimap((localStorage.getItem("ocw.minimap") ?? (window.innerWidth < 600 ? "0" : "1")) === "1");
  $("minimap-toggle").addEventListener("click", () => {
    scene.chooseMinimap($("minimap-toggle").getAttribute("aria-pressed") !== "true");
    releaseKeys();
  });
}
