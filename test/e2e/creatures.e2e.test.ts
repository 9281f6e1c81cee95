// The lobby's cat (src/world/objects/creature.ts, cat.ts) through the real gateway: a person in a
// real browser sees Mochi in the reading corner, comes near, and the cat follows her as she walks on;
// hovering it names it and says what it does; an HTTP agent (AIC v0.1) observing from the plaza sees
// it as an object in words. The cat loses interest once she has gone (it naps), so the world is left
// as the cat would have it anyway; the agent leaves. Then a second person crosses to the garden and
// sees its fish on the page, each in the pond's water, named in words on hover.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import {
  drawnFrames,
  launchBrowser,
  mapBlocked,
  mapPoint,
  mapWater,
  me,
  ocw,
  openPlayer,
  settledPoint,
  shot,
  walkTo,
} from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { aicCall, gateway, leaveWorld } from "./fixtures.ts";

const AGENT = "agent_cat";
const CAT = "obj_mochi";
/** The reading corner, the region the cat never leaves (inclusive tiles). */
const CORNER = { x0: 2, y0: 23, x1: 11, y1: 30 };

interface SeenObject {
  tx: number;
  ty: number;
  state: Record<string, unknown>;
}

/** The garden pond's fish, and a tile of its bridge, within their notice (src/world/objects/fish.ts). */
const FISH = ["obj_fish_pond_1", "obj_fish_pond_2", "obj_fish_pond_3"];
const ON_BRIDGE = { tx: 32, ty: 8 };

const catOnPage = (page: Page) => ocw<SeenObject>(page, `object(${JSON.stringify(CAT)})`);
const gap = (a: { tx: number; ty: number }, b: { tx: number; ty: number }) =>
  Math.max(Math.abs(a.tx - b.tx), Math.abs(a.ty - b.ty));
// Observe is limited to 2/s per agent (PRD 12): looked at a little slower, a refusal is "not yet".
const slowly = { everyMs: 700, ignoreErrors: true };

/** A free tile of the corner, a few steps from `from`, with itself and its eight neighbours on the map
 * the page shows (the camera is held at the map's edges there, so where they show does not move as
 * she walks within it). */
async function shownSpotInCorner(
  page: Page,
  from: { tx: number; ty: number },
  blocked: (tx: number, ty: number) => boolean,
): Promise<{ tx: number; ty: number }> {
  const shows = (tx: number, ty: number) =>
    mapPoint(page, tx, ty).then(
      () => true,
      () => false,
    );
  for (let tx = CORNER.x1; tx >= CORNER.x0; tx--)
    for (let ty = CORNER.y0; ty <= CORNER.y1; ty++) {
      if (blocked(tx, ty) || gap({ tx, ty }, from) < 3) continue;
      let all = true;
      for (let dx = -1; dx <= 1 && all; dx++)
        for (let dy = -1; dy <= 1 && all; dy++) all = await shows(tx + dx, ty + dy);
      if (all) return { tx, ty };
    }
  throw new Error(`no tile of the reading corner a few steps from (${from.tx}, ${from.ty}) shows whole`);
}

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await leaveWorld(AGENT).catch(() => undefined);
});

describe("the lobby's cat", () => {
  it("a person comes near Mochi and it follows her; hovering names it; an agent observes it in words", async () => {
    const base = gateway().baseUrl;
    const blocked = await mapBlocked(base, "lobby");
    browser = await launchBrowser();
    const { page } = await openPlayer(browser, base, "Nell");
    const seen = await catOnPage(page);
    expect(seen.state).toMatchObject({ species: "cat", called: "Mochi the cat" });

    // Into the middle of the corner, then up to the cat (the world picks the tile beside it, and
    // again should it have wandered off meanwhile): it notices her and follows.
    await walkTo(page, 7, 27, blocked);
    const self = await me(page);
    let asked = 0;
    await until(
      "Mochi following Nell",
      async () => {
        if ((await catOnPage(page)).state.with === self.id) return true;
        await ocw(
          page,
          `send(${JSON.stringify({ type: "approach", targetId: CAT, txId: `tx_cat_${asked++}_${Date.now()}` })})`,
        );
        return false;
      },
      { timeoutMs: 40_000, everyMs: 1500 },
    );
    expect((await catOnPage(page)).state.doing).toBe("following Nell");

    // She walks on across the corner; the cat comes along and sits beside her. The corner is the map's
    // bottom-left, part of which the chat panel covers: she stops where every tile beside her shows, so
    // the cat can be hovered wherever it sits.
    const here = await me(page);
    const dest = await shownSpotInCorner(page, here, blocked);
    await walkTo(page, dest.tx, dest.ty, blocked);
    const beside = await until("Mochi beside Nell", async () => {
      const cat = await catOnPage(page);
      return cat.state.with === self.id && gap(cat, dest) <= 1 && cat;
    });
    expect(gap(beside, dest)).toBeGreaterThan(0); // beside her, never on her tile

    // Hovering it names it and says what it does. A cat beside someone still shifts a tile now and
    // then: the pointer goes where the cat is drawn at each look.
    await settledPoint(page, beside.tx, beside.ty);
    let hovered: unknown;
    await until(
      "the hover names the cat",
      async () => {
        const cat = await catOnPage(page);
        const point = await mapPoint(page, cat.tx, cat.ty);
        await page.mouse.move(point.x, point.y);
        await drawnFrames(page, 2);
        const hover = await ocw<{ id?: string; label?: string }>(page, "hover()");
        hovered = { cat: [cat.tx, cat.ty], hover };
        return hover.id === CAT && hover.label === "Mochi the cat, following Nell";
      },
      { timeoutMs: 20_000, everyMs: 200, ignoreErrors: true },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; ${JSON.stringify(hovered)}`);
    });
    await shot(page, "creatures-cat-follows.png");

    // An agent in the plaza observes the corner: the cat is an object there, in words, where it is.
    expect((await aicCall("lobby", "join", AGENT, {})).status).toBe("ok");
    const observed = await until(
      "the agent sees Mochi",
      async () => {
        const answer = await aicCall("lobby", "observe", AGENT, { radius: 1500, detail: "full" });
        const found = answer.data?.nearby.find((n: { entity: { id: string } }) => n.entity.id === CAT);
        return found && { answer, found };
      },
      slowly,
    );
    expect(checkResponse("ObserveResponseData", observed.answer), JSON.stringify(observed.answer)).toEqual(
      [],
    );
    expect(observed.found.entity).toMatchObject({
      kind: "object",
      name: "mochi",
      meta: { objectType: "creature" },
    });
    expect(observed.found.object.state).toMatchObject({ called: "Mochi the cat", doing: "following Nell" });
    expect(gap(observed.found.entity.tile, dest)).toBeLessThanOrEqual(1);
  });

  it("the garden's fish are on the page, each in the pond's water, and named on hover", async () => {
    const base = gateway().baseUrl;
    const [blocked, water] = await Promise.all([mapBlocked(base, "garden"), mapWater(base, "garden")]);
    browser ??= await launchBrowser();
    const { page } = await openPlayer(browser, base, "Finn");
    // Onto the lobby's east portal: it carries him to the garden; then onto the bridge.
    await ocw(
      page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 46, ty: 16 } } })})`,
    );
    await until("Finn in the garden", async () => (await ocw<string>(page, "roomId")) === "garden", 60_000);
    await walkTo(page, ON_BRIDGE.tx, ON_BRIDGE.ty, blocked);
    const fish = await until("the fish on the page", async () => {
      const seen = await Promise.all(
        FISH.map((id) => ocw<SeenObject | null>(page, `object(${JSON.stringify(id)}) ?? null`)),
      );
      return seen.every((f) => f !== null) && (seen as SeenObject[]);
    });
    for (const f of fish) {
      expect(f.state).toMatchObject({ species: "fish", called: "a fish" });
      expect(water(f.tx, f.ty), `a fish at (${f.tx}, ${f.ty})`).toBe(true);
    }
    // One near the bridge, hovered: named in words, as the cat is.
    const near = await until(
      "a fish drawn near Finn",
      async () => {
        const seen = await Promise.all(
          FISH.map((id) => ocw<SeenObject>(page, `object(${JSON.stringify(id)})`)),
        );
        return seen.find((f) => f.state.mode === "gather" && gap(f, ON_BRIDGE) <= 1);
      },
      { timeoutMs: 30_000, everyMs: 500 },
    );
    expect(water(near.tx, near.ty)).toBe(true);
    const point = await settledPoint(page, near.tx, near.ty);
    await page.mouse.move(point.x, point.y);
    await until("the hover names a fish", async () => {
      const hover = await ocw<{ id?: string; label?: string }>(page, "hover()");
      return (
        FISH.includes(String(hover.id)) &&
        /^A fish, (gathering by Finn|swimming about)$/.test(String(hover.label))
      );
    });
    await shot(page, "creatures-fish.png");
  });
});
