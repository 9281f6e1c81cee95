// The controls beside the chat box that send an action kind (src/world/actions/<kind>.ts: `offer`),
// one per offered kind in registry order: a button that sends it, or, with `choices`, a button and
// the G-key-style shortcut that open a menu of one field's values. Nothing here names a kind.
import type { OfferedAction } from "../../src/world/actions/offer.ts";

export interface OfferControls {
  /** Closes every open menu (Escape). */
  closeMenus(): void;
  /** Does the offer of this key, when one has it: whether it did. */
  pressKey(key: string): boolean;
}

export interface OfferHost {
  /** Sends `{type: "act", action}`; false when not connected. */
  send(action: Record<string, unknown>): boolean;
  /** Tells the person nothing was sent. */
  notSent(label: string): void;
  /** Gives the keys back to the world (after a click). */
  releaseKeys(): void;
}

export function mountOffers(
  into: HTMLElement,
  offers: readonly OfferedAction[],
  host: OfferHost,
): OfferControls {
  const menus: HTMLElement[] = [];
  const byKey = new Map<string, () => void>();
  const act = (offer: OfferedAction, fields: Record<string, unknown>) => {
    if (!host.send({ kind: offer.kind, ...fields })) host.notSent(offer.label);
    host.releaseKeys();
  };
  for (const offer of offers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "offer-button";
    button.title = offer.key ? `${offer.label} (${offer.key.toUpperCase()})` : offer.label;
    button.setAttribute("aria-label", offer.label.toLowerCase());
    button.textContent = offer.icon;
    let run = () => act(offer, {});
    if (offer.choices) {
      const { field, labels } = offer.choices;
      const menu = document.createElement("div");
      menu.id = `${offer.kind}-menu`;
      menu.className = "offer-menu";
      menu.setAttribute("role", "menu");
      menu.hidden = true;
      for (const [value, text] of Object.entries(labels)) {
        const item = document.createElement("button");
        item.type = "button";
        item.setAttribute("role", "menuitem");
        item.dataset[field] = value;
        item.textContent = text;
        item.addEventListener("click", () => {
          menu.hidden = true;
          act(offer, { [field]: value });
        });
        menu.append(item);
      }
      button.id = `${offer.kind}-toggle`;
      run = () => {
        for (const other of menus) if (other !== menu) other.hidden = true;
        menu.hidden = !menu.hidden;
        if (!menu.hidden) menu.querySelector("button")?.focus();
      };
      menus.push(menu);
      into.append(button, menu);
    } else {
      button.id = `${offer.kind}-button`;
      into.append(button);
    }
    button.addEventListener("click", () => run());
    if (offer.key) byKey.set(offer.key.toLowerCase(), run);
  }
  return {
    closeMenus() {
      for (const menu of menus) menu.hidden = true;
    },
    pressKey(key) {
      const run = byKey.get(key.toLowerCase());
      run?.();
      return run !== undefined;
    },
  };
}
