// The quiet notices under the minimap and the connection badge in the top bar: what the page tells
// the player without stopping them.
import type { ConnState } from "./net.ts";
import type { NoticeKind } from "./notices.ts";
import { $, state } from "./page-state.ts";

export function setStatus(s: ConnState, detail?: string): void {
  state.status = s;
  const el = $("conn");
  el.dataset.state = s;
  el.textContent = detail ?? s;
}

/** A quiet, non-modal notice, coloured by kind; a few at most, each fades by itself. */
export function notify(text: string, kind: NoticeKind = "info"): void {
  state.notices.push({ text, kind });
  if (state.notices.length > 50) state.notices.shift();
  const li = document.createElement("li");
  li.textContent = text;
  li.dataset.kind = kind;
  const list = $("notices");
  list.append(li);
  while (list.children.length > 4) list.firstElementChild?.remove();
  window.setTimeout(() => li.classList.add("fading"), 3500);
  window.setTimeout(() => li.remove(), 4200);
}
