// A game table: four-in-a-row (7 columns x 6 rows) for two. The whole game is the table's state (the
// board as 42 characters, the players, whose turn, the result), so it is durable, replayed and in
// snapshots like any object's state.
//
// The rules of the table, for people and agents alike:
// - `join` takes a free side: the first player is R and opens, the second Y. A side whose player is
//   no longer in the room counts as free. Joining always starts on a fresh board.
// - `play` {column: 0-6} drops your piece in a column on your turn. Four in a line (across, down,
//   either diagonal) wins; a full board is a draw.
// - After a finish the players keep their sides and the board shows the result until one of them
//   plays again: that `play` starts the next game (sides swapped, so the other opens) and moves
//   nothing. With one side left empty, a newcomer's `join` starts it.
// - `leave` gives up your side; leaving a game with moves on the board is resigning (the other wins).
//   When both sides are empty the table is as new.
// - `read` shows the board in seven-character lines, whose turn, and who you are.
// A finished game is posted to the room's notice board named by the `noticeBoard` property, by the
// player whose move (or resignation) ended it, under the board's own rules.
//
// Refusals are no_effect (or invalid_action for a bad column) with a message that starts with a
// fixed phrase (REFUSED), so an agent can tell them apart; none changes the state.
import type { InteractContext, InteractOutcome, ObjectState, ObjectTypeHandler } from "./object-type.ts";

export const COLUMNS = 7;
export const ROWS = 6;
const CELLS = COLUMNS * ROWS;
const EMPTY = ".".repeat(CELLS);
const ACTOR_ID = /^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/;

export type Side = "R" | "Y";
export type Result = "" | Side | "draw";

/** The first words of each refusal. */
export const REFUSED = {
  notYourTurn: "Not your turn",
  columnFull: "Column full",
  noSuchColumn: "No such column",
  gameOver: "Game over",
  tableFull: "Table full",
  notAPlayer: "Not a player",
  waiting: "Waiting for an opponent",
  alreadyPlaying: "Already playing",
} as const;

interface Table {
  cells: string;
  red: string;
  redName: string;
  yellow: string;
  yellowName: string;
  turn: Side;
  moves: number;
  result: Result;
  last: number;
}

const tableOf = (s: Readonly<ObjectState>): Table => ({
  cells: String(s.cells),
  red: String(s.red),
  redName: String(s.redName),
  yellow: String(s.yellow),
  yellowName: String(s.yellowName),
  turn: s.turn === "Y" ? "Y" : "R",
  moves: Number(s.moves),
  result: s.result as Result,
  last: Number(s.last),
});

const FRESH_GAME = { cells: EMPTY, turn: "R", moves: 0, result: "", last: -1 } as const;

const sideOf = (t: Table, actorId: string): Side | undefined =>
  t.red === actorId ? "R" : t.yellow === actorId ? "Y" : undefined;
const nameOf = (t: Table, side: Side) => (side === "R" ? t.redName : t.yellowName);
const other = (side: Side): Side => (side === "R" ? "Y" : "R");
const playing = (t: Table) => t.red !== "" && t.yellow !== "";

/** The board as six lines of seven characters, top row first, and the column numbers under it. */
export function boardLines(cells: string): string[] {
  const rows: string[] = [];
  for (let r = 0; r < ROWS; r++) rows.push(cells.slice(r * COLUMNS, (r + 1) * COLUMNS));
  return [...rows, "0123456"];
}

/** The row a piece dropped in `column` lands on, or -1 when the column is full. */
export function landingRow(cells: string, column: number): number {
  for (let r = ROWS - 1; r >= 0; r--) if (cells[r * COLUMNS + column] === ".") return r;
  return -1;
}

/** Whether the piece at (row, column) makes four in a line with its own colour. */
export function makesFour(cells: string, row: number, column: number): boolean {
  const piece = cells[row * COLUMNS + column];
  const at = (r: number, c: number) =>
    r >= 0 && r < ROWS && c >= 0 && c < COLUMNS ? cells[r * COLUMNS + c] : undefined;
  for (const [dr, dc] of [
    [0, 1],
    [1, 0],
    [1, 1],
    [1, -1],
  ] as const) {
    let run = 1;
    for (let k = 1; at(row + dr * k, column + dc * k) === piece; k++) run++;
    for (let k = 1; at(row - dr * k, column - dc * k) === piece; k++) run++;
    if (run >= 4) return true;
  }
  return false;
}

/** Where the game stands, in one line. */
function standing(t: Table): string {
  // A finished game's winner may have left the table since (its side is free, its name gone).
  const who = (side: Side) => (nameOf(t, side) ? `${nameOf(t, side)} (${side})` : `${side} (who has left)`);
  if (t.result === "draw") return `Draw after ${t.moves} moves.`;
  if (t.result !== "") return `${who(t.result)} won in ${t.moves} moves.`;
  if (!playing(t)) {
    const seated = t.red !== "" ? who("R") : t.yellow !== "" ? who("Y") : "";
    return seated ? `${seated} waits for an opponent.` : "Nobody is playing.";
  }
  return `Move ${t.moves + 1}: ${who(t.turn)} to play.`;
}

/** The table as an agent reads it: who plays, where the game stands, you, the board. */
export function describeTable(t: Table, actorId: string): string {
  const mine = sideOf(t, actorId);
  const you =
    mine === undefined
      ? "You are not playing."
      : t.result === "" && playing(t) && t.turn === mine
        ? `You are ${mine}; your turn (params.column 0-6).`
        : `You are ${mine}.`;
  const players = `R: ${t.red ? t.redName : "free"}, Y: ${t.yellow ? t.yellowName : "free"}.`;
  return [`Four-in-a-row. ${players} ${standing(t)} ${you}`, ...boardLines(t.cells)].join("\n");
}

function set(ctx: InteractContext, fields: Partial<Table>): void {
  for (const [k, v] of Object.entries(fields)) if (ctx.state[k] !== v) ctx.setState(k, v);
}

const refuse = (phrase: string, more: string): InteractOutcome => ({
  type: "no_effect",
  message: `${phrase}: ${more}`,
});

/** Posts a finished game to the room's board; says so when the board would not take it. */
function postResult(ctx: InteractContext, text: string): string {
  const board = String(ctx.state.noticeBoard);
  const posted = ctx.postNotice(board, text);
  return posted.type === "ok" ? "" : ` (The board did not take the result: ${posted.message ?? posted.type})`;
}

function join(ctx: InteractContext, t: Table): InteractOutcome {
  const mine = sideOf(t, ctx.actorId);
  if (mine) return refuse(REFUSED.alreadyPlaying, `you are ${mine}.`);
  // A side whose player walked off to another room or left the world is free again.
  const red = t.red !== "" && ctx.inRoom(t.red) ? t.red : "";
  const yellow = t.yellow !== "" && ctx.inRoom(t.yellow) ? t.yellow : "";
  if (red !== "" && yellow !== "")
    return refuse(REFUSED.tableFull, `${t.redName} and ${t.yellowName} are playing.`);
  const side: Side = red === "" ? "R" : "Y";
  const next: Table = {
    ...t,
    ...FRESH_GAME,
    red: side === "R" ? ctx.actorId : red,
    redName: side === "R" ? ctx.actorName : red === "" ? "" : t.redName,
    yellow: side === "Y" ? ctx.actorId : yellow,
    yellowName: side === "Y" ? ctx.actorName : yellow === "" ? "" : t.yellowName,
  };
  set(ctx, next);
  return { type: "ok", message: `You take side ${side}. ${describeTable(next, ctx.actorId)}` };
}

function columnOf(params: Readonly<Record<string, unknown>>): number | string {
  const extra = Object.keys(params).filter((k) => k !== "column");
  if (extra.length > 0) return `play takes only params.column, not ${extra[0]}`;
  const c = params.column;
  if (typeof c !== "number" || !Number.isInteger(c) || c < 0 || c >= COLUMNS)
    return `params.column is a whole number from 0 to ${COLUMNS - 1} (got ${JSON.stringify(c) ?? "nothing"})`;
  return c;
}

function play(ctx: InteractContext, t: Table, params: Readonly<Record<string, unknown>>): InteractOutcome {
  const mine = sideOf(t, ctx.actorId);
  if (!mine) return refuse(REFUSED.notAPlayer, "join the table first.");
  if (t.result !== "") {
    if (!playing(t)) return refuse(REFUSED.gameOver, "your opponent left; someone may join for a new game.");
    // The next game: sides swap, so who moved second now opens.
    const next: Table = {
      ...t,
      ...FRESH_GAME,
      red: t.yellow,
      redName: t.yellowName,
      yellow: t.red,
      yellowName: t.redName,
    };
    set(ctx, next);
    return { type: "ok", message: `A new game. ${describeTable(next, ctx.actorId)}` };
  }
  if (!playing(t)) return refuse(REFUSED.waiting, "the other side is free.");
  if (t.turn !== mine)
    return refuse(REFUSED.notYourTurn, `${nameOf(t, t.turn)} (${t.turn}) is to play; you are ${mine}.`);
  const column = columnOf(params);
  if (typeof column === "string")
    return { type: "invalid_action", message: `${REFUSED.noSuchColumn}: ${column}` };
  const row = landingRow(t.cells, column);
  if (row < 0) return refuse(REFUSED.columnFull, `column ${column} holds six pieces; pick another.`);
  const at = row * COLUMNS + column;
  const cells = t.cells.slice(0, at) + mine + t.cells.slice(at + 1);
  const moves = t.moves + 1;
  const result: Result = makesFour(cells, row, column) ? mine : moves === CELLS ? "draw" : "";
  const next: Table = {
    ...t,
    cells,
    moves,
    result,
    last: column,
    turn: result === "" ? other(mine) : t.turn,
  };
  set(ctx, next);
  let posted = "";
  if (result === "draw")
    posted = postResult(ctx, `${t.redName} and ${t.yellowName} drew at four-in-a-row after ${moves} moves`);
  else if (result !== "")
    posted = postResult(
      ctx,
      `${ctx.actorName} beat ${nameOf(t, other(mine))} at four-in-a-row in ${moves} moves`,
    );
  return { type: "ok", message: `${describeTable(next, ctx.actorId)}${posted}` };
}

function leave(ctx: InteractContext, t: Table): InteractOutcome {
  const mine = sideOf(t, ctx.actorId);
  if (!mine) return refuse(REFUSED.notAPlayer, "you have no side at this table.");
  const resigns = t.result === "" && playing(t) && t.moves > 0;
  const freed: Table = mine === "R" ? { ...t, red: "", redName: "" } : { ...t, yellow: "", yellowName: "" };
  const next: Table =
    freed.red === "" && freed.yellow === ""
      ? { ...freed, ...FRESH_GAME }
      : resigns
        ? { ...freed, result: other(mine) }
        : freed;
  set(ctx, next);
  if (!resigns) return { type: "ok", message: "You leave the table." };
  const winner = nameOf(t, other(mine));
  const posted = postResult(
    ctx,
    `${ctx.actorName} resigned; ${winner} wins at four-in-a-row after ${t.moves} moves`,
  );
  return { type: "ok", message: `You resign and leave the table; ${winner} wins.${posted}` };
}

const columnSchema = {
  type: "object",
  properties: { column: { type: "integer", minimum: 0, maximum: COLUMNS - 1 } },
  required: ["column"],
  additionalProperties: false,
};

export const gameTable: ObjectTypeHandler = {
  objectType: "game_table",
  props: { noticeBoard: "string" },
  about:
    "`noticeBoard`: the id of a `notice_board` in the same room, where results go. Four-in-a-row for two: `join` a side, `play` with `params.column` (0-6) on your turn, `leave` (resigns a game under way), `read` the board. Blocks its tile.",
  actions: ["read", "join", "play", "leave"],
  validate(def, rooms) {
    const room = rooms[def.roomId];
    const board = room?.objects.find((o) => o.id === def.props.noticeBoard);
    if (room && board?.objectType !== "notice_board")
      return { field: "noticeBoard", problem: "expected the id of a notice_board in the same room" };
    return undefined;
  },
  initialState: (def) => ({
    noticeBoard: String(def.props.noticeBoard),
    red: "",
    redName: "",
    yellow: "",
    yellowName: "",
    ...FRESH_GAME,
  }),
  // A table is furniture: nobody stands on it.
  blocksTile: () => true,
  // A game under way waits for the player on turn (a finished one for nobody: either may start the next).
  awaits(state) {
    const t = tableOf(state);
    if (t.red === "" || t.yellow === "" || t.result !== "") return undefined;
    return t.turn === "R" ? t.red : t.yellow;
  },
  affordances(state) {
    const t = tableOf(state);
    const free = t.red === "" || t.yellow === "";
    return [
      { action: "read", label: "Look at the board" },
      ...(free ? [{ action: "join", label: `Take side ${t.red === "" ? "R" : "Y"}` }] : []),
      ...(playing(t)
        ? [
            t.result === ""
              ? { action: "play", label: "Drop a piece (column 0-6)", paramsSchema: columnSchema }
              : { action: "play", label: "Play again (a new game)", paramsSchema: columnSchema },
          ]
        : []),
      ...(t.red !== "" || t.yellow !== "" ? [{ action: "leave", label: "Leave the table" }] : []),
    ];
  },
  interact(ctx, action, params) {
    const t = tableOf(ctx.state);
    if (action === "read") return { type: "ok", message: describeTable(t, ctx.actorId) };
    if (action === "join") return join(ctx, t);
    if (action === "play") return play(ctx, t, params);
    return leave(ctx, t);
  },
  checkState(state) {
    const keys = "cells,last,moves,noticeBoard,red,redName,result,turn,yellow,yellowName";
    if (Object.keys(state).sort().join(",") !== keys) return `the state fields are ${keys}`;
    if (typeof state.noticeBoard !== "string" || state.noticeBoard === "") return "noticeBoard must be an id";
    if (typeof state.cells !== "string" || !/^[.RY]{42}$/.test(state.cells))
      return "cells must be 42 of . R Y";
    for (const side of ["red", "yellow"] as const) {
      const id = state[side];
      const name = state[`${side}Name`];
      if (typeof id !== "string" || (id !== "" && !ACTOR_ID.test(id)))
        return `${side} must be empty or an actor id`;
      if (typeof name !== "string" || name.length > 64 || (id === "") !== (name === ""))
        return `${side}Name must name ${side} (empty when the side is free)`;
    }
    if (state.turn !== "R" && state.turn !== "Y") return "turn must be R or Y";
    if (!["", "R", "Y", "draw"].includes(state.result as string)) return "result must be empty, R, Y or draw";
    const moves = state.moves;
    const pieces = state.cells.replaceAll(".", "").length;
    if (typeof moves !== "number" || moves !== pieces) return "moves must count the pieces on the board";
    const last = state.last;
    if (typeof last !== "number" || !Number.isInteger(last) || last < -1 || last >= COLUMNS)
      return "last must be a column or -1";
    return undefined;
  },
};
