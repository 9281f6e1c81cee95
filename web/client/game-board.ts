// A game table's board: the four-in-a-row board as a 7 x 6 grid, a button over each column (live
// only on your turn, and only where the column has room), and one line saying where the game
// stands. Drawn again from the table's state whenever it changes, so the other player's move shows
// up while the card is open. The live page draws it on the table's card; the replay and follow
// pages, with no buttons, beside the map (table-boards.ts).
import { isolate } from "./bidi.ts";

const COLUMNS = 7;
const ROWS = 6;

type Side = "R" | "Y";

export interface TableView {
  /** Six rows of seven cells, top row first: ".", "R" or "Y". */
  rows: string[][];
  /** Whether a click on each column plays there now. */
  playable: boolean[];
  /** Where the game stands, said to the one looking. */
  status: string;
  mine?: Side;
}

/** What the card shows of a table's state, to the actor `me`. */
export function tableView(state: Record<string, unknown>, me: string | undefined): TableView {
  const cells = typeof state.cells === "string" && state.cells.length === COLUMNS * ROWS ? state.cells : "";
  const rows = Array.from({ length: ROWS }, (_, r) => [
    ...(cells || ".".repeat(COLUMNS * ROWS)).slice(r * COLUMNS, (r + 1) * COLUMNS),
  ]);
  const mine: Side | undefined =
    me !== undefined && state.red === me ? "R" : me !== undefined && state.yellow === me ? "Y" : undefined;
  const name = (side: unknown) => isolate(String(side === "R" ? state.redName : state.yellowName));
  // A finished game's winner may have left the table since (its side is free, its name gone).
  const player = (side: "R" | "Y") =>
    (side === "R" ? state.redName : state.yellowName) ? `${name(side)} (${side})` : `${side} (who has left)`;
  const both = Boolean(state.red) && Boolean(state.yellow);
  const myTurn = both && state.result === "" && mine !== undefined && state.turn === mine;
  const playable = Array.from({ length: COLUMNS }, (_, c) => myTurn && rows[0]![c] === ".");
  const you = mine ? ` You are ${mine}.` : "";
  let status: string;
  if (state.result === "draw")
    status = `A draw in ${state.moves} moves.${mine && both ? " Play again?" : ""}`;
  else if (state.result === "R" || state.result === "Y")
    status = `${player(state.result)} won in ${state.moves} moves.${mine && both ? " Play again?" : you}`;
  else if (!both)
    status = state.red
      ? `${name("R")} (R) waits for an opponent.${you}`
      : state.yellow
        ? `${name("Y")} (Y) waits for an opponent.${you}`
        : "Four-in-a-row for two: take a side.";
  else if (myTurn) status = `Your turn: you are ${mine}. Pick a column.`;
  else status = `${name(state.turn)} (${state.turn}) to play.${you}`;
  return { rows, playable, status, ...(mine ? { mine } : {}) };
}

/** Draws the board into `el`; a live column button calls `play` with its column (without `play`, a
 * board to watch: no buttons). */
export function renderGameBoard(
  el: HTMLElement,
  view: TableView,
  last: number,
  play?: (column: number) => void,
): void {
  el.classList.add("game-board");
  const grid = document.createElement("div");
  grid.className = "game-grid";
  grid.setAttribute("role", "img");
  grid.setAttribute("aria-label", view.rows.map((r) => r.join("")).join(" / "));
  // The piece dropped last is the top one of the column played last.
  const lastRow = view.rows.findIndex((r) => r[last] !== undefined && r[last] !== ".");
  for (const [rowIndex, row] of view.rows.entries())
    for (const [column, cell] of row.entries()) {
      const span = document.createElement("span");
      span.dataset.cell = cell;
      if (rowIndex === lastRow && column === last) span.dataset.last = "";
      grid.append(span);
    }
  if (!play) {
    el.replaceChildren(grid);
    return;
  }
  const drops = document.createElement("div");
  drops.className = "game-drops";
  drops.append(
    ...view.playable.map((live, column) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "game-drop";
      b.textContent = "▼";
      b.disabled = !live;
      b.dataset.column = String(column);
      b.setAttribute("aria-label", `drop a piece in column ${column}`);
      b.addEventListener("click", () => play(column));
      return b;
    }),
  );
  el.replaceChildren(drops, grid);
}
