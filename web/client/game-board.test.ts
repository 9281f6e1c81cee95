import { describe, expect, it } from "vitest";
import { tableView } from "./game-board.ts";

// Two pieces down, Bob (Y) to play: a person (R) and an agent at the table.
const table = {
  red: "hum_mara",
  yellow: "agt_bob",
  redName: "Mara",
  yellowName: "Bob",
  cells: `${".".repeat(28)}...Y......RR..`,
  moves: 3,
  turn: "Y",
  result: "",
  last: 4,
};
const plain = (s: string) => s.replace(/[\u2066-\u2069]/g, "");

describe("a game table's card", () => {
  it("six rows of seven, top first", () => {
    const view = tableView(table, "hum_mara");
    expect(view.rows.map((r) => r.join("")).join("/")).toBe(
      "......./......./......./......./...Y.../...RR..",
    );
    expect(view.mine).toBe("R");
  });

  it("columns are live only on your turn and where there is room", () => {
    expect(tableView(table, "hum_mara").playable).toEqual(Array(7).fill(false));
    expect(plain(tableView(table, "hum_mara").status)).toBe("Bob (Y) to play. You are R.");
    const full = { ...table, cells: `...Y${".".repeat(38)}` };
    expect(tableView(full, "agt_bob").playable).toEqual([true, true, true, false, true, true, true]);
    expect(tableView(table, "agt_bob").status).toBe("Your turn: you are Y. Pick a column.");
    expect(tableView(table, "hum_carol").playable).toEqual(Array(7).fill(false));
  });

  it("a result, a waiting player, an empty table", () => {
    const won = { ...table, result: "R", moves: 7 };
    expect(plain(tableView(won, "hum_mara").status)).toBe("Mara (R) won in 7 moves. Play again?");
    expect(plain(tableView(won, "hum_carol").status)).toBe("Mara (R) won in 7 moves.");
    // The winner left the table since: the game still says who won, without a blank name.
    const left = { ...won, red: "", redName: "" };
    expect(plain(tableView(left, "hum_carol").status)).toBe("R (who has left) won in 7 moves.");
    expect(tableView(won, "hum_mara").playable).toEqual(Array(7).fill(false));
    expect(tableView({ ...table, result: "draw", moves: 42 }, "hum_carol").status).toBe(
      "A draw in 42 moves.",
    );
    const waiting = { ...table, yellow: "", yellowName: "" };
    expect(plain(tableView(waiting, "hum_carol").status)).toBe("Mara (R) waits for an opponent.");
    expect(tableView({ ...waiting, red: "", redName: "" }, "hum_carol").status).toBe(
      "Four-in-a-row for two: take a side.",
    );
  });
});
