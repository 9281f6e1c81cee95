// The garden's plots (src/world/objects/garden-plot.ts) through the real gateway: a person in a real
// browser walks into the flower bed, opens the cress tray's card and plants it; an HTTP agent (AIC
// v0.1) waters it; with no one doing anything the plant grows on with simulation time, and the
// person's card and sprite show the next stage; a minute after the agent's watering, the gardener
// resident comes by and waters it on her own. The page shows the world's clock and its light, as
// the agent's heartbeat says them. At the end the person clears the plot (it is as it was) and the
// agent leaves.
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import {
  launchBrowser,
  mapBlocked,
  ocw,
  openPlayer,
  type SeenActor,
  settledPoint,
  shot,
  stillPicture,
  walkTo,
} from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { aicCall, E2E_GARDENER, gateway, leaveWorld } from "./fixtures.ts";

const AGENT = "agent_garden";
const ROOM = "garden";
/** The cress tray: it flowers in a minute (growSeconds 60), so it is growing 20 s after planting. */
const PLOT = "obj_plot_cress";
const PLOT_TILE = { tx: 14, ty: 24 };
/** Inside the fenced bed, each within reach (2 tiles) of the tray, and neither's name tag over it. */
const PERSON_SPOT = { tx: 15, ty: 23 };
const AGENT_SPOT = { tx: 14, ty: 26 };

let txn = 0;
const tx = (what: string) => `tx_garden_${what}_${Date.now()}_${txn++}`;
const call = (path: string, body: Record<string, unknown>) => aicCall(ROOM, path, AGENT, body);

/** The plot as the agent observes it (its state and what it affords). */
async function plot() {
  const seen = await call("observe", { radius: 160, detail: "full" });
  const found = seen.data?.nearby.find((n: { entity: { id: string } }) => n.entity.id === PLOT);
  if (!found) throw new Error(`the agent does not see the plot: ${JSON.stringify(seen)}`);
  return found as { object: { state: Record<string, unknown> }; affords: { action: string }[] };
}

const cardText = (page: Page) => page.locator("#dialog-text").textContent();
// Observe is limited to 2/s per agent (PRD 12): looked at a little slower, a refusal is "not yet".
const slowly = { everyMs: 700, ignoreErrors: true };

let browser: Browser | undefined;
let person: Page | undefined;

afterAll(async () => {
  // Whatever happened above, the tray is left empty: its planter clears it (a clear of an empty plot
  // is a no_effect, harmless).
  if (person) {
    await ocw(person, `send(${JSON.stringify({ type: "interact", targetId: PLOT, action: "clear" })})`);
    await until("the tray empty", async () => (await plot()).object.state.stage === "empty", slowly).catch(
      () => undefined,
    );
  }
  await browser?.close();
  await leaveWorld(AGENT, ROOM).catch(() => undefined);
});

describe("the garden's plots", () => {
  it("a person plants the cress tray from its card, an agent waters it over HTTP, and it grows on by itself", async () => {
    const base = gateway().baseUrl;
    const gardenBlocked = await mapBlocked(base, ROOM);
    browser = await launchBrowser();
    const { page } = await openPlayer(browser, base, "Rosa");
    person = page;
    // Onto the lobby's east portal: it carries her to the garden.
    await ocw(
      page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 46, ty: 16 } } })})`,
    );
    await until("Rosa in the garden", async () => (await ocw<string>(page, "roomId")) === ROOM, 60_000);
    await walkTo(page, PERSON_SPOT.tx, PERSON_SPOT.ty, gardenBlocked);

    // The agent joins the garden and walks into the bed too.
    expect((await call("join", {})).status).toBe("ok");
    expect((await call("moveTo", { txId: tx("walk"), dest: AGENT_SPOT })).status).toBe("ok");
    await until(
      "the agent beside the tray",
      async () => {
        const self = (await call("observe", { radius: 1, detail: "lite" })).data?.self;
        return self?.tile.tx === AGENT_SPOT.tx && self.tile.ty === AGENT_SPOT.ty && self.speed === 0;
      },
      { timeoutMs: 90_000, ...slowly },
    );
    const fresh = await plot();
    expect(fresh.object.state).toMatchObject({ stage: "empty", planter: "", growSeconds: 60 });
    expect(fresh.affords.map((a) => a.action)).toEqual(["read", "plant"]);

    // Her click opens the tray's card; she plants from it.
    const tray = await settledPoint(page, PLOT_TILE.tx, PLOT_TILE.ty);
    await page.mouse.click(tray.x, tray.y);
    await page.waitForSelector('#dialog:not([hidden])[data-kind="garden_plot"]', { timeout: 30_000 });
    expect(await page.locator("#dialog-title").textContent()).toBe("Garden plot: cress");
    expect(await cardText(page)).toBe("An empty plot. Plant something!");
    await page.click('#dialog-actions button[data-action="plant"]');
    await until("her seedling on the card", async () =>
      (await cardText(page))?.startsWith("A seedling, planted by Rosa;"),
    );
    expect(await ocw(page, `object(${JSON.stringify(PLOT)}).state.stage`)).toBe("seedling");

    // The agent sees whose it is and waters it over HTTP.
    const planted = await until(
      "the agent sees the seedling",
      async () => {
        const p = await plot();
        return p.object.state.stage === "seedling" && p;
      },
      slowly,
    );
    expect(planted.object.state).toMatchObject({ planterName: "Rosa", wilted: false });
    expect(planted.affords.map((a) => a.action)).toEqual(["read", "water", "clear"]);
    const watered = await call("interact", { txId: tx("water"), targetId: PLOT, action: "water" });
    expect(checkResponse("InteractResponseData", watered), JSON.stringify(watered)).toEqual([]);
    expect(watered.data.outcome.type).toBe("ok");
    expect(watered.data.outcome.message).toMatch(/^You water the plot\. A seedling, planted by Rosa;/);
    const wateredAt = Number((await plot()).object.state.wateredMs);
    // Not hers to clear: the planter clears a healthy plant.
    const notHis = await call("interact", { txId: tx("clear"), targetId: PLOT, action: "clear" });
    expect(notHis.data.outcome).toEqual({
      type: "no_effect",
      message: "Rosa planted this; anyone may clear it once it flowers or wilts.",
    });

    // Nobody does anything: a third of a minute of simulation time later it is growing, on her card
    // and in the sprite the scene draws.
    await until(
      "the cress growing on her card",
      async () => (await cardText(page))?.startsWith("A growing plant, planted by Rosa;"),
      { timeoutMs: 60_000 },
    );
    expect(await ocw(page, `object(${JSON.stringify(PLOT)}).state.stage`)).toBe("growing");
    await stillPicture(page);
    await shot(page, "garden-growing.png");
    await until(
      "the agent sees it growing",
      async () => (await plot()).object.state.stage === "growing",
      slowly,
    );

    // Half its thirst (a minute) after the agent watered it, the gardener comes to the tray and waters
    // it on her own (no model asked: she tends the plots, E2E_GARDENER), then goes back to her stop
    // (at once when nobody is near her: Rosa's page is watched closely, so it sees her there).
    const fern = await until(
      "Fern at the tray on Rosa's page",
      async () => {
        const seen = (await ocw<SeenActor[]>(page, "entities()")).find((e) => e.id === E2E_GARDENER.entityId);
        return seen && Math.hypot(seen.tx - PLOT_TILE.tx, seen.ty - PLOT_TILE.ty) <= 2 && seen;
      },
      { timeoutMs: 120_000, everyMs: 100 },
    );
    expect(fern).toMatchObject({ name: "Fern", kind: "agent" });
    await shot(page, "garden-gardener.png");
    const byFern = await until(
      "Fern waters the cress",
      async () => {
        const p = await plot();
        return Number(p.object.state.wateredMs) > wateredAt && p;
      },
      { timeoutMs: 30_000, ...slowly },
    );
    // A minute on, it may have flowered meanwhile (growSeconds 60).
    expect(byFern.object.state).toMatchObject({ wilted: false, planterName: "Rosa" });

    // She clears it: the tray is as it was.
    await page.click('#dialog-actions button[data-action="clear"]');
    await until("the tray empty", async () => (await plot()).object.state.stage === "empty", slowly);
    expect((await plot()).object.state).toEqual(fresh.object.state);
  });

  it("the page shows the world's clock and its light as the agent's heartbeat tells them", async () => {
    const page = person!;
    const beat = await call("heartbeat", {});
    expect(beat.status, JSON.stringify(beat)).toBe("ok");
    const { part, clock } = beat.data.timeOfDay as { part: string; clock: string };
    expect(["morning", "day", "evening", "night"]).toContain(part);
    expect(clock).toMatch(/^\d\d:\d\d$/);
    // The page's own reading of the same simulation time: the same part of the day (a minute may
    // turn between the two looks, a part of the day only at its hour).
    const shown = await until("the clock shown", async () => {
      const d = await ocw<{ clock?: string; part?: string; alpha: number }>(page, "daylight()");
      return d.clock !== undefined && d;
    });
    expect(shown.part).toBe(part);
    expect(shown.clock).toMatch(/^\S+ \d\d:\d\d$/);
    if (part === "night") expect(shown.alpha).toBeGreaterThan(0.3);
    if (part === "day") expect(shown.alpha).toBe(0);
  });
});
