// The guided tour's panel: where you stand ("Tour: 3 of 5 - next: the Pond"), a button to start it
// (again, once done) and the Guide's latest line to you, the congratulation at the end. The world
// keeps the progress (a tour object's record of you); the server sends it when it changes, and on
// every join or reload, so the panel is the same after a reload.
import type { WireEvent } from "./page-state.ts";

/** What a tour keeps about you, as the server sends it (`progress` messages). */
export interface ProgressItem {
  objectId: string;
  objectType: string;
  text: string;
  active: boolean;
  done: boolean;
}

export interface TourPanel {
  show(items: readonly ProgressItem[]): void;
  /** A chat line: the tour's own lines (its guide speaking to you) show in the panel. */
  heard(e: WireEvent): void;
  /** What the panel shows, for tests (the page's test window). */
  readonly view: { shown: boolean; text: string; line: string; button?: string; state?: string };
}

export function mountTourPanel(start: (objectId: string) => void): TourPanel {
  const panel = document.getElementById("tour")!;
  const text = document.getElementById("tour-text")!;
  const line = document.getElementById("tour-line")!;
  const button = document.getElementById("tour-start") as HTMLButtonElement;
  let current: ProgressItem | undefined;
  button.addEventListener("click", () => {
    if (current) start(current.objectId);
  });
  return {
    show(items) {
      current = items.find((i) => i.objectType === "tour");
      panel.hidden = current === undefined;
      if (!current) return;
      text.textContent = current.text;
      panel.dataset.state = current.active ? "active" : current.done ? "done" : "offered";
      button.hidden = current.active;
      button.textContent = current.done ? "Take the tour again" : "Start the tour";
    },
    heard(e) {
      if (!current || e.type !== "chat.message" || e.payload.fromEntityId !== current.objectId) return;
      line.textContent = `${String(e.payload.fromName)}: ${String(e.payload.message)}`;
      line.hidden = false;
    },
    get view() {
      return {
        shown: !panel.hidden,
        text: text.textContent ?? "",
        line: line.hidden ? "" : (line.textContent ?? ""),
        ...(button.hidden ? {} : { button: button.textContent ?? "" }),
        ...(panel.dataset.state ? { state: panel.dataset.state } : {}),
      };
    },
  };
}
