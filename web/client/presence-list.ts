// Who is here: the presence list (an AI agent and someone away say so), and where it sits on a phone.
import { isolate } from "./bidi.ts";
import { $, type RosterEntry, state } from "./page-state.ts";

export function renderPresence(): void {
  const list = $("presence-list");
  list.replaceChildren(
    ...[...state.roster.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => {
        const li = document.createElement("li");
        li.textContent = isolate(r.name);
        li.title = `${isolate(r.name)}${r.kind === "agent" ? " (AI agent)" : ""}${r.away ? " — away" : ""}`;
        li.dataset.kind = r.kind;
        li.dataset.id = r.id;
        if (r.away) li.dataset.away = "true";
        if (r.id === state.entityId) li.dataset.me = "true";
        return li;
      }),
  );
  $("presence-count").textContent = String(state.roster.size);
}

export function setRoster(roster: RosterEntry[]): void {
  state.roster = new Map(roster.map((r) => [r.id, r]));
  renderPresence();
}

/** On a phone the list starts folded (its summary still shows how many are here) and sits just
 * above the chat's header, wherever that is now (the chat grows with its log and the "who hears
 * you" line; it covered the header at a fixed height). */
export function mountPresenceLayout(): void {
  if (window.innerWidth < 600) $("presence").removeAttribute("open");
  function placeAboveChat(): void {
    const top = Math.min($("chat").getBoundingClientRect().top, $("chat-toggle").getBoundingClientRect().top);
    document.documentElement.style.setProperty("--chat-top", `${Math.ceil(window.innerHeight - top + 6)}px`);
  }
  new ResizeObserver(placeAboveChat).observe($("chat"));
  window.addEventListener("resize", placeAboveChat);
}
