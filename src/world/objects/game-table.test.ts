import { describe, expect, it } from "vitest";
import { parseWorld } from "../definition.ts";
import { type FixtureRoom, fixtureFiles, fixtureWorld, openRoom } from "../testing/fixtures.ts";
import { join, one, walkTo } from "../testing/helpers.ts";
import type { InputResult, WorldDefinition } from "../types.ts";
import { World } from "../world.ts";
import { boardLines, REFUSED } from "./game-table.ts";

const TABLE = "obj_table";
const BOARD = "obj_board";

function tableRoom(noticeBoard = BOARD): FixtureRoom {
  return {
    id: "cafe",
    rows: openRoom(16, 8),
    objects: [
      { type: "spawn", name: "s1", tx: 2, ty: 2 },
      { type: "notice_board", name: "board", tx: 5, ty: 1, props: { title: "Café board" } },
      { type: "game_table", name: "table", tx: 3, ty: 3, props: { noticeBoard } },
    ],
  };
}

const cafe = (): WorldDefinition => fixtureWorld([tableRoom()]);

function outcome(r: InputResult) {
  if (!r.ok || r.value.kind !== "interact") throw new Error(`unexpected ${JSON.stringify(r)}`);
  return r.value.outcome;
}

const use = (world: World, who: string, action: string, params?: Record<string, unknown>) =>
  outcome(
    one(world, {
      kind: "interact",
      entityId: who,
      targetId: TABLE,
      action,
      ...(params ? { params } : {}),
    }),
  );

const state = (world: World) => world.objectView(TABLE)!.state;
const notes = (world: World) =>
  (world.objectView(BOARD)!.state.notes as { name: string; text: string }[]).map(
    (n) => `${n.name}: ${n.text}`,
  );

/** Mara (R) and Bob (Y) at the table, Mara to open. */
function seated(def = cafe()): World {
  const world = World.create(def);
  world.step([join("agt_mara"), join("agt_bob")]);
  expect(use(world, "agt_mara", "join").type).toBe("ok");
  expect(use(world, "agt_bob", "join").type).toBe("ok");
  return world;
}

/** Plays columns in turn, R (mara unless told) first; every move must be taken. */
function playAll(world: World, columns: readonly number[], red = "agt_mara", yellow = "agt_bob") {
  let last: string | undefined;
  columns.forEach((column, i) => {
    const o = use(world, i % 2 === 0 ? red : yellow, "play", { column });
    expect(o.type, `move ${i + 1} (column ${column}): ${o.message}`).toBe("ok");
    last = o.message;
  });
  return last;
}

// Every game below is R's to win with the last move.
const WINS = {
  across: [0, 0, 1, 1, 2, 2, 3],
  down: [0, 1, 0, 1, 0, 1, 0],
  rising: [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3],
  falling: [6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3],
};
const DRAW = [
  0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 4, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5,
  6, 6, 6, 6, 6, 6,
];

describe("game table: joining", () => {
  it("the first to join is R, the second Y; a third finds the table full", () => {
    const world = World.create(cafe());
    world.step([join("agt_mara"), join("agt_bob"), join("agt_carol")]);
    expect(state(world)).toMatchObject({ red: "", yellow: "", cells: ".".repeat(42), result: "" });
    expect(world.objectView(TABLE)!.affords.map((a) => a.action)).toEqual(["read", "join"]);
    expect(use(world, "agt_mara", "join").message).toMatch(/^You take side R\./);
    expect(use(world, "agt_mara", "join")).toEqual({
      type: "no_effect",
      message: `${REFUSED.alreadyPlaying}: you are R.`,
    });
    expect(use(world, "agt_bob", "join").message).toMatch(/^You take side Y\./);
    expect(state(world)).toMatchObject({
      red: "agt_mara",
      redName: "mara",
      yellow: "agt_bob",
      yellowName: "bob",
    });
    expect(world.objectView(TABLE)!.affords.map((a) => a.action)).toEqual(["read", "play", "leave"]);
    const full = use(world, "agt_carol", "join");
    expect(full.type).toBe("no_effect");
    expect(full.message).toMatch(new RegExp(`^${REFUSED.tableFull}:`));
  });

  it("read shows the board in seven-character lines and whose turn it is", () => {
    const world = seated();
    playAll(world, [3]);
    const read = use(world, "agt_bob", "read");
    expect(read.type).toBe("ok");
    expect(read.message!.split("\n")).toEqual([
      "Four-in-a-row. R: mara, Y: bob. Move 2: bob (Y) to play. You are Y; your turn (params.column 0-6).",
      ".......",
      ".......",
      ".......",
      ".......",
      ".......",
      "...R...",
      "0123456",
    ]);
    expect(use(world, "agt_mara", "read").message!.split("\n")[0]).toMatch(/You are R\.$/);
  });
});

describe("game table: wins and draws", () => {
  for (const [direction, columns] of Object.entries(WINS)) {
    it(`four ${direction} wins, and the result goes to the room's notice board`, () => {
      const world = seated();
      const last = playAll(world, columns);
      expect(state(world)).toMatchObject({ result: "R", moves: columns.length, last: columns.at(-1) });
      expect(last!.split("\n")[0]).toContain(`mara (R) won in ${columns.length} moves.`);
      expect(notes(world)).toEqual([`mara: mara beat bob at four-in-a-row in ${columns.length} moves`]);
    });
  }

  it("one move short of four is no win", () => {
    const world = seated();
    playAll(world, WINS.across.slice(0, -1));
    expect(state(world)).toMatchObject({ result: "", turn: "R", moves: 6 });
    expect(notes(world)).toEqual([]);
  });

  it("a full board without four is a draw", () => {
    const world = seated();
    playAll(world, DRAW);
    expect(state(world)).toMatchObject({ result: "draw", moves: 42 });
    expect(notes(world)).toEqual(["bob: mara and bob drew at four-in-a-row after 42 moves"]);
  });

  it("a result the board will not take still stands, and the player is told", () => {
    const world = seated();
    playAll(world, WINS.down);
    // The next game at once: bob opens now, and mara wins again within the board's interval for
    // one author's posts.
    expect(use(world, "agt_bob", "play", { column: 0 }).message).toMatch(/^A new game\./);
    const last = playAll(world, [6, 0, 6, 0, 5, 0, 5, 0], "agt_bob", "agt_mara");
    expect(state(world)).toMatchObject({ result: "Y", red: "agt_bob", yellow: "agt_mara" });
    expect(last).toMatch(/\(The board did not take the result: You posted here a moment ago; wait \d+ s/);
    expect(notes(world)).toHaveLength(1);
  });
});

describe("game table: refusals change nothing", () => {
  function unchanged(world: World, act: () => { type: string; message?: string }) {
    const before = world.objectView(TABLE);
    const o = act();
    expect(world.objectView(TABLE)).toEqual(before);
    return o;
  }

  it("not your turn: R opens, and nobody moves twice", () => {
    const world = seated();
    const early = unchanged(world, () => use(world, "agt_bob", "play", { column: 3 }));
    expect(early).toEqual({
      type: "no_effect",
      message: `${REFUSED.notYourTurn}: mara (R) is to play; you are Y.`,
    });
    playAll(world, [3]);
    expect(unchanged(world, () => use(world, "agt_mara", "play", { column: 3 })).message).toMatch(
      new RegExp(`^${REFUSED.notYourTurn}:`),
    );
  });

  it("a game under way awaits the player on turn; a table waiting for players or a finished game awaits nobody", () => {
    const world = World.create(cafe());
    world.step([join("agt_mara"), join("agt_bob")]);
    use(world, "agt_mara", "join");
    expect(world.objectView(TABLE)!.awaits).toBeUndefined();
    use(world, "agt_bob", "join");
    expect(world.objectView(TABLE)!.awaits).toBe("agt_mara");
    playAll(world, [0]);
    expect(world.objectView(TABLE)!.awaits).toBe("agt_bob");
    playAll(world, [1, 0, 1, 0, 1, 0], "agt_bob", "agt_mara");
    expect(state(world).result).toBe("R");
    expect(world.objectView(TABLE)!.awaits).toBeUndefined();
  });

  it("a column out of range or not a whole number is invalid", () => {
    const world = seated();
    for (const params of [
      { column: 7 },
      { column: -1 },
      { column: 2.5 },
      { column: "3" },
      {},
      { column: 1, x: 1 },
    ]) {
      const o = unchanged(world, () => use(world, "agt_mara", "play", params));
      expect(o.type, JSON.stringify(params)).toBe("invalid_action");
      expect(o.message).toMatch(new RegExp(`^${REFUSED.noSuchColumn}:`));
    }
  });

  it("a full column takes no seventh piece", () => {
    const world = seated();
    playAll(world, [0, 0, 0, 0, 0, 0]);
    const o = unchanged(world, () => use(world, "agt_mara", "play", { column: 0 }));
    expect(o).toEqual({
      type: "no_effect",
      message: `${REFUSED.columnFull}: column 0 holds six pieces; pick another.`,
    });
  });

  it("not a player, waiting for an opponent, and game over", () => {
    const world = World.create(cafe());
    world.step([join("agt_mara"), join("agt_bob"), join("agt_carol")]);
    expect(unchanged(world, () => use(world, "agt_carol", "play", { column: 0 })).message).toMatch(
      new RegExp(`^${REFUSED.notAPlayer}:`),
    );
    expect(unchanged(world, () => use(world, "agt_carol", "leave")).message).toMatch(
      new RegExp(`^${REFUSED.notAPlayer}:`),
    );
    use(world, "agt_mara", "join");
    expect(unchanged(world, () => use(world, "agt_mara", "play", { column: 0 })).message).toMatch(
      new RegExp(`^${REFUSED.waiting}:`),
    );
    use(world, "agt_bob", "join");
    playAll(world, WINS.down);
    expect(use(world, "agt_bob", "leave").type).toBe("ok");
    const over = unchanged(world, () => use(world, "agt_mara", "play", { column: 0 }));
    expect(over.type).toBe("no_effect");
    expect(over.message).toMatch(new RegExp(`^${REFUSED.gameOver}:`));
  });

  it("too far: the world's reach rule", () => {
    const world = seated();
    walkTo(world, "agt_bob", 12, 5);
    expect(unchanged(world, () => use(world, "agt_bob", "read")).type).toBe("too_far");
  });
});

describe("game table: leaving, the next game, a fresh table", () => {
  it("play after a finish starts the next game with the sides swapped and moves nothing", () => {
    const world = seated();
    playAll(world, WINS.across);
    const next = use(world, "agt_mara", "play", { column: 4 });
    expect(next.type).toBe("ok");
    expect(next.message).toMatch(
      /^A new game\. Four-in-a-row\. R: bob, Y: mara\. Move 1: bob \(R\) to play\./,
    );
    expect(state(world)).toMatchObject({
      red: "agt_bob",
      yellow: "agt_mara",
      cells: ".".repeat(42),
      moves: 0,
    });
    expect(state(world).result).toBe("");
    expect(use(world, "agt_mara", "play", { column: 4 }).message).toMatch(
      new RegExp(`^${REFUSED.notYourTurn}`),
    );
  });

  it("leaving a game in play resigns it; when both have left the table is as new", () => {
    const world = seated();
    const fresh = World.create(cafe()).objectView(TABLE)!.state;
    playAll(world, [3, 4, 3]);
    expect(use(world, "agt_bob", "leave").message).toBe("You resign and leave the table; mara wins.");
    expect(state(world)).toMatchObject({ result: "R", yellow: "", yellowName: "", red: "agt_mara" });
    expect(notes(world)).toEqual(["bob: bob resigned; mara wins at four-in-a-row after 3 moves"]);
    expect(use(world, "agt_mara", "leave").message).toBe("You leave the table.");
    expect(state(world)).toEqual(fresh);
  });

  it("the winner leaves the finished game: the table still says who won, without a blank name", () => {
    const world = seated();
    playAll(world, [0, 1, 0, 1, 0, 1, 0]);
    expect(state(world)).toMatchObject({ result: "R" });
    expect(use(world, "agt_mara", "leave").message).toBe("You leave the table.");
    expect(use(world, "agt_bob", "read").message!.split("\n")[0]).toContain(
      "R (who has left) won in 7 moves.",
    );
  });

  it("leaving before the first move is no resignation", () => {
    const world = seated();
    expect(use(world, "agt_bob", "leave").message).toBe("You leave the table.");
    expect(state(world)).toMatchObject({ result: "", red: "agt_mara", yellow: "" });
    expect(notes(world)).toEqual([]);
  });

  it("a newcomer takes a side left free after a finish, on a fresh board", () => {
    const world = seated();
    world.step([join("agt_carol")]);
    playAll(world, WINS.down);
    use(world, "agt_bob", "leave");
    expect(use(world, "agt_carol", "join").message).toMatch(/^You take side Y\./);
    expect(state(world)).toMatchObject({ red: "agt_mara", yellow: "agt_carol", result: "", moves: 0 });
  });

  it("a side whose player left the world is free to take", () => {
    const world = seated();
    playAll(world, [3, 3]);
    world.step([{ kind: "leave", entityId: "agt_bob", reason: "disconnect" }, join("agt_carol")]);
    expect(use(world, "agt_carol", "join").message).toMatch(/^You take side Y\./);
    expect(state(world)).toMatchObject({ yellow: "agt_carol", moves: 0, cells: ".".repeat(42) });
  });
});

describe("game table: the world's rules", () => {
  it("same inputs, same state; a snapshot holds the game and restores it", () => {
    const a = seated();
    const b = seated();
    playAll(a, WINS.rising.slice(0, 6));
    playAll(b, WINS.rising.slice(0, 6));
    expect(a.snapshotHash()).toBe(b.snapshotHash());
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    const saved = snap.state.objects.find((o: { id: string }) => o.id === TABLE);
    expect(saved.state).toMatchObject({ moves: 6, turn: "R", red: "agt_mara" });
    const restored = World.restore(cafe(), snap);
    expect(restored.snapshotHash()).toBe(a.snapshotHash());
    expect(restored.objectView(TABLE)).toEqual(a.objectView(TABLE));
    // A saved board is checked like a request: pieces and moves must agree.
    saved.state.cells = `R${saved.state.cells.slice(1)}`;
    expect(() => World.restore(cafe(), snap)).toThrow(/moves must count the pieces/);
  });

  it("names a notice board of its own room", () => {
    expect(() => parseWorld(fixtureFiles([tableRoom("obj_nope")]))).toThrow(/noticeBoard/);
  });

  it("a table blocks its tile like furniture", () => {
    const world = World.create(cafe());
    expect(world.isBlocked("cafe", { tx: 3, ty: 3 })).toBe(true);
  });

  it("boardLines: top row first, the column numbers last", () => {
    expect(boardLines(`${".".repeat(35)}R.....Y`)).toEqual([
      ".......",
      ".......",
      ".......",
      ".......",
      ".......",
      "R.....Y",
      "0123456",
    ]);
  });
});
