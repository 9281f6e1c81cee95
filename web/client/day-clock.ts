// The time of day on the page: the world's clock in the top bar and the scene's light (a night
// tint), from the simulation time (timeOfDay is the world's own rule, the heartbeat's too).
import { timeOfDay } from "../../src/world/time.ts";
import { $ } from "./page-state.ts";
import type { WorldScene } from "./scene.ts";
import { worldNow } from "./world-clock.ts";

/** How often the clock is read again: the minute shown is never more than this late. */
const EVERY_MS = 5000;

export function mountDayClock(scene: WorldScene): { update(): void } {
  // The scene draws the light once it is created; the clock may be told the time before that.
  let sceneReady = false;
  void scene.whenReady.then(() => {
    sceneReady = true;
    update();
  });
  function update(): void {
    const now = worldNow();
    if (now === undefined) return;
    const { clock, part } = timeOfDay(now);
    const el = $("clock");
    el.textContent = `${part} ${clock}`;
    el.title = "the time of day in the world (its own clock)";
    el.hidden = false;
    document.body.dataset.daypart = part;
    if (sceneReady) scene.setDaylight(part);
    scene.showHours(now);
  }
  window.setInterval(update, EVERY_MS);
  return { update };
}
