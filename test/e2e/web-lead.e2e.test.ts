// Issue #51 in a real browser against the real gateway: a person asks the Guide (a resident on the
// scripted model) to take them to the café, in the town through the lobby's west portal, and walks
// slowly: a step only once the Guide has stopped to wait. The Guide leads with ocw_lead (the world's
// lead, src/world/leading.ts): it says it waits, holds still while the person stays behind, waits
// beside the portal until they are near, goes through, waits for them on the other side, and arrives
// at the café with them. There, a click on the Guide offers "talk to": the person walks up beside it
// and the chat box is addressed to it. Then the person leaves and the Guide walks home by itself (its
// routine), so the lobby is as this file found it.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../../web/client/bidi.ts";
import {
  launchBrowser,
  mapBlocked,
  mapPoint,
  me,
  ocw,
  openPlayer,
  overlap,
  type ScreenRect as Rect,
  type SeenActor,
  until,
  type WatchedPage,
} from "../support/browser.ts";
import { scriptedModelClient } from "../support/scripted-model.ts";
import { holdsFor } from "../support/wait.ts";
import { E2E_TOWNSFOLK, gateway } from "./fixtures.ts";
import { betweenTurns, call } from "./resident-calls.ts";

const { guide } = E2E_TOWNSFOLK;
const HOME = guide.config.home;
/** The lobby's portal to the town, and the café in the town (its place tile). */
const TO_TOWN = { tx: 1, ty: 16 };
const CAFE = { tx: 10, ty: 7 };
/** A resident's turn through the real agent loop on a busy 2-core machine. */
const TURN_MS = 120_000;
const NAME = `Slowpoke ${Date.now().toString(36).slice(-4)}`;
const SCENARIO = `wl-${Date.now().toString(36)}`;

let browser: Browser;
let walker: WatchedPage | undefined;

type Tile = { tx: number; ty: number };
const apart = (a: Tile, b: Tile) => Math.max(Math.abs(a.tx - b.tx), Math.abs(a.ty - b.ty));
const seen = (page: Page) => ocw<SeenActor[]>(page, "entities()");
const guideSeen = async (page: Page) => (await seen(page)).find((e) => e.id === guide.entityId);
const heard = async (page: Page, line: string) =>
  (await ocw<{ from: string; message: string }[]>(page, "chat()")).some(
    (m) => m.from === guide.entityId && m.message === line,
  );
/** The person walks (as a click does) and the test waits until they stand there. */
async function step(page: Page, to: Tile): Promise<void> {
  await ocw(page, `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: to } })})`);
  await until(
    `the person at (${to.tx}, ${to.ty})`,
    async () => {
      const m = await me(page);
      return m?.tx === to.tx && m.ty === to.ty;
    },
    40_000,
  );
}

/** Where the Guide stands in the lobby, as the watcher (an HTTP agent there) observes it. */
async function guideInLobby(): Promise<Tile | undefined> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/observe`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents.agent_lead!.token}` },
    body: JSON.stringify({ agentId: "agent_lead", roomId: "lobby", radius: 2000, detail: "lite" }),
  });
  const json = (await res.json()) as {
    status: string;
    data?: { nearby: { entity: { id: string; tile: Tile } }[] };
  };
  return json.data?.nearby.find((n) => n.entity.id === guide.entityId)?.entity.tile;
}
const atHome = async () => {
  const t = await guideInLobby();
  return t !== undefined && t.tx === HOME.tx && t.ty === HOME.ty;
};

beforeAll(async () => {
  browser = await launchBrowser();
  await call("agent_lead", "join", {});
  // Another file may have sent the Guide off: it walks home by itself (returnHomeAfterSec).
  await until("the Guide at home", atHome, 120_000);
  await betweenTurns(guide.agentId);
});

afterAll(async () => {
  await walker?.page.context().close();
  // Alone, the Guide walks home through the portal (its routine); the lobby is left as found.
  await until("the Guide home again", atHome, 120_000).catch(() => undefined);
  await call("agent_lead", "leave", {}).catch(() => undefined);
  await browser?.close();
});

describe("walking with a person who walks slowly (#51)", () => {
  it("the Guide waits for them, beside the portal too, and arrives at the café with them", async () => {
    const base = gateway().baseUrl;
    walker = await openPlayer(browser, base, NAME);
    const page = walker.page;
    const personId = await ocw<string>(page, "entityId");
    await scriptedModelClient(gateway().modelOrigin).define(SCENARIO, [
      {
        toolCalls: [
          {
            name: "ocw_chat_send",
            arguments: { message: "The café is in the town: come along, I'll show you the way!" },
          },
          { name: "ocw_lead", arguments: { dest: TO_TOWN, with: personId } },
        ],
      },
      { text: "done" },
      // Woken on the other side of the portal: on to the café, with the same person.
      { toolCalls: [{ name: "ocw_lead", arguments: { dest: CAFE, with: personId } }] },
      { text: "done" },
    ]);
    // Five tiles east of the Guide: further than it walks ahead of someone (4), within its hearing.
    const start = { tx: HOME.tx + 5, ty: HOME.ty };
    await step(page, start);
    await ocw(
      page,
      `send(${JSON.stringify({ type: "chat_send", channel: "proximity", message: `Guide, take me to the café ocw-scenario:${SCENARIO}` })})`,
    );
    await until(
      "the Guide's answer",
      () => heard(page, "The café is in the town: come along, I'll show you the way!"),
      TURN_MS,
    );
    // The person stays where they are: the Guide says it waits, and holds still.
    await until("the Guide says it waits", () => heard(page, `Come along, ${NAME}: I'll wait for you here.`));
    const waiting = (await guideSeen(page))!;
    await holdsFor(
      "the Guide waiting where it stood",
      async () => {
        const g = await guideSeen(page);
        return g?.tx === waiting.tx && g.ty === waiting.ty;
      },
      2_000,
      150,
    );
    expect(apart(waiting, HOME)).toBeLessThanOrEqual(1);
    // One slow step: up to two tiles behind it. It walks on to the portal and waits beside it (the
    // person is now further behind than it steps through a portal with).
    await step(page, { tx: waiting.tx + 2, ty: waiting.ty });
    const beside = await until(
      "the Guide beside the portal",
      async () => {
        const g = await guideSeen(page);
        return g && apart(g, TO_TOWN) === 1 && g;
      },
      20_000,
    );
    const me1 = (await me(page))!;
    expect(apart(beside, me1)).toBeGreaterThan(2);
    await holdsFor(
      "the Guide waiting beside the portal, in the lobby",
      async () => {
        const g = await guideSeen(page);
        return g !== undefined && apart(g, TO_TOWN) === 1;
      },
      2_000,
      150,
    );
    // The next slow step brings the person near: it goes through, and the person after it.
    const held = (await guideSeen(page))!;
    await step(page, { tx: held.tx + 2, ty: held.ty });
    await until("the Guide through the portal", async () => (await guideSeen(page)) === undefined, 15_000);
    await ocw(page, `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: TO_TOWN } })})`);
    await until("the person in the town", async () => (await ocw<string>(page, "roomId")) === "town", 30_000);
    // In the town it leads on to the café (woken there); the person keeps near it.
    let sentAt = 0;
    let last = "";
    const arrived = await until(
      "the Guide and the person at the café",
      async () => {
        const g = await guideSeen(page);
        const m = await me(page);
        if (!g || !m) return false;
        const now = JSON.stringify([g.tx, g.ty, m.tx, m.ty]);
        const still = now === last;
        last = now;
        if (apart(g, m) > 1 && Date.now() - sentAt > 600) {
          sentAt = Date.now();
          await ocw(page, `send(${JSON.stringify({ type: "approach", targetId: g.id })})`);
        }
        return still && apart(g, CAFE) <= 1 && apart(g, m) <= 2 && { guide: g, person: m };
      },
      TURN_MS,
    );
    expect(apart(arrived.guide, CAFE)).toBeLessThanOrEqual(1);
    // Nobody ends a walk on another's tile: the person keeping up (approach) stands beside the Guide.
    expect(arrived.person).not.toMatchObject({ tx: arrived.guide.tx, ty: arrived.guide.ty });
    expect(walker.consoleErrors).toEqual([]);
  }, 300_000);

  it('clicking the Guide offers "talk to": the person walks up beside it, the chat box addressed to it', async () => {
    const page = walker!.page;
    const townBlocked = await mapBlocked(gateway().baseUrl, "town");
    const g = (await guideSeen(page))!;
    // Three tiles off (still near it, so it stays), then a click on the Guide.
    const off = [
      { tx: g.tx + 3, ty: g.ty },
      { tx: g.tx - 3, ty: g.ty },
      { tx: g.tx, ty: g.ty + 3 },
      { tx: g.tx, ty: g.ty - 3 },
    ].find((t) => !townBlocked(t.tx, t.ty))!;
    await step(page, off);
    const at = await mapPoint(page, g.tx, g.ty);
    await page.mouse.move(at.x, at.y);
    await until("the tooltip offers talk to", async () => {
      const tip = page.locator("#tooltip");
      return (
        (await tip.isVisible()) && (await tip.textContent())?.includes("Talk to") && (await tip.textContent())
      );
    });
    expect(await page.locator("#tooltip").textContent()).toBe(`Talk to ${isolate("Guide")}`);
    await page.mouse.click(at.x, at.y);
    // Beside it, and stays there (not walking on onto its tile).
    await until("the person beside the Guide", async () => {
      const m = await me(page);
      return m !== undefined && apart(m, g) === 1;
    });
    await holdsFor(
      "the person beside the Guide, not on its tile",
      async () => {
        const m = await me(page);
        return m !== undefined && apart(m, g) === 1;
      },
      1_500,
      150,
    );
    // Side by side, their name tags do not print over each other (one is lifted: stackTags).
    await until("the two name tags apart", async () => {
      const rects = await ocw<(Rect & { text: string })[]>(page, "tagRects()");
      const mine = rects.find((r) => r.text.includes(NAME.slice(0, 8)));
      const its = rects.find((r) => r.text.includes("Guide"));
      return mine && its && !overlap(mine, its);
    });
    expect(await page.locator("#chat-input").inputValue()).toBe("Guide, ");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("chat-input");
    expect(await page.locator("#chat-channel").inputValue()).toBe("proximity");
    // Never sent: the box is emptied and the keys go back to the world.
    await page.locator("#chat-input").fill("");
    await page.keyboard.press("Escape");
    expect(walker!.consoleErrors).toEqual([]);
  }, 60_000);
});
