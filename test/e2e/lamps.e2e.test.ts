// The lamps of the bundled world (web/client/lamps.ts) in a real browser on the real gateway: a
// person in the lobby's plaza sees its lamp posts, out by day and lit at night, by the part of the
// day the page's tint is drawn from. The e2e world starts at the bundled epoch's 08:00 and its clock
// runs at the wall's pace, so the test brings the night to the page the way a welcome would: it
// tells the page the world's time (`__ocw.hearWorldTime`), the next night and then the next noon.
// Then in the town at night: the lamps of its closed café and library stay out.
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { timeOfDay } from "../../src/world/time.ts";
import { type LampMapData, lampTilesOf } from "../../web/client/lamps.ts";
import { launchBrowser, ocw, openPlayer, shot, stillPicture } from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { gateway } from "./fixtures.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Daylight {
  clock?: string;
  part?: string;
  worldMs?: number;
  alpha: number;
}
interface Lamps {
  count: number;
  lit: boolean;
  shining: number;
  closed: string[];
}

let browser: Browser | undefined;
afterAll(async () => browser?.close());

describe("the lamps", () => {
  it("are out by day and lit at night, with the page's night tint", async () => {
    const base = gateway().baseUrl;
    const map = (await (await fetch(`${base}/world/maps/lobby.json`)).json()) as LampMapData;
    const posts = lampTilesOf(map);
    expect(posts.length).toBeGreaterThan(0);
    browser = await launchBrowser();
    const { page, consoleErrors } = await openPlayer(browser, base, "Lumi");
    expect(await ocw<string>(page, "roomId")).toBe("lobby");

    // As the world's clock has it now (whatever part of the day that is).
    const now = await until("the clock shown", async () => {
      const d = await ocw<Daylight>(page, "daylight()");
      return d.clock !== undefined && d.worldMs !== undefined && d;
    });
    const lampsNow = await ocw<Lamps>(page, "lamps()");
    const nightNow = timeOfDay(now.worldMs!).part === "night";
    expect(lampsNow).toEqual({
      count: posts.length,
      lit: nightNow,
      shining: nightNow ? posts.length : 0,
      closed: [],
    });

    // The next 22:00 of the world's clock: night, the lamps lit.
    const midnight = Math.floor(now.worldMs! / DAY) * DAY;
    const night = midnight + 22 * HOUR + (now.worldMs! >= midnight + 22 * HOUR ? DAY : 0);
    await ocw(page, `hearWorldTime(${night})`);
    const dark = await until("night on the page", async () => {
      const d = await ocw<Daylight>(page, "daylight()");
      return d.part === "night" && d;
    });
    expect(dark.clock).toMatch(/^night 22:0\d$/);
    expect(dark.alpha).toBeGreaterThan(0.3);
    expect(await ocw<Lamps>(page, "lamps()")).toEqual({
      count: posts.length,
      lit: true,
      shining: posts.length,
      closed: [],
    });
    await stillPicture(page);
    await shot(page, "lamps-night.png");

    // The next noon: day, no tint and the lamps out again.
    await ocw(page, `hearWorldTime(${midnight + DAY + 12 * HOUR})`);
    const day = await until("day on the page", async () => {
      const d = await ocw<Daylight>(page, "daylight()");
      return d.part === "day" && d;
    });
    expect(day.alpha).toBe(0);
    expect(await ocw<Lamps>(page, "lamps()")).toEqual({
      count: posts.length,
      lit: false,
      shining: 0,
      closed: [],
    });

    // Through the west portal to the town, and night again: the street's lamps shine, those of the
    // café (open 07:00-19:00) and the library (08:00-20:00) stay out with their places closed.
    await ocw(
      page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 1, ty: 16 } } })})`,
    );
    await until("Lumi in the town", async () => (await ocw<string>(page, "roomId")) === "town", 60_000);
    const townPosts = lampTilesOf(
      (await (await fetch(`${base}/world/maps/town.json`)).json()) as LampMapData,
    ).length;
    await ocw(page, `hearWorldTime(${night + DAY})`);
    const town = await until("the town's lamps at night", async () => {
      const lamps = await ocw<Lamps>(page, "lamps()");
      return lamps.count === townPosts && lamps.lit && lamps;
    });
    expect(town.closed).toEqual(expect.arrayContaining(["15,10", "51,11"]));
    expect(town.shining).toBe(townPosts - town.closed.length);
    expect(town.shining).toBeGreaterThan(0);
    await stillPicture(page);
    await shot(page, "lamps-town-night.png");
    expect(consoleErrors).toEqual([]);
    await page.close();
  });
});
