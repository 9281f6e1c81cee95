// The touch pad: on a phone the player walks while a direction button is held (captured, so a finger
// sliding off still lets go).
import type { WorldScene } from "./scene.ts";

const PAD: Record<string, [number, number]> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

export function mountTouchPad(scene: WorldScene, releaseKeys: () => void): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("#touchpad button")) {
    const [dx, dy] = PAD[button.dataset.dir ?? ""] ?? [0, 0];
    const press = (event: PointerEvent) => {
      event.preventDefault();
      releaseKeys();
      button.setPointerCapture?.(event.pointerId);
      button.dataset.held = "true";
      scene.setTouchDir(dx, dy);
    };
    const release = () => {
      delete button.dataset.held;
      scene.setTouchDir(0, 0);
    };
    button.addEventListener("pointerdown", press);
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"])
      button.addEventListener(type, release);
    button.addEventListener("contextmenu", (event) => event.preventDefault());
  }
}
