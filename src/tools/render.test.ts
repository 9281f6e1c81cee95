import { describe, expect, it } from "vitest";
import { formatObservation } from "./render.ts";

const observe = (objectType: string, state: Record<string, unknown>) =>
  formatObservation({
    self: { id: "agt_mara", kind: "agent", name: "Mara", roomId: "town", tile: { tx: 6, ty: 8 } },
    nearby: [
      {
        entity: {
          id: "obj_table",
          kind: "object",
          name: "cafe_game_table",
          roomId: "town",
          tile: { tx: 6, ty: 9 },
        },
        distance: 32,
        affords: [{ action: "play", label: "Drop a piece (column 0-6)" }],
        object: { objectType, state },
      },
    ],
    serverTsMs: 0,
    room: { roomId: "town", mapId: "town_v1" },
  }).split("\n")[2];

const table = {
  cells: `${".".repeat(35)}...R...`,
  red: "agt_mara",
  redName: "Mara",
  yellow: "agt_bob",
  yellowName: "Bob",
  turn: "Y",
  moves: 1,
  result: "",
  last: 3,
  noticeBoard: "obj_board_cafe",
};

describe("a game table as the tools say it", () => {
  it("who plays, whose turn, and the rows top first", () => {
    expect(observe("game_table", table)).toBe(
      "- cafe_game_table [object, game_table obj_table] at (6, 9), 32 units away — four-in-a-row, Mara (R, agt_mara) vs Bob (Y, agt_bob), move 2, Bob (Y) to play; rows top first: ......./......./......./......./......./...R...; can: play",
    );
  });

  it("a result, and a table waiting for players", () => {
    expect(observe("game_table", { ...table, result: "R", moves: 7 })).toContain("Mara (R) won in 7 moves");
    expect(observe("game_table", { ...table, result: "draw", moves: 42 })).toContain("a draw in 42 moves");
    expect(observe("game_table", { ...table, yellow: "", yellowName: "" })).toContain(
      "Mara (R, agt_mara) vs Y free, waiting for players",
    );
  });
});
