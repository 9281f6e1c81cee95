// The town café's game table (four-in-a-row, src/world/objects/game-table.ts) through the real
// gateway: two HTTP agents (AIC v0.1) take its sides, a move out of turn is refused and costs
// nothing, a full game is played to a win, observe shows the result and the café's notice board the
// note the table posted. The game is watched as it goes on the follow page of the red side (its board
// beside the map, each move as it is played), and afterwards on the operator's replay page, whose
// board is the one of the tick shown, mid-game and at the win. Then a person in a real browser plays
// the agent from the table's card, and two people, each in a browser, play a whole game against each
// other with the drop buttons of the table's card, to a win that the café's board card then shows. At
// the end the table is as new, the notes are taken down, the agents leave and the pages are closed.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { timeOfDay } from "../../src/world/time.ts";
import { type LampMapData, lampTilesOf } from "../../web/client/lamps.ts";
import {
  launchBrowser,
  mapBlocked,
  ocw,
  openPlayer,
  settledPoint,
  shot,
  walkTo,
  watchedPage,
} from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { aicCall, boardNotes, gateway, leaveWorld, removeNotes } from "./fixtures.ts";
import { boardCardShows, cardText, openTableCard, personAtTable } from "./game-table-pages.ts";

const R = "agent_game_r";
const Y = "agent_game_y";
const ROOM = "town";
const TABLE = "obj_cafe_game_table";
const BOARD = "obj_board_cafe";
/** Beside the table (6, 9), one on each side of it. */
const SPOTS = [
  [R, { tx: 6, ty: 8 }],
  [Y, { tx: 6, ty: 10 }],
] as const;
const call = (path: string, agentId: string, body: Record<string, unknown>) =>
  aicCall(ROOM, path, agentId, body);

let txn = 0;
const tx = (what: string) => `tx_game_${what}_${Date.now()}_${txn++}`;

/** The table used by `agentId`: the answer's data (its outcome, the time of its tick). */
async function interact(agentId: string, action: string, params?: Record<string, unknown>) {
  const answer = await call("interact", agentId, {
    txId: tx(action),
    targetId: TABLE,
    action,
    ...(params ? { params } : {}),
  });
  expect(checkResponse("InteractResponseData", answer), JSON.stringify(answer)).toEqual([]);
  return answer.data as { serverTsMs: number; outcome: { type: string; message?: string } };
}

async function use(agentId: string, action: string, params?: Record<string, unknown>) {
  return (await interact(agentId, action, params)).outcome;
}

/** The cells of the boards a page draws beside its map (`within`: the boards' element), by piece. */
async function boardCells(page: Page, within: string) {
  const count = (cell: string) => page.locator(`${within} .table-board span[data-cell="${cell}"]`).count();
  return { R: await count("R"), Y: await count("Y"), empty: await count(".") };
}

/** The lamps of the town's map, as the page finds them. */
async function townLamps(): Promise<number> {
  const map = (await (await fetch(`${gateway().baseUrl}/world/maps/town.json`)).json()) as LampMapData;
  return lampTilesOf(map).length;
}

/** The table as `agentId` observes it. */
async function table(agentId: string) {
  const seen = await call("observe", agentId, { radius: 128, detail: "full" });
  const found = seen.data.nearby.find((n: { entity: { id: string } }) => n.entity.id === TABLE);
  if (!found) throw new Error(`${agentId} does not see the table: ${JSON.stringify(seen.data)}`);
  return found as { object: { state: Record<string, unknown> }; affords: { action: string }[] };
}

const WIN = "Game Mara beat Game Bob at four-in-a-row in 7 moves";
const RESIGNED = "Tess resigned; Game Bob wins at four-in-a-row after 2 moves";

const state = async (agentId: string) => (await table(agentId)).object.state;

let watcher: Browser | undefined;
afterAll(async () => {
  await watcher?.close();
  await removeNotes(BOARD, (n) => n.text === WIN);
  for (const id of [R, Y]) await leaveWorld(id, ROOM);
});

describe("the café's game table over AIC", () => {
  // Whatever happened in it, the table is left as new for the next describe (a side leaves; "not a
  // player" is fine too): one failure here does not fail the browser games below.
  afterAll(async () => {
    for (const id of [R, Y])
      await call("interact", id, { txId: tx("cleanup"), targetId: TABLE, action: "leave" });
  });

  it("two agents play a game to a win; a move out of turn is refused and costs nothing; the board gets the result", async () => {
    for (const id of [R, Y]) expect((await call("join", id, {})).status).toBe("ok");
    for (const [id, spot] of SPOTS) {
      const moved = await call("moveTo", id, { txId: tx("walk"), dest: spot });
      expect(moved.status, JSON.stringify(moved)).toBe("ok");
    }
    for (const [id, spot] of SPOTS)
      await until(
        `${id} beside the table`,
        async () => {
          const self = (await call("observe", id, { radius: 1, detail: "lite" })).data?.self;
          return self?.tile.tx === spot.tx && self.tile.ty === spot.ty && self.speed === 0;
        },
        { timeoutMs: 90_000, everyMs: 700 },
      );

    const fresh = await table(R);
    expect(fresh.object.state).toMatchObject({ red: "", yellow: "", moves: 0, result: "" });
    expect(fresh.affords.map((a) => a.action)).toEqual(["read", "join"]);
    expect((await use(R, "join")).message).toMatch(/^You take side R\./);
    expect((await use(Y, "join")).message).toMatch(/^You take side Y\./);

    // Red's owner follows it: the café's table is drawn beside the map, its board empty, red to play.
    watcher = await launchBrowser();
    const follow = await watchedPage(watcher, { viewport: { width: 1280, height: 800 } });
    await follow.page.goto(`${gateway().baseUrl}/openclawworld/follow/#token=${gateway().agents[R]!.token}`);
    await until("the follow page live", async () =>
      follow.page.evaluate("window.ocwFollow.streaming === true && window.ocwFollow.roomId === 'town'"),
    );
    await until("the table's board on the follow page", async () => {
      const status = await follow.page.locator("#follow-games .table-status").textContent();
      return status?.replace(/[\u2066-\u2069]/g, "") === "Game Mara (R) to play.";
    });
    expect(await boardCells(follow.page, "#follow-games")).toEqual({ R: 0, Y: 0, empty: 42 });
    expect(await follow.page.evaluate("window.ocwFollow.lamps().count")).toBe(await townLamps());

    // Out of turn: refused with its own words, and the table is as it was.
    const before = (await table(Y)).object.state;
    const early = await use(Y, "play", { column: 3 });
    expect(early).toEqual({
      type: "no_effect",
      message: "Not your turn: Game Mara (R) is to play; you are Y.",
    });
    expect((await table(Y)).object.state).toEqual(before);

    const columns = [0, 1, 0, 1, 0, 1, 0];
    let last = "";
    /** The world's time of each move's tick. */
    const playedAt: number[] = [];
    for (const [i, column] of columns.entries()) {
      const { outcome, serverTsMs } = await interact(i % 2 === 0 ? R : Y, "play", { column });
      expect(outcome.type, outcome.message).toBe("ok");
      last = outcome.message ?? "";
      playedAt.push(serverTsMs);
      if (i === 2)
        await until("three pieces on the follow page", async () => {
          const cells = await boardCells(follow.page, "#follow-games");
          return cells.R === 2 && cells.Y === 1;
        });
    }
    expect(last.split("\n")).toEqual([
      "Four-in-a-row. R: Game Mara, Y: Game Bob. Game Mara (R) won in 7 moves. You are R.",
      ".......",
      ".......",
      "R......",
      "RY.....",
      "RY.....",
      "RY.....",
      "0123456",
    ]);

    const done = await table(Y);
    expect(done.object.state).toMatchObject({
      red: `agt_${R}`,
      yellow: `agt_${Y}`,
      result: "R",
      moves: 7,
      last: 0,
    });
    const notes = await boardNotes(BOARD);
    expect(notes.notes.map((n) => n.text)).toContain(WIN);
    await until("the win on the follow page", async () => {
      const status = await follow.page.locator("#follow-games .table-status").textContent();
      return status?.replace(/[\u2066-\u2069]/g, "") === "Game Mara (R) won in 7 moves.";
    });
    expect(await boardCells(follow.page, "#follow-games")).toEqual({ R: 4, Y: 3, empty: 35 });
    await shot(follow.page, "follow-game-board.png");
    expect(follow.consoleErrors).toEqual([]);
    await follow.page.close();

    // The operator's replay of the town: the board of the tick shown, mid-game and at the win.
    const overview = (
      (await (
        await fetch(`${gateway().baseUrl}/openclawworld/admin/replay`, {
          headers: { authorization: `Bearer ${gateway().gatewayToken}` },
        })
      ).json()) as { data: { tickRate: number; stretches: { lastTick: number; lastTime: number }[] } }
    ).data;
    const latest = overview.stretches[overview.stretches.length - 1]!;
    const tickOf = (ms: number) =>
      Math.round(latest.lastTick - ((latest.lastTime - ms) * overview.tickRate) / 1000);
    const link = (
      (await (
        await fetch(`${gateway().baseUrl}/openclawworld/admin/replay/link`, {
          method: "POST",
          headers: { authorization: `Bearer ${gateway().gatewayToken}` },
        })
      ).json()) as { data: { url: string } }
    ).data;
    const replay = await watchedPage(watcher, { viewport: { width: 1280, height: 800 } });
    await replay.page.goto(link.url);
    await until("the replay draws a frame", () =>
      replay.page.evaluate("Boolean(window.ocwReplay && window.ocwReplay.frame)"),
    );
    await replay.page.fill("#replay-minutes", "5");
    await replay.page.selectOption("#replay-room", ROOM);
    await until("the town's last minutes open", async () =>
      replay.page.evaluate(
        "window.ocwReplay.roomId === 'town' && window.ocwReplay.frame?.room.roomId === 'town' && !window.ocwReplay.loading",
      ),
    );
    /** Scrubs to `tick` (again while another frame is shown) and reads the board drawn for it. */
    const boardAt = (tick: number) =>
      until(`the replay's board at tick ${tick}`, async () => {
        const shown = (await replay.page.evaluate("window.ocwReplay.tick")) as number;
        if (shown !== tick) {
          await replay.page.evaluate((t) => {
            const scrub = document.getElementById("replay-scrub") as HTMLInputElement;
            scrub.value = String(t);
            scrub.dispatchEvent(new Event("change"));
          }, tick);
          return undefined;
        }
        const status = await replay.page.locator("#replay-games .table-status").textContent();
        return {
          cells: await boardCells(replay.page, "#replay-games"),
          status: status?.replace(/[\u2066-\u2069]/g, ""),
        };
      });
    expect(await boardAt(tickOf(playedAt[2]!))).toEqual({
      cells: { R: 2, Y: 1, empty: 39 },
      status: "Game Bob (Y) to play.",
    });
    expect(await boardAt(tickOf(playedAt[6]!))).toEqual({
      cells: { R: 4, Y: 3, empty: 35 },
      status: "Game Mara (R) won in 7 moves.",
    });
    await shot(replay.page, "replay-game-board.png");
    // Its lamps are the town's, lit as the tick's part of the day says.
    const frameTime = (await replay.page.evaluate("window.ocwReplay.frame.time")) as number;
    expect(await replay.page.evaluate("window.ocwReplay.lamps()")).toMatchObject({
      count: await townLamps(),
      lit: timeOfDay(frameTime).part === "night",
    });
    expect(replay.consoleErrors).toEqual([]);
    await replay.page.close();

    // Both leave: the table is as new for whoever comes next.
    for (const id of [R, Y]) expect((await use(id, "leave")).message).toBe("You leave the table.");
    expect((await table(R)).object.state).toMatchObject({
      red: "",
      yellow: "",
      cells: ".".repeat(42),
      moves: 0,
      result: "",
    });
  });
});

describe("the café's game table in the browser", () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await removeNotes(BOARD, (n) => n.text === RESIGNED);
  });

  it("a person opens the table's card, takes a side and plays a column; the agent's move shows up live", async () => {
    const base = gateway().baseUrl;
    const townBlocked = await mapBlocked(base, "town");
    browser = await launchBrowser();
    const { page } = await openPlayer(browser, base, "Tess");
    // Onto the lobby's west portal: it carries her to the town.
    await ocw(
      page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 1, ty: 16 } } })})`,
    );
    await until("Tess in the town", async () => (await ocw<string>(page, "roomId")) === "town", 60_000);
    await walkTo(page, 7, 10, townBlocked);
    const table = await settledPoint(page, 6, 9);
    await page.mouse.click(table.x, table.y);
    await page.waitForSelector('#dialog:not([hidden])[data-kind="game_table"]', { timeout: 30_000 });
    expect(await page.locator("#dialog-text").textContent()).toBe("Four-in-a-row for two: take a side.");
    await page.click('#dialog-actions button[data-action="join"]');
    await until("Tess is R", async () =>
      (await page.locator("#dialog-text").textContent())?.includes("waits for an opponent. You are R."),
    );
    expect((await use(Y, "join")).message).toMatch(/^You take side Y\./);
    await until("her turn", async () =>
      (await page.locator("#dialog-text").textContent())?.startsWith("Your turn"),
    );
    await page.click('#dialog-game .game-drop[data-column="3"]');
    // Observe is limited to 2/s per agent (PRD 12): looked at a little slower, a refusal is "not yet".
    const slowly = { everyMs: 600, ignoreErrors: true };
    await until(
      "her piece in column 3",
      async () => (await state(Y)).cells === `${".".repeat(38)}R...`,
      slowly,
    );
    // The agent's answer shows on her open card without her doing anything.
    expect((await use(Y, "play", { column: 4 })).type).toBe("ok");
    await until(
      "the agent's piece on her card",
      async () => (await page.locator('#dialog-game span[data-cell="Y"]').count()) === 1,
    );
    expect(await page.locator('#dialog-game span[data-cell="R"]').count()).toBe(1);
    expect(await page.locator("#dialog-game .game-drop:not([disabled])").count()).toBe(7);
    // She gives the game up (two moves on the board: a resignation), then the agent leaves too.
    await page.click('#dialog-actions button[data-action="leave"]');
    await until("the result", async () => (await state(Y)).result === "Y", slowly);
    expect((await boardNotes(BOARD)).notes.map((n) => n.text)).toContain(RESIGNED);
    expect((await use(Y, "leave")).message).toBe("You leave the table.");
    expect(await state(Y)).toMatchObject({ red: "", yellow: "", moves: 0, result: "" });
  });
});

describe("two people play each other in their browsers", () => {
  const PEOPLE_WIN = "Uma beat Vic at four-in-a-row in 7 moves";
  let browser: Browser | undefined;
  let pages: Page[] = [];
  afterAll(async () => {
    // Whatever happened below, each still seated gives up their side (a finished game: no resignation).
    for (const page of pages) {
      const leave = page.locator(
        '#dialog[data-kind="game_table"] #dialog-actions button[data-action="leave"]',
      );
      if (await leave.count().catch(() => 0)) await leave.click().catch(() => undefined);
    }
    await browser?.close();
    await removeNotes(BOARD, (n) => n.text === PEOPLE_WIN);
  });

  it("each takes a side on the table's card and plays with its drop buttons, to a win; the café's board card shows the result", async () => {
    browser = await launchBrowser();
    const [uma, vic] = await Promise.all([
      personAtTable(browser, "Uma", { tx: 7, ty: 10 }),
      personAtTable(browser, "Vic", { tx: 7, ty: 8 }),
    ]);
    pages = [uma!.page, vic!.page];
    for (const page of pages) await openTableCard(page);
    expect(await cardText(uma!.page)).toBe("Four-in-a-row for two: take a side.");
    await uma!.page.click('#dialog-actions button[data-action="join"]');
    await until("Uma is R", async () =>
      (await cardText(uma!.page)).includes("waits for an opponent. You are R."),
    );
    await vic!.page.click('#dialog-actions button[data-action="join"]');
    await until("Vic is Y", async () => (await cardText(vic!.page)) === "Uma (R) to play. You are Y.");

    // Red stacks column 0, yellow column 1: red's fourth piece wins on the seventh move.
    const columns = [0, 1, 0, 1, 0, 1, 0];
    for (const [i, column] of columns.entries()) {
      const [mover, waiter] = i % 2 === 0 ? [uma!.page, vic!.page] : [vic!.page, uma!.page];
      // Only the one to play has live buttons; the other's stay off.
      await until(`move ${i + 1}: the mover's turn`, async () =>
        (await cardText(mover)).startsWith("Your turn"),
      );
      expect(await waiter.locator("#dialog-game .game-drop:not([disabled])").count()).toBe(0);
      await mover.click(`#dialog-game .game-drop[data-column="${column}"]`);
      // The move shows on both cards, the waiter's too, without a click.
      for (const page of pages)
        await until(
          `move ${i + 1} on both cards`,
          async () =>
            (await page
              .locator('#dialog-game span[data-cell="R"], #dialog-game span[data-cell="Y"]')
              .count()) ===
            i + 1,
        );
    }
    for (const page of pages)
      await until("the win on both cards", async () =>
        (await cardText(page)).startsWith("Uma (R) won in 7 moves."),
      );
    expect(await uma!.page.locator('#dialog-game span[data-cell="R"]').count()).toBe(4);
    expect(await uma!.page.locator('#dialog-game span[data-cell="Y"]').count()).toBe(3);
    await shot(uma!.page, "people-game-won.png");
    expect(await ocw<{ state: Record<string, unknown> }>(uma!.page, `object("${TABLE}")`)).toMatchObject({
      state: { result: "R", moves: 7, redName: "Uma", yellowName: "Vic" },
    });

    // Both leave the table (a finished game: no one resigns); it is as new for whoever comes next.
    const tableOn = async (page: Page) =>
      (await ocw<{ state: Record<string, unknown> }>(page, `object("${TABLE}")`)).state;
    await uma!.page.click('#dialog-actions button[data-action="leave"]');
    await until("Uma has left the table", async () => (await tableOn(uma!.page)).red === "");
    expect(await tableOn(uma!.page)).toMatchObject({ yellowName: "Vic", result: "R" });
    await vic!.page.click('#dialog-actions button[data-action="leave"]');
    await until("the table as new", async () => {
      const t = await tableOn(vic!.page);
      return t.red === "" && t.yellow === "" && t.moves === 0 && t.result === "";
    });
    expect(await cardText(vic!.page)).toBe("Four-in-a-row for two: take a side.");

    // Vic reads the café's board (the page walks him over): the game is on it.
    await boardCardShows(vic!.page, PEOPLE_WIN);
    await shot(vic!.page, "people-game-board.png");
    expect(uma!.consoleErrors).toEqual([]);
    expect(vic!.consoleErrors).toEqual([]);
  });
});
