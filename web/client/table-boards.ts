// The room's game tables as boards beside the map, on the replay and follow pages, from the objects
// of the tick shown: the board and the words the live page's card draws (game-board.ts), as a
// spectator sees them (no column to play).
import type { WireObject } from "../../src/http/humans/protocol.ts";
import { renderGameBoard, type TableView, tableView } from "./game-board.ts";
import { prettyName } from "./object-name.ts";

export interface ShownTable {
  id: string;
  name: string;
  view: TableView;
  /** The column played last (its top piece is marked). */
  last: number;
}

/** The game tables among `objects`, in their order, as someone watching sees them. */
export function tablesShown(objects: readonly WireObject[]): ShownTable[] {
  return objects
    .filter((o) => o.objectType === "game_table")
    .map((o) => ({
      id: o.id,
      name: prettyName(o),
      view: tableView(o.state, undefined),
      last: Number(o.state.last),
    }));
}

/** Draws the tables' boards into `el`; `shownIn` (el itself, or the section round it) is hidden while
 * the room has none. A frame whose tables are at the versions already drawn draws nothing again (the
 * replay asks for frames many times a second). */
export function mountTableBoards(
  el: HTMLElement,
  shownIn: HTMLElement = el,
): (objects: readonly WireObject[]) => void {
  let drawn: string | undefined;
  return (objects) => {
    const tables = objects.filter((o) => o.objectType === "game_table");
    const versions = tables.map((o) => `${o.id}@${o.version}`).join(" ");
    if (versions === drawn) return;
    drawn = versions;
    shownIn.hidden = tables.length === 0;
    el.replaceChildren(
      ...tablesShown(tables).map((table) => {
        const section = document.createElement("section");
        section.className = "table-board";
        section.dataset.id = table.id;
        const title = document.createElement("h3");
        title.textContent = table.name;
        const status = document.createElement("p");
        status.className = "table-status";
        status.textContent = table.view.status;
        const board = document.createElement("div");
        renderGameBoard(board, table.view, table.last);
        section.append(title, status, board);
        return section;
      }),
    );
  };
}
