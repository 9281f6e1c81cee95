// The visible entity limit end to end (docs/web-wire.md), in real Chromium against a real gateway of its
// own with `web.maxVisible: 4`: six agents (AIC over HTTP) stand around a browser's player at growing
// distances; the browser is streamed at most four actors (its own and the nearest), shows the others
// as minimap dots (the room-wide radar), and an agent that walks up close is streamed again.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomToken } from "../../scripts/lib/gateway.ts";
import {
  launchBrowser,
  lobbyBlocked,
  ocw,
  until,
  type WatchedPage,
  watchedPage,
} from "../support/browser.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { holdsFor } from "../support/wait.ts";

const MAX_VISIBLE = 4;
const AGENTS = Array.from({ length: 6 }, (_, i) => `crowd_${i}`);

interface Seen {
  id: string;
  tx: number;
  ty: number;
}

let gw: TestGateway;
let browser: Browser;
let kim: WatchedPage;
const tokens = Object.fromEntries(AGENTS.map((id) => [id, randomToken()]));

const seen = (page: Page) => ocw<Seen[]>(page, "entities()");
const dots = (page: Page) => ocw<{ dots: string[] }>(page, "minimap()").then((m) => m.dots);

async function aic(agentId: string, path: string, body: Record<string, unknown>) {
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tokens[agentId]}` },
    body: JSON.stringify({ agentId, ...body }),
  });
  const json = (await res.json()) as { status: string; data?: Record<string, unknown> };
  if (json.status !== "ok") throw new Error(`${path} for ${agentId}: ${JSON.stringify(json)}`);
  return json.data!;
}

beforeAll(async () => {
  gw = await startGateway({
    pluginConfig: {
      agents: Object.fromEntries(AGENTS.map((id) => [id, { token: tokens[id], name: `Crowd ${id}` }])),
      web: { maxVisible: MAX_VISIBLE },
    },
  });
  browser = await launchBrowser();
  kim = await watchedPage(browser, { viewport: { width: 1024, height: 700 } });
  await kim.page.goto(`${gw.baseUrl}/world/?name=Kim`);
  await until("Kim online", () => ocw<string>(kim.page, "status").then((s) => s === "online"));
  await until("Kim's room drawn", () => ocw<Seen>(kim.page, "me()"));
}, 360_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe("a browser in a crowd larger than web.maxVisible", () => {
  it("is streamed its own actor and the nearest, sees the rest as minimap dots, and a newcomer nearby again", async () => {
    const blocked = await lobbyBlocked(gw.baseUrl);
    const me = (await ocw<Seen>(kim.page, "me()"))!;
    // One free tile per distance, 2..7 tiles from Kim, along a row or a column: agent i at the i-th.
    const ring: { tx: number; ty: number }[] = [];
    for (let d = 2; ring.length < AGENTS.length && d < 20; d++) {
      const tile = [
        { tx: me.tx + d, ty: me.ty },
        { tx: me.tx - d, ty: me.ty },
        { tx: me.tx, ty: me.ty + d },
        { tx: me.tx, ty: me.ty - d },
      ].find((t) => t.tx > 0 && t.ty > 0 && !blocked(t.tx, t.ty));
      if (tile) ring.push(tile);
    }
    expect(ring).toHaveLength(AGENTS.length);
    for (const [i, id] of AGENTS.entries()) {
      await aic(id, "join", { roomId: "lobby" });
      await aic(id, "moveTo", { roomId: "lobby", txId: `tx_crowdmove_${i}`, dest: ring[i] });
    }
    const entityOf = (agentId: string) => `agt_${agentId}`;
    // Everyone stands where it was sent before the nearest are counted: on the way out from the spawn
    // point a far one can still be among Kim's nearest. Seen by one of them (observe allows 2 a second).
    await until(
      "every agent at its place",
      async () => {
        const view = await aic(AGENTS[0]!, "observe", { roomId: "lobby", radius: 640, detail: "lite" });
        const self = view.self as { tile: { tx: number; ty: number } };
        const nearby = view.nearby as { entity: { id: string; tile: { tx: number; ty: number } } }[];
        return AGENTS.every((id, i) => {
          const tile = i === 0 ? self.tile : nearby.find((n) => n.entity.id === entityOf(id))?.entity.tile;
          return tile?.tx === ring[i]!.tx && tile?.ty === ring[i]!.ty;
        });
      },
      { timeoutMs: 30_000, everyMs: 500 },
    );
    // Everyone is on the minimap (the radar is the whole room); the two nearest are streamed.
    await until(
      "all agents on Kim's minimap",
      async () => {
        const d = await dots(kim.page);
        return AGENTS.every((id) => d.includes(entityOf(id)));
      },
      30_000,
    );
    await until(
      "the nearest agents streamed to Kim where they stand",
      async () => {
        const s = await seen(kim.page);
        return [0, 1].every((i) =>
          s.some((e) => e.id === entityOf(AGENTS[i]!) && e.tx === ring[i]!.tx && e.ty === ring[i]!.ty),
        );
      },
      30_000,
    );
    await holdsFor(
      `Kim sees herself and at most ${MAX_VISIBLE} for a while`,
      async () => {
        const s = await seen(kim.page);
        return s.length <= MAX_VISIBLE && s.some((e) => e.id === me.id);
      },
      1_000,
      100,
    );
    const far = AGENTS.at(-1)!;
    expect((await seen(kim.page)).some((e) => e.id === entityOf(far))).toBe(false);
    expect(await dots(kim.page)).toContain(entityOf(far));
    // The farthest walks up next to Kim: now the nearest, it is streamed again (still at most four).
    const next = [
      { tx: me.tx + 1, ty: me.ty },
      { tx: me.tx - 1, ty: me.ty },
      { tx: me.tx, ty: me.ty + 1 },
      { tx: me.tx, ty: me.ty - 1 },
    ].find((t) => !blocked(t.tx, t.ty) && !ring.some((r) => r.tx === t.tx && r.ty === t.ty))!;
    await aic(far, "moveTo", { roomId: "lobby", txId: "tx_crowdmove_near", dest: next });
    await until(
      "the agent that walked up is streamed to Kim",
      async () =>
        (await seen(kim.page)).some((e) => e.id === entityOf(far) && e.tx === next.tx && e.ty === next.ty),
      30_000,
    );
    expect((await seen(kim.page)).length).toBeLessThanOrEqual(MAX_VISIBLE);
    expect(await ocw(kim.page, "errors()")).toEqual([]);
    expect((await ocw<{ refused: number }>(kim.page, "wireStats()")).refused).toBe(0);
    expect(kim.consoleErrors).toEqual([]);
  });
});
