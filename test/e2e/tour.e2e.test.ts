// The Guide's tour (src/world/objects/tour.ts) in a real browser against the shared gateway: a newcomer
// near the Guide's board is told of the tour, starts it from the page's panel, walks through its five
// stops in three rooms (the portals carry her, the walks are the shortest the map allows), sees the
// panel count them and the Guide's congratulation, reloads the page and still sees the tour done.
// She leaves at the end; what the world keeps of her (the board's record, its counters) is hers alone.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { launchBrowser, ocw, openPlayer, shot } from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { gateway } from "./fixtures.ts";

const BOARD = "obj_guide_tour";

interface TourView {
  shown: boolean;
  text: string;
  line: string;
  button?: string;
  state?: string;
}

const tour = (page: Page) => ocw<TourView>(page, "tour()");
const roomOf = (page: Page) => ocw<string>(page, "roomId");
const walk = (page: Page, tx: number, ty: number) =>
  ocw(page, `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx, ty } } })})`);

/** Walks to a tile and waits for the panel to say `text`. */
async function stop(page: Page, tx: number, ty: number, text: string): Promise<void> {
  await walk(page, tx, ty);
  await until(`the panel: ${text}`, async () => (await tour(page)).text === text, 30_000);
}

/** Steps onto a portal and waits to be in `roomId`. */
async function through(page: Page, tx: number, ty: number, roomId: string): Promise<void> {
  await walk(page, tx, ty);
  await until(`in the ${roomId}`, async () => (await roomOf(page)) === roomId, 30_000);
}

let browser: Browser | undefined;

afterAll(async () => {
  // Closing the page lets her character go (the page says so as it closes).
  await browser?.close();
});

describe("the Guide's tour", () => {
  it("a newcomer is offered it, starts it from the panel, sees five stops counted and the congratulation, and after a reload still sees it done", async () => {
    browser = await launchBrowser();
    const { page } = await openPlayer(browser, gateway().baseUrl, `Tova${Date.now() % 100_000}`);
    const name = await ocw<string>(page, "name()");
    expect(await roomOf(page)).toBe("lobby");
    // The board stands in the lobby and offers both its actions on the page too.
    const board = await ocw<{ affords: { action: string }[] }>(page, `object(${JSON.stringify(BOARD)})`);
    expect(board.affords.map((a) => a.action)).toEqual(["read", "start"]);

    // Beside the board, two tiles west of the Guide: the world offers the tour, once, by itself.
    await walk(page, 18, 13);
    await until("the offer", async () =>
      (await tour(page)).line.startsWith("Guide: Welcome! I offer a short tour"),
    );
    expect(await tour(page)).toMatchObject({
      shown: true,
      text: "Tour: not started - 5 places to see",
      button: "Start the tour",
      state: "offered",
    });
    expect((await tour(page)).line).toBe(
      "Guide: Welcome! I offer a short tour of 5 places: the Fountain, the Town Hall, the Flower Bed, the Main Street and the Town Square. Start it at my tour board whenever you like.",
    );

    await page.click("#tour-start");
    await until("the tour under way", async () => (await tour(page)).state === "active");
    expect(await tour(page)).toMatchObject({ text: "Tour: 0 of 5 - next: the Fountain" });
    expect((await tour(page)).button).toBeUndefined();

    await stop(page, 21, 14, "Tour: 1 of 5 - next: the Town Hall");
    expect((await tour(page)).line).toBe("Guide: Fountain: 1 of 5 - next: the Town Hall.");
    await stop(page, 34, 9, "Tour: 2 of 5 - next: the Flower Bed");
    await through(page, 46, 16, "garden");
    await stop(page, 11, 18, "Tour: 3 of 5 - next: the Main Street");
    await through(page, 1, 16, "lobby");
    // The town's portal lands on its Main Street: the fourth stop on arrival.
    await through(page, 1, 16, "town");
    await until(
      "the fourth stop",
      async () => (await tour(page)).text === "Tour: 4 of 5 - next: the Town Square",
    );
    await stop(page, 36, 20, "Tour: done, all 5 places seen");

    const congratulation = `Guide: Well done, ${name}: you have seen all 5 places of the tour, the Fountain, the Town Hall, the Flower Bed, the Main Street and the Town Square. Congratulations, and welcome to the world!`;
    await until("the congratulation in the panel", async () => (await tour(page)).line === congratulation);
    expect(await tour(page)).toMatchObject({ state: "done", button: "Take the tour again" });
    const chat = await ocw<{ fromName: string; message: string }[]>(page, "chat()");
    expect(chat.some((m) => `${m.fromName}: ${m.message}` === congratulation)).toBe(true);
    await shot(page, "tour-done.png");

    // A reload resumes the same character: the world still has her tour done.
    const id = await ocw<string>(page, "entityId");
    await page.reload();
    await until("back online", async () => (await ocw<string>(page, "status")) === "online");
    expect(await ocw<string>(page, "entityId")).toBe(id);
    await until("the tour still done", async () => (await tour(page)).state === "done");
    expect(await tour(page)).toMatchObject({ shown: true, text: "Tour: done, all 5 places seen" });
    await shot(page, "tour-after-reload.png");
  });
});
