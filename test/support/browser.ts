// Headless Debian Chromium driven by playwright-core (no browser download: the system's chromium).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { type Browser, type ConsoleMessage, chromium, type Page } from "playwright-core";
import { type UntilOptions, until as untilCondition } from "./wait.ts";

export const CHROMIUM_PATH = process.env.OCW_CHROMIUM ?? "/usr/bin/chromium";

export interface BrowserShape {
  /**
   * Draw with WebGL, as most players' browsers do. Off by default: without a GPU, chromium draws WebGL
   * in software (SwiftShader), and a drawn world page then kept 1.6 cores busy, most of the browser
   * tests' CPU; the page falls back to Phaser's canvas renderer (Phaser.AUTO), which at the test pages'
   * frame rate costs ~0.4 core. `web.e2e` keeps a WebGL browser.
   */
  webgl?: boolean;
}

export async function launchBrowser(shape: BrowserShape = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} not found: install Debian's chromium (npm test does)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      ...(shape.webgl ? [] : ["--disable-webgl"]),
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

/** Frames a second a test page draws at most (OCW_TEST_FPS to change): the tests read state, not motion.
 * A drawn frame costs the browser ~28 ms of CPU whatever the window's size (canvas, no GPU), so a page
 * at 15 took 0.51 of a core and at 5 0.23 (`npm run bench:test-page`); the browsers were the suite's
 * largest CPU cost. What a test reads between frames it reads a frame apart (`nextFrame`). */
export const TEST_PAGE_FPS = Number(process.env.OCW_TEST_FPS) || 5;

// Runs in the page before its own scripts. Waiting out the gap on a timer, not by skipping animation
// frames, lets the compositor idle between frames; skipping frames kept it (and its CPU) at 60 a second.
/** A frame asked for and not yet drawn: first a timer, then the browser's own animation frame. */
interface CappedFrame {
  timer?: ReturnType<typeof setTimeout>;
  frame?: number;
}

function capFrameRate(fps: number): void {
  const gap = 1000 / fps;
  const raf = window.requestAnimationFrame.bind(window);
  const caf = window.cancelAnimationFrame.bind(window);
  const pending = new Map<number, CappedFrame>();
  let nextId = 1;
  let lastFrame = 0;
  window.requestAnimationFrame = (callback) => {
    const id = nextId++;
    const entry: CappedFrame = {};
    pending.set(id, entry);
    entry.timer = setTimeout(
      () => {
        entry.frame = raf((time) => {
          pending.delete(id);
          lastFrame = performance.now();
          callback(time);
        });
      },
      Math.max(0, gap - (performance.now() - lastFrame) - 8),
    );
    return id;
  };
  window.cancelAnimationFrame = (id) => {
    const entry = pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    if (entry.frame !== undefined) caf(entry.frame);
    pending.delete(id);
  };
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
  /** Frames a second at most (default TEST_PAGE_FPS). */
  fps?: number;
}

/** A page whose console errors, page errors and dialogs (alert, confirm...) are recorded. */
export async function watchedPage(browser: Browser, shape: PageShape = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: shape.viewport ?? { width: 1100, height: 700 },
    ...(shape.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  await context.addInitScript(capFrameRate, shape.fps ?? TEST_PAGE_FPS);
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

/** Reads the client's test window (`window.__ocw`, see web/client/test-window.ts). */
export const ocw = <T>(page: Page, expr: string) => page.evaluate(`window.__ocw.${expr}`) as Promise<T>;

/** Like `ocw`, read when the page draws its next frame: two reads are a drawn frame apart, so "it did
 * not change" means the page drew again and it stayed, not that both reads fell between two frames. */
export const nextFrame = <T>(page: Page, expr: string) =>
  page.evaluate(
    `new Promise((resolve) => requestAnimationFrame(() => resolve(window.__ocw.${expr})))`,
  ) as Promise<T>;

/** Polls a page (or anything else a browser test asks) until `probe` returns something truthy, at a
 * pace a page's evaluate can bear; fails with the last value seen. */
export function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: UntilOptions | number = 15_000,
): Promise<T> {
  return untilCondition(what, probe, {
    everyMs: 150,
    ...(typeof options === "number" ? { timeoutMs: options } : options),
  });
}

/** Whether a lobby tile blocks walking, read from the map file the gateway serves (the one it loaded). */
export function lobbyBlocked(baseUrl: string): Promise<(tx: number, ty: number) => boolean> {
  return mapBlocked(baseUrl, "lobby");
}

/** Whether an agent a test leaves standing on a lobby tile would be in people's way: it blocks walking,
 * or an object is on it (a click there means the one standing) or on the tile above (a sprite stands
 * taller than its tile and covers it). Tool agents cannot leave the world, so a file that walks one
 * puts it where the next file's clicks on a sign still reach the sign. */
export async function lobbyInTheWay(baseUrl: string): Promise<(tx: number, ty: number) => boolean> {
  const blocked = await mapBlocked(baseUrl, "lobby");
  const data = (await (await fetch(`${baseUrl}/world/maps/lobby.json`)).json()) as {
    tilewidth: number;
    layers: { name: string; objects?: { type?: string; class?: string; x: number; y: number }[] }[];
  };
  const objects = (data.layers.find((l) => l.name === "objects")?.objects ?? [])
    .filter((o) => (o.type ?? o.class) !== "spawn")
    .map((o) => ({ tx: Math.floor(o.x / data.tilewidth), ty: Math.floor(o.y / data.tilewidth) }));
  return (tx, ty) => blocked(tx, ty) || objects.some((o) => o.tx === tx && (o.ty === ty || o.ty === ty - 1));
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

/** Whether a tile of a bundled room's map is water: its ground tile is one the tileset marks `water`. */
export async function mapWater(baseUrl: string, map: string): Promise<(tx: number, ty: number) => boolean> {
  const data = (await (await fetch(`${baseUrl}/world/maps/${map}.json`)).json()) as {
    width: number;
    tilesets: {
      firstgid: number;
      tiles?: { id: number; properties?: { name: string; value: unknown }[] }[];
    }[];
    layers: { name: string; data?: number[] }[];
  };
  const [tileset] = data.tilesets;
  const water = new Set(
    (tileset!.tiles ?? [])
      .filter((t) => t.properties?.some((p) => p.name === "water" && p.value === true))
      .map((t) => tileset!.firstgid + t.id),
  );
  const ground = data.layers.find((l) => l.name === "ground")!.data!;
  return (tx, ty) => water.has(ground[ty * data.width + tx]!);
}

/** Two tiles east, west, south or north of `from` (else three), the first one that is free: a short
 * walk to see. */
export function freeTileNear(
  from: { tx: number; ty: number },
  blocked: (tx: number, ty: number) => boolean,
): { tx: number; ty: number } {
  const around = [2, 3].flatMap((d) => [
    { tx: from.tx + d, ty: from.ty },
    { tx: from.tx - d, ty: from.ty },
    { tx: from.tx, ty: from.ty + d },
    { tx: from.tx, ty: from.ty - d },
  ]);
  const free = around.find((t) => !blocked(t.tx, t.ty));
  if (!free) throw new Error(`no free tile two or three steps from (${from.tx}, ${from.ty})`);
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
  /** A resident without a model (the world's mark). */
  asleep?: boolean;
  /** How opaque its figure is drawn (away and asleep are faded). */
  alpha?: number;
}

export const me = (page: Page) => ocw<SeenActor>(page, "me()");

/** Resolves once the page has drawn `count` more frames (its game reads keys once a frame). */
export function drawnFrames(page: Page, count: number): Promise<void> {
  return page.evaluate(
    (n) =>
      new Promise<void>((resolve) => {
        const next = (left: number) => (left === 0 ? resolve() : requestAnimationFrame(() => next(left - 1)));
        next(n);
      }),
    count,
  );
}

/** Waits until what the page shows holds still between two looks: the camera, the player's figure, the
 * chat bubbles and the name tags (a screenshot or a layout read of a page still settling differs from
 * run to run). Figures of others may go on walking; past `timeoutMs` it goes on as it is. */
export async function stillPicture(page: Page, timeoutMs = 3_000): Promise<void> {
  const look = () =>
    page.evaluate(
      () =>
        new Promise<string>((resolve) =>
          requestAnimationFrame(() => {
            const o = (
              window as unknown as {
                __ocw: Record<"me" | "bubbles" | "tagRects" | "screenPoint", (...a: number[]) => unknown>;
              }
            ).__ocw;
            const self = o.me() as { x: number; y: number } | undefined;
            resolve(JSON.stringify([o.screenPoint(0, 0), self?.x, self?.y, o.bubbles(), o.tagRects()]));
          }),
        ),
    );
  // Two looks a drawn frame or more apart (the first is only remembered).
  let previous: string | undefined;
  await until(
    "the picture to hold still",
    async () => {
      const now = await look();
      const still = now === previous;
      previous = now;
      return still;
    },
    timeoutMs,
  ).catch(() => undefined);
}

/** Walks a page's player to a free tile (through the server, like a click) and waits for arrival. */
export async function walkTo(
  page: Page,
  tx: number,
  ty: number,
  blocked?: (tx: number, ty: number) => boolean,
): Promise<void> {
  if (blocked?.(tx, ty)) throw new Error(`(${tx}, ${ty}) is blocked`);
  // A key released just before is read by the page on its next frame and sent as a stop; sent
  // after this walk, that stop would end it. Two frames later it has gone out first.
  await drawnFrames(page, 2);
  await ocw(
    page,
    `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: tx, ty: ty } } })})`,
  );
  await until(
    `arrival at (${tx}, ${ty})`,
    async () => {
      const m = await me(page);
      return m?.tx === tx && m.ty === ty;
    },
    40_000,
  );
  await settledPoint(page, tx, ty); // the camera catches up
}

/** Where a tile's centre is on screen once the following camera has settled: at rest on whom it follows
 * (Phaser's own aim, within the map's bounds) and still between two looks a drawn frame or more apart
 * (the first is only remembered). A camera that keeps moving (its person walks on) gives its last point. */
export async function settledPoint(page: Page, tx: number, ty: number): Promise<{ x: number; y: number }> {
  let previous: { x: number; y: number } | undefined;
  let gap: number | undefined;
  const look = () =>
    nextFrame<{ point: { x: number; y: number }; gap?: number }>(page, `settling(${tx}, ${ty})`);
  return until(
    `the camera to settle on (${tx}, ${ty})`,
    async () => {
      const seen = await look();
      const now = seen.point;
      gap = seen.gap;
      const still =
        previous !== undefined &&
        (gap === undefined || gap < 1) &&
        Math.abs(now.x - previous.x) < 0.5 &&
        Math.abs(now.y - previous.y) < 0.5;
      previous = now;
      return still && now;
    },
    3_000,
  ).catch(async () => {
    // Said, for a click that then misses: the camera still on its way after the deadline.
    if (gap !== undefined && gap >= 1)
      console.log(`settledPoint(${tx}, ${ty}): the camera is still ${gap.toFixed(1)} px from rest after 3 s`);
    return previous ?? (await look()).point;
  });
}

/** Where to click or tap a tile: its settled screen point, checked to be on the map the page shows.
 * A tile off screen (the player spawned far from it) or under a panel (the chat, the presence list)
 * takes no click there, and a test that clicked anyway waited for an outcome that could not come. */
export async function mapPoint(page: Page, tx: number, ty: number): Promise<{ x: number; y: number }> {
  const p = await settledPoint(page, tx, ty);
  const under = await page.evaluate(({ x, y }) => {
    const el = document.elementFromPoint(x, y);
    if (el instanceof HTMLCanvasElement && el.closest("#game")) return "the map";
    return el ? `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}>` : "nothing (off screen)";
  }, p);
  if (under !== "the map")
    throw new Error(
      `tile (${tx}, ${ty}) is at (${Math.round(p.x)}, ${Math.round(p.y)}) on screen, over ${under}`,
    );
  return p;
}

/** Clicks a tile where the settled camera shows it on the map: what the page offers there (an object's
 * natural action, talking to someone who stands on it, else a walk there). */
export async function clickTile(page: Page, tx: number, ty: number): Promise<void> {
  const p = await mapPoint(page, tx, ty);
  await page.mouse.click(p.x, p.y);
}

/** Clicks a tile and waits until `selector` shows (a card, a dialog). When it does not, the failure says
 * what the page made of the click: the pointer's label there, who stood on the tile (someone drawn
 * there is talked to instead of the object under them), the player, the notices and errors. */
export async function clickTileShows(
  page: Page,
  tx: number,
  ty: number,
  selector: string,
  timeoutMs = 30_000,
): Promise<void> {
  await clickTile(page, tx, ty);
  const shown = page.locator(selector);
  try {
    await until(`${selector} after a click on (${tx}, ${ty})`, () => shown.isVisible(), timeoutMs);
  } catch (error) {
    const seen = await page
      .evaluate(
        ({ x, y }) => {
          const o = (
            window as unknown as {
              __ocw: Record<"entities" | "hover" | "me" | "notices" | "errors", () => unknown>;
            }
          ).__ocw;
          const on = (o.entities() as { name: string; tx: number; ty: number }[]).filter(
            (e) => e.tx === x && e.ty === y,
          );
          return {
            hover: o.hover(),
            onTile: on.map((e) => e.name),
            me: o.me(),
            notices: o.notices(),
            errors: o.errors(),
          };
        },
        { x: tx, y: ty },
      )
      .catch((e: Error) => `unreadable: ${e.message}`);
    throw new Error(`${(error as Error).message}; the page saw ${JSON.stringify(seen)}`);
  }
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
