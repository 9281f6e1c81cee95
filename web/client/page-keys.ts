// The page's keys: Escape gives the keys back to the world (closing a card or a menu), Enter opens
// the chat, and a gesture's key does it, but only while no field has the focus.
import type * as Phaser from "phaser";
import type { OfferControls } from "./offers.ts";
import { $, state } from "./page-state.ts";

/** Keys belong to the world again (after sending a chat line, a click on the map, or Escape). */
export function keysToWorld(game: Phaser.Game): () => void {
  return () => {
    const el = document.activeElement as HTMLElement | null;
    if (el && el !== document.body) el.blur();
    game.canvas?.focus?.();
  };
}

export function mountPageKeys(page: { hideCard(): void; offers: OfferControls; releaseKeys(): void }): void {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      page.hideCard();
      page.offers.closeMenus();
      page.releaseKeys();
    } else if (document.activeElement === document.body && state.joined && page.offers.pressKey(event.key)) {
      event.preventDefault();
    } else if (event.key === "Enter" && document.activeElement === document.body && state.joined) {
      event.preventDefault();
      $("chat-input").focus();
    }
  });
}
