// An object's card (a sign's text, a board's notes, a private room's plaque): it stays while you
// read, offers what the object affords, and closes when you walk away.
import { describePlot, plotOf } from "../../src/world/objects/garden-plot.ts";
import type { ObjectState } from "../../src/world/objects/object-type.ts";
import { isolate } from "./bidi.ts";
import { renderGameBoard, tableView } from "./game-board.ts";
import { $, state } from "./page-state.ts";
import type { WireObject, WorldScene } from "./scene.ts";
import { agoInWords, worldNow } from "./world-clock.ts";

interface Note {
  id: string;
  by: string;
  name: string;
  text: string;
  tsMs: number;
}

/** Uses an object (the page walks over first when it is out of reach). */
export type UseObject = (objectId: string, action: string, params?: Record<string, unknown>) => void;

export interface ObjectCard {
  show(title: string, text: string, object?: WireObject): void;
  hide(): void;
  /** Draws the card again from the object as it is now. */
  render(): void;
  /** The object whose card is open (undefined: none). */
  readonly object: WireObject | undefined;
}

export function mountObjectCard(scene: WorldScene, useObject: UseObject): ObjectCard {
  let cardObject: WireObject | undefined;
  let cardText = "";
  function showCard(title: string, text: string, object?: WireObject): void {
    $("dialog-title").textContent = title;
    cardText = text;
    cardObject = object;
    renderCard();
    $("dialog").hidden = false;
  }
  function hideCard(): void {
    $("dialog").hidden = true;
    cardObject = undefined;
  }
  $("dialog-close").addEventListener("click", hideCard);

  /** The card's body from the object as it is now (a board's notes come from its state, so a note
   * posted by anyone shows up while the card is open). */
  function renderCard(): void {
    const o = cardObject ? (scene.object(cardObject.id) ?? cardObject) : undefined;
    const board = o?.objectType === "notice_board";
    const notes = board && Array.isArray(o.state.notes) ? (o.state.notes as Note[]) : [];
    const table = o?.objectType === "game_table" ? tableView(o.state, state.entityId) : undefined;
    // A plot's words come from its state as it is now (a stage reached while the card is open).
    const plot = o?.objectType === "garden_plot" ? plotOf(o.state as ObjectState) : undefined;
    $("dialog").dataset.kind = o?.objectType ?? "sign";
    $("dialog-text").textContent = board
      ? notes.length
        ? `${notes.length} note${notes.length === 1 ? "" : "s"}, newest first.`
        : "No notes yet. Be the first!"
      : table
        ? table.status
        : plot
          ? describePlot(plot, worldNow() ?? plot.wateredMs)
          : cardText;
    const game = $("dialog-game");
    game.hidden = !table;
    if (o && table)
      renderGameBoard(game, table, Number(o.state.last), (column) => useObject(o.id, "play", { column }));
    else game.replaceChildren();
    const list = $("dialog-notes");
    list.hidden = !board || notes.length === 0;
    list.replaceChildren(
      ...[...notes].reverse().map((n) => {
        const li = document.createElement("li");
        const who = document.createElement("span");
        who.className = "note-by";
        who.textContent = `${isolate(n.name)}${n.by.startsWith("agt_") ? " · AI" : ""}`;
        // How long ago it was posted, by the world's clock (the note's own timestamp).
        const when = document.createElement("time");
        when.className = "note-when";
        when.dateTime = new Date(n.tsMs).toISOString();
        when.textContent = noteAge(n.tsMs);
        const text = document.createElement("span");
        text.className = "text";
        text.textContent = n.text;
        li.append(who, when, text);
        li.dataset.id = n.id;
        return li;
      }),
    );
    $("dialog-post").hidden = !board;
    // Buttons for what else the object offers (a private room's "open" / "make private"; a table's
    // join and leave, and "play again" once a game is over: its columns are the moves).
    const actions = $("dialog-actions");
    const playAgain = table !== undefined && o?.state.result !== "";
    actions.replaceChildren(
      ...(o && !board
        ? o.affords
            .filter((a) => a.action !== "read" && (a.action !== "play" || playAgain))
            // After a finish, play starts the next game and the column is not used (it is required all the same).
            .map((a) =>
              affordanceButton(a, () =>
                useObject(o.id, a.action, a.action === "play" ? { column: 0 } : undefined),
              ),
            )
        : []),
    );
  }

  $("dialog-post").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>("dialog-post-text");
    const text = input.value.trim();
    if (!text || !cardObject) return;
    useObject(cardObject.id, "post", { text });
  });

  return {
    show: showCard,
    hide: hideCard,
    render: renderCard,
    get object() {
      return cardObject;
    },
  };
}

function affordanceButton(a: { action: string; label: string }, onClick: () => void): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = a.label;
  button.dataset.action = a.action;
  button.addEventListener("click", onClick);
  return button;
}

/** A note's age as a reader wants it ("5 minutes ago"), read against the world's clock, whose
 * time its timestamp is. */
function noteAge(tsMs: number): string {
  const now = worldNow();
  return now === undefined ? "" : agoInWords(now - tsMs);
}
