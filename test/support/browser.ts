// Headless Debian Chromium driven by playwright-core (no browser download: the system's chromium).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { type Browser, type ConsoleMessage, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.OCW_CHROMIUM ?? "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} not found: install Debian's chromium (npm test does)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export interface WatchedPage {
  page: Page;
  consoleErrors: string[];
  dialogs: string[];
}

export interface PageShape {
  viewport?: { width: number; height: number };
  /** A phone: touch events, a coarse pointer and the mobile viewport meta tag honoured. */
  phone?: boolean;
}

/** A page whose console errors, page errors and dialogs (alert, confirm...) are recorded. */
export async function watchedPage(browser: Browser, shape: PageShape = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: shape.viewport ?? { width: 1100, height: 700 },
    ...(shape.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  const page = await context.newPage();
  const watched: WatchedPage = { page, consoleErrors: [], dialogs: [] };
  page.on("console", (msg: ConsoleMessage) => {
    if (msg.type() === "error") watched.consoleErrors.push(msg.text());
  });
  page.on("pageerror", (error) => watched.consoleErrors.push(`pageerror: ${error.message}`));
  page.on("dialog", (dialog) => {
    watched.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return watched;
}

/** Reads the client's test window (`window.__ocw`, see web/client/main.ts). */
export const ocw = <T>(page: Page, expr: string) => page.evaluate(`window.__ocw.${expr}`) as Promise<T>;

/** Polls `probe` until it returns something truthy; fails with the last value seen. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined | false;
  while (Date.now() < deadline) {
    last = await probe();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** Whether a lobby tile blocks walking, read from the map file the gateway serves (the one it loaded). */
export function lobbyBlocked(baseUrl: string): Promise<(tx: number, ty: number) => boolean> {
  return mapBlocked(baseUrl, "lobby");
}

/** Whether a tile of a bundled room's map (`lobby`, `garden`, `town`) blocks walking. */
export async function mapBlocked(baseUrl: string, map: string): Promise<(tx: number, ty: number) => boolean> {
  const data = (await (await fetch(`${baseUrl}/world/maps/${map}.json`)).json()) as {
    width: number;
    layers: { name: string; data?: number[] }[];
  };
  const collision = data.layers.find((l) => l.name === "collision")!.data!;
  return (tx, ty) => collision[ty * data.width + tx] !== 0;
}

/** Two tiles east, west, south or north of `from`, the first one that is free: a short walk to see. */
export function freeTileNear(
  from: { tx: number; ty: number },
  blocked: (tx: number, ty: number) => boolean,
): { tx: number; ty: number } {
  const around = [
    { tx: from.tx + 2, ty: from.ty },
    { tx: from.tx - 2, ty: from.ty },
    { tx: from.tx, ty: from.ty + 2 },
    { tx: from.tx, ty: from.ty - 2 },
  ];
  const free = around.find((t) => !blocked(t.tx, t.ty));
  if (!free) throw new Error(`no free tile two steps from (${from.tx}, ${from.ty})`);
  return free;
}

/** A screenshot into .test-artifacts/ (gitignored), for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  await mkdir(".test-artifacts", { recursive: true });
  await page.screenshot({ path: `.test-artifacts/${name}` });
}

export interface ScreenRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const overlap = (a: ScreenRect, b: ScreenRect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The player as the page draws it (`window.__ocw.me()`). */
export interface SeenActor {
  id: string;
  name: string;
  kind: string;
  x: number;
  y: number;
  tx: number;
  ty: number;
  away: boolean;
  seated?: boolean;
  look?: number;
}

export const me = (page: Page) => ocw<SeenActor>(page, "me()");

/** Walks a page's player to a free tile (through the server, like a click) and waits for arrival. */
export async function walkTo(
  page: Page,
  tx: number,
  ty: number,
  blocked?: (tx: number, ty: number) => boolean,
): Promise<void> {
  if (blocked?.(tx, ty)) throw new Error(`(${tx}, ${ty}) is blocked`);
  await ocw(page, `send(${JSON.stringify({ type: "click_to_move", destTx: tx, destTy: ty })})`);
  await until(
    `arrival at (${tx}, ${ty})`,
    async () => {
      const m = await me(page);
      return m?.tx === tx && m.ty === ty;
    },
    40_000,
  );
  await page.waitForTimeout(400); // the camera catches up
}

/** Where a tile's centre is on screen once the following camera has settled. */
export async function settledPoint(page: Page, tx: number, ty: number): Promise<{ x: number; y: number }> {
  let previous = await ocw<{ x: number; y: number }>(page, `screenPoint(${tx}, ${ty})`);
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(100);
    const now = await ocw<{ x: number; y: number }>(page, `screenPoint(${tx}, ${ty})`);
    if (Math.abs(now.x - previous.x) < 0.5 && Math.abs(now.y - previous.y) < 0.5) return now;
    previous = now;
  }
  return previous;
}

/** A player's page at /world/?name=..., online and drawn. */
export async function openPlayer(
  browser: Browser,
  baseUrl: string,
  name: string,
  shape: PageShape = { viewport: { width: 1280, height: 800 } },
): Promise<WatchedPage> {
  const w = await watchedPage(browser, shape);
  await w.page.goto(`${baseUrl}/world/?name=${encodeURIComponent(name)}`);
  await until(`${name} online`, () => ocw<string>(w.page, "status").then((s) => s === "online"));
  await until(`${name}'s room drawn`, () => me(w.page));
  return w;
}
