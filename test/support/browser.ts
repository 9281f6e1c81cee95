// Headless Debian Chromium driven by playwright-core (no browser download: the system's chromium).
import { existsSync } from "node:fs";
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
export async function lobbyBlocked(baseUrl: string): Promise<(tx: number, ty: number) => boolean> {
  const map = (await (await fetch(`${baseUrl}/world/maps/lobby.json`)).json()) as {
    width: number;
    layers: { name: string; data?: number[] }[];
  };
  const collision = map.layers.find((l) => l.name === "collision")!.data!;
  return (tx, ty) => collision[ty * map.width + tx] !== 0;
}
