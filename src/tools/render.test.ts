import { describe, expect, it } from "vitest";
import { formatHeartbeat, formatObservation } from "./render.ts";

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

describe("a garden plot as the tools say it", () => {
  const plot = {
    growSeconds: 3600,
    thirstSeconds: 1200,
    stage: "growing",
    wilted: false,
    planter: "agt_fern",
    planterName: "Fern",
    grownMs: 0,
    growingSinceMs: 0,
    wateredMs: 0,
  };
  it("its stage and planter; a wilted one says it needs water; an empty one invites planting", () => {
    expect(observe("garden_plot", plot)).toContain("— growing, planted by Fern; can:");
    expect(observe("garden_plot", { ...plot, wilted: true })).toContain(
      "— wilted growing, planted by Fern; needs water; can:",
    );
    expect(observe("garden_plot", { ...plot, stage: "empty", planter: "", planterName: "" })).toContain(
      "— empty plot (plant);",
    );
  });
  it("a tour board says what it is and how many finished it", () => {
    expect(observe("tour", { started: 3, finished: 2, reached: "Fountain" })).toContain(
      "— a guided tour (read it for your progress, start it to begin); 2 finished so far; can:",
    );
  });
});

describe("a creature as the tools say it", () => {
  it("in words: who it is and what it is doing", () => {
    const cat = { species: "cat", called: "Mochi the cat", doing: "following Ann", mode: "follow" };
    expect(observe("creature", cat)).toContain("— Mochi the cat, following Ann; can:");
  });
});

describe("a heartbeat as the tools say it", () => {
  it("names the time of day", () => {
    const text = formatHeartbeat({
      self: { roomId: "garden", tile: { tx: 3, ty: 4 } },
      delta: {},
      suggestions: [],
      timeOfDay: { part: "evening", clock: "18:20" },
    });
    expect(text.split("\n")[0]).toBe("In garden at (3, 4). It is evening (18:20).");
  });
});
