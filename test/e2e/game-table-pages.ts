// A person at the town café's game table in a real browser, as the game-table and resident-game e2e
// files play it: carried to the town, the table's card opened by a click, its words read, and the
// café's notice board card read for a finished game.
import type { Browser, Page } from "playwright-core";
import {
  mapBlocked,
  ocw,
  openPlayer,
  settledPoint,
  until,
  type WatchedPage,
  walkTo,
} from "../support/browser.ts";
import { gateway } from "./fixtures.ts";

/** The café's game table and notice board tiles on the town's map. */
const TABLE_TILE = { tx: 6, ty: 9 };
const BOARD_TILE = { tx: 12, ty: 4 };

/** A person's page, carried from the lobby to the town by its west portal and walked (by the server,
 * like a click) to `spot` beside the table. */
export async function personAtTable(
  browser: Browser,
  name: string,
  spot: { tx: number; ty: number },
): Promise<WatchedPage> {
  const base = gateway().baseUrl;
  const player = await openPlayer(browser, base, name);
  await ocw(
    player.page,
    `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 1, ty: 16 } } })})`,
  );
  await until(
    `${name} in the town`,
    async () => (await ocw<string>(player.page, "roomId")) === "town",
    60_000,
  );
  await walkTo(player.page, spot.tx, spot.ty, await mapBlocked(base, "town"));
  return player;
}

/** Opens the table's card on a page by clicking the table. */
export async function openTableCard(page: Page) {
  const at = await settledPoint(page, TABLE_TILE.tx, TABLE_TILE.ty);
  await page.mouse.click(at.x, at.y);
  await page.waitForSelector('#dialog:not([hidden])[data-kind="game_table"]', { timeout: 30_000 });
}

export const cardText = async (page: Page) =>
  ((await page.locator("#dialog-text").textContent()) ?? "").replace(/[\u2066-\u2069]/g, "");

/** Closes whatever card is open, clicks the café's notice board (the page walks over, then reads) and
 * waits for `note` among the notes its card lists. */
export async function boardCardShows(page: Page, note: string): Promise<void> {
  if (await page.locator("#dialog:not([hidden])").count()) await page.click("#dialog-close");
  const board = await settledPoint(page, BOARD_TILE.tx, BOARD_TILE.ty);
  await page.mouse.click(board.x, board.y);
  await page.waitForSelector('#dialog:not([hidden])[data-kind="notice_board"]', { timeout: 30_000 });
  await until("the result on the board's card", async () =>
    (await page.locator("#dialog-notes li .text").allTextContents()).includes(note),
  );
}
