// The place the player walked into, named in the top bar and, for a moment, in a banner (a private
// room says so).
import { hoursLine } from "../../src/world/opening-hours.ts";
import { $, state } from "./page-state.ts";
import type { MapPlace, WorldScene } from "./scene.ts";

let bannerTimer: number | undefined;

export function showPlace(place: MapPlace | undefined, scene: WorldScene): void {
  state.place = place;
  $("place-name").textContent = place ? place.name : "";
  if (!place) return;
  const banner = $("place-banner");
  const isPrivate = scene.privatePlaces().some((p) => p.id === place.id);
  const hours = place.hours ? ` · ${hoursLine(place.hours)}` : "";
  banner.textContent = `${isPrivate ? `${place.name} · private` : place.name}${hours}`;
  banner.hidden = false;
  banner.classList.remove("fading");
  window.clearTimeout(bannerTimer);
  bannerTimer = window.setTimeout(() => banner.classList.add("fading"), 2200);
}

export function mountPlaceBanner(): void {
  $("place-banner").addEventListener("transitionend", () => {
    if ($("place-banner").classList.contains("fading")) $("place-banner").hidden = true;
  });
}
