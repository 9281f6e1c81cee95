// A resident plays a game (four-in-a-row at the town café's table) through the gateway's own agent
// loop with the scripted model: asked by name, Wren joins the table; then the table, waiting for her
// move, wakes her each time her opponent (an HTTP agent) has played, her prompt showing the board,
// and she plays. The game is played to a win and the café's board gets the result. Then, asked, she
// leaves the table. Then a person in a real browser does the same from the page alone: she takes a
// side and asks Wren in the chat box, plays with the drop buttons of the table's card while Wren plays
// in her own turns (woken by the table for her move), wins, reads the result on the café board's
// card, and asks Wren to leave. The table is as new for the next file.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { launchBrowser, ocw, shot } from "../support/browser.ts";
import { scriptedModelClient } from "../support/scripted-model.ts";
import { until } from "../support/wait.ts";
import { aicCall, boardNotes, E2E_PLAYER, gateway, leaveWorld, removeNotes } from "./fixtures.ts";
import { boardCardShows, cardText, openTableCard, personAtTable } from "./game-table-pages.ts";

const P = "agent_wren_p";
const ROOM = "town";
const TABLE = "obj_cafe_game_table";
const BOARD = "obj_board_cafe";
/** Beside the table (6, 9), across it from Wren's chair. */
const SPOT = { tx: 6, ty: 10 };
/** A turn through the real agent loop on a busy 2-core machine: seconds, now and then a minute. */
const TURN_MS = 120_000;
const WIN = "Pia Player beat Wren at four-in-a-row in 7 moves";

const model = () => scriptedModelClient(gateway().modelOrigin);
const call = (path: string, body: Record<string, unknown>) => aicCall(ROOM, path, P, body);
let txn = 0;
const tx = (what: string) => `tx_wren_${what}_${Date.now()}_${txn++}`;
/** Wren's next turns: one table action, then a line. */
const wrenWill = (action: string, params?: Record<string, unknown>) =>
  model().define("wren-game", [
    {
      toolCalls: [
        { name: "ocw_interact", arguments: { targetId: TABLE, action, ...(params ? { params } : {}) } },
      ],
    },
    { text: "ok" },
  ]);

async function table(): Promise<Record<string, unknown>> {
  const seen = await call("observe", { radius: 128, detail: "full" });
  const found = seen.data?.nearby.find((n: { entity: { id: string } }) => n.entity.id === TABLE);
  if (!found) throw new Error(`the table is not in sight: ${JSON.stringify(seen)}`);
  return found.object.state as Record<string, unknown>;
}
const tableWhen = (what: string, ok: (s: Record<string, unknown>) => boolean) =>
  until(
    what,
    async () => {
      const s = await table();
      return ok(s) ? s : undefined;
    },
    { timeoutMs: TURN_MS, everyMs: 700, ignoreErrors: true },
  );

afterAll(async () => {
  // Whatever happened below, the table is left as new and the result taken down.
  await call("interact", { txId: tx("cleanup"), targetId: TABLE, action: "leave" }).catch(() => undefined);
  await removeNotes(BOARD, (n) => n.text === WIN);
  await leaveWorld(P, ROOM);
});

describe("a resident plays a game", () => {
  it("asked by name, Wren joins the table; woken for each of her moves, she plays it; the game ends in a win on the board", {
    timeout: 5 * TURN_MS,
  }, async () => {
    expect((await call("join", {})).status).toBe("ok");
    expect((await call("moveTo", { txId: tx("walk"), dest: SPOT })).status).toBe("ok");
    await until(
      "beside the table",
      async () => {
        const self = (await call("observe", { radius: 1, detail: "lite" })).data?.self;
        return self?.tile.tx === SPOT.tx && self.tile.ty === SPOT.ty && self.speed === 0;
      },
      { timeoutMs: 90_000, everyMs: 700, ignoreErrors: true },
    );
    const play = async (column: number) => {
      const answer = await call("interact", {
        txId: tx("play"),
        targetId: TABLE,
        action: "play",
        params: { column },
      });
      expect(answer.data?.outcome?.type, JSON.stringify(answer)).toBe("ok");
    };

    const joined = await call("interact", { txId: tx("join"), targetId: TABLE, action: "join" });
    expect(joined.data?.outcome?.message).toMatch(/^You take side R\./);
    await wrenWill("join");
    await call("chatSend", { txId: tx("ask"), channel: "proximity", message: "Wren, a game?" });
    await tableWhen("Wren takes side Y", (s) => s.yellow === E2E_PLAYER.entityId);

    await wrenWill("play", { column: 6 });
    for (let move = 1; move <= 3; move++) {
      await play(0);
      await tableWhen(`Wren's move ${move}`, (s) => s.moves === 2 * move);
    }
    await play(0);
    expect(await table()).toMatchObject({ result: "R", moves: 7, yellow: E2E_PLAYER.entityId });

    // What woke her: the table waiting for her move, the board in her prompt.
    const asked = (await model().requests("wren-game")).map((r) => JSON.stringify(r.body.messages));
    expect(asked.some((m) => m.includes("it is your move (four-in-a-row, Pia Player (R"))).toBe(true);
    expect((await boardNotes(BOARD)).notes.map((n) => n.text)).toContain(WIN);
  });

  it("asked to, she leaves the table: it is as new for whoever comes next", {
    timeout: 2 * TURN_MS,
  }, async () => {
    await call("interact", { txId: tx("leave"), targetId: TABLE, action: "leave" });
    await wrenWill("leave");
    await call("chatSend", {
      txId: tx("bye"),
      channel: "proximity",
      message: "Wren, thank you for the game",
    });
    expect(await tableWhen("Wren has left the table", (s) => s.yellow === "" && s.red === "")).toMatchObject({
      moves: 0,
      result: "",
    });
  });
});

describe("a person in a browser plays the resident", () => {
  const PERSON_WIN = "Noor beat Wren at four-in-a-row in 7 moves";
  let browser: Browser | undefined;
  let page: Page | undefined;
  afterAll(async () => {
    // Whatever happened below, her side is given up, Wren (still seated) is asked to leave by Pia
    // (still in the world, beside the table), and the result is taken down: the table is as new.
    const leave = page?.locator(
      '#dialog[data-kind="game_table"] #dialog-actions button[data-action="leave"]',
    );
    if (leave && (await leave.count().catch(() => 0))) await leave.click().catch(() => undefined);
    if ((await table().catch(() => ({ yellow: "" }))).yellow === E2E_PLAYER.entityId) {
      await wrenWill("leave");
      await call("chatSend", { txId: tx("bye"), channel: "proximity", message: "Wren, the game is over" });
      await tableWhen("Wren has left the table", (s) => s.yellow === "").catch(() => undefined);
    }
    await browser?.close();
    await removeNotes(BOARD, (n) => n.text === PERSON_WIN);
  });

  it("she takes a side and asks Wren in the chat box; her moves are the card's drop buttons, Wren's her own turns; she wins and the board's card shows it", {
    timeout: 6 * TURN_MS,
  }, async () => {
    browser = await launchBrowser();
    const noor = await personAtTable(browser, "Noor", { tx: 7, ty: 10 });
    page = noor.page;
    await openTableCard(page);
    await page.click('#dialog-actions button[data-action="join"]');
    await until("Noor is R", async () =>
      (await cardText(page!)).includes("waits for an opponent. You are R."),
    );
    await wrenWill("join");
    await page.fill("#chat-input", "Wren, a game?");
    await page.press("#chat-input", "Enter");
    await until(
      "Wren takes side Y on Noor's card",
      async () => (await cardText(page!)).startsWith("Your turn"),
      {
        timeoutMs: TURN_MS,
      },
    );

    await wrenWill("play", { column: 6 });
    const pieces = (side: "R" | "Y") => page!.locator(`#dialog-game span[data-cell="${side}"]`).count();
    for (let move = 1; move <= 4; move++) {
      await page.click('#dialog-game .game-drop[data-column="0"]');
      if (move === 4) break;
      // Her turn is over: no button is live until Wren has played in her own turn.
      await until(`Noor's move ${move} on her card`, async () => (await pieces("R")) === move);
      expect(await page.locator("#dialog-game .game-drop:not([disabled])").count()).toBe(0);
      await until(`Wren's move ${move} on Noor's card`, async () => (await pieces("Y")) === move, {
        timeoutMs: TURN_MS,
      });
    }
    await until("the win on her card", async () =>
      (await cardText(page!)).startsWith("Noor (R) won in 7 moves."),
    );
    expect(await ocw<{ state: Record<string, unknown> }>(page, `object("${TABLE}")`)).toMatchObject({
      state: { result: "R", moves: 7, yellow: E2E_PLAYER.entityId, yellowName: "Wren", redName: "Noor" },
    });
    await shot(page, "resident-game-won.png");
    // Wren played in turns the table woke her for, her prompt naming Noor's move and the board.
    const asked = (await model().requests("wren-game")).map((r) => JSON.stringify(r.body.messages));
    expect(
      asked.some((m) => m.includes("moved at") && m.includes("it is your move (four-in-a-row, Noor (R")),
    ).toBe(true);

    // Noor gives up her side (the game is over: no resignation) and asks Wren to go too.
    await page.click('#dialog-actions button[data-action="leave"]');
    await until(
      "Noor has left the table",
      async () =>
        (await ocw<{ state: Record<string, unknown> }>(page!, `object("${TABLE}")`)).state.red === "",
    );
    await wrenWill("leave");
    await page.fill("#chat-input", "Wren, thank you for the game");
    await page.press("#chat-input", "Enter");
    await until(
      "Wren has left the table",
      async () => (await cardText(page!)) === "Four-in-a-row for two: take a side.",
      {
        timeoutMs: TURN_MS,
      },
    );
    expect(await ocw<{ state: Record<string, unknown> }>(page, `object("${TABLE}")`)).toMatchObject({
      state: { red: "", yellow: "", moves: 0, result: "" },
    });

    await boardCardShows(page, PERSON_WIN);
    expect(noor.consoleErrors).toEqual([]);
  });
});
