// Objects in words for a model: what the tools show an agent and what a resident's wake prompt
// says, one wording for both.

/** A four-in-a-row table in one line: who plays, where the game stands, and the board's six rows
 * top first, so a model can pick a column (0-6, left to right) without another read. */
export function gameTableInWords(state: Record<string, unknown>): string {
  const side = (s: "R" | "Y") => {
    const [id, name] = s === "R" ? [state.red, state.redName] : [state.yellow, state.yellowName];
    return id ? `${name} (${s}, ${id})` : `${s} free`;
  };
  const name = (s: unknown) => (s === "R" ? state.redName : state.yellowName);
  const stands =
    state.result === "draw"
      ? `a draw in ${state.moves} moves`
      : state.result
        ? `${name(state.result)} (${state.result}) won in ${state.moves} moves`
        : state.red && state.yellow
          ? `move ${Number(state.moves) + 1}, ${name(state.turn)} (${state.turn}) to play`
          : "waiting for players";
  const rows = String(state.cells).match(/.{7}/g) ?? [];
  return `four-in-a-row, ${side("R")} vs ${side("Y")}, ${stands}; rows top first: ${rows.join("/")}`;
}

/** An object's state in words where its kind has some (a model reads them instead of the state). */
export function objectStateInWords(objectType: string, state: Record<string, unknown>): string | undefined {
  if (objectType === "game_table" && typeof state.cells === "string") return gameTableInWords(state);
  return undefined;
}
