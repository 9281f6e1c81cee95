// The binary delta wire end to end (docs/web-wire.md), in real Chromium against the real gateway:
// two browsers see each other's moves through binary delta frames that their client decodes, and a
// browser that drops its connection resumes with a full snapshot, then follows moves by deltas again.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  launchBrowser,
  lobbyBlocked,
  ocw,
  until,
  type WatchedPage,
  watchedPage,
} from "../support/browser.ts";
import { gateway } from "./fixtures.ts";

interface Seen {
  id: string;
  tx: number;
  ty: number;
}
interface WireStats {
  text: number;
  binary: number;
  binaryBytes: number;
  snapshots: number;
  refused: number;
}

const me = (page: Page) => ocw<Seen>(page, "me()");
const seen = (page: Page) => ocw<Seen[]>(page, "entities()");
const stats = (page: Page) => ocw<WireStats>(page, "wireStats()");

let browser: Browser;
let dee: WatchedPage;
let eve: WatchedPage;
let blocked: (tx: number, ty: number) => boolean;

async function open(name: string): Promise<WatchedPage> {
  const w = await watchedPage(browser, { viewport: { width: 1024, height: 700 } });
  await w.page.goto(`${gateway().baseUrl}/world/?name=${encodeURIComponent(name)}`);
  await until(`${name} online`, () => ocw<string>(w.page, "status").then((s) => s === "online"));
  await until(`${name}'s room drawn`, () => me(w.page));
  return w;
}

/** A free tile a few steps from where the page's player stands (not the one it stands on). */
async function freeStep(page: Page, offsets: number[][]): Promise<{ tx: number; ty: number }> {
  const at = await me(page);
  for (const [dx, dy] of offsets) {
    const t = { tx: at.tx + dx!, ty: at.ty + dy! };
    if (t.tx > 0 && t.ty > 0 && !blocked(t.tx, t.ty)) return t;
  }
  throw new Error(`no free tile near ${JSON.stringify(at)}`);
}

/** Walks `walker` and waits until `watcher` shows it on the destination tile. */
async function walkSeenBy(walker: Page, watcher: Page, to: { tx: number; ty: number }): Promise<void> {
  const id = (await me(walker)).id;
  await ocw(
    walker,
    `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: to.tx, ty: to.ty } } })})`,
  );
  await until(`the other browser shows ${id} at (${to.tx}, ${to.ty})`, async () => {
    const other = (await seen(watcher)).find((e) => e.id === id);
    return other?.tx === to.tx && other.ty === to.ty;
  });
}

beforeAll(async () => {
  blocked = await lobbyBlocked(gateway().baseUrl);
  browser = await launchBrowser();
  dee = await open("Dee");
  eve = await open("Eve");
}, 90_000);

afterAll(async () => {
  await browser?.close();
});

describe("binary delta frames in the browser", () => {
  it("two browsers see each other's moves through binary deltas the client decodes", async () => {
    const before = await stats(eve.page);
    await until("Eve sees Dee", async () => {
      const deeId = (await me(dee.page)).id;
      return (await seen(eve.page)).some((e) => e.id === deeId);
    });
    await walkSeenBy(
      dee.page,
      eve.page,
      await freeStep(dee.page, [
        [3, 0],
        [-3, 0],
        [0, 3],
        [0, -3],
        [2, 2],
      ]),
    );
    await walkSeenBy(
      eve.page,
      dee.page,
      await freeStep(eve.page, [
        [0, 2],
        [0, -2],
        [2, 0],
        [-2, 0],
      ]),
    );
    const after = await stats(eve.page);
    expect(after.binary).toBeGreaterThan(before.binary);
    expect(after.refused).toBe(0);
    // A step is a few bytes: the frames are small on average (a JSON delta was ~60+ bytes).
    expect(after.binaryBytes / after.binary).toBeLessThan(40);
    expect((await stats(dee.page)).refused).toBe(0);
    expect(await ocw(dee.page, "errors()")).toEqual([]);
    expect(await ocw(eve.page, "errors()")).toEqual([]);
    expect([...dee.consoleErrors, ...eve.consoleErrors]).toEqual([]);
  });

  it("a dropped browser resumes with a full snapshot, then follows moves by deltas again", async () => {
    const before = await stats(eve.page);
    await ocw(eve.page, "dropConnection()");
    await until("Eve reconnects with a snapshot", async () => {
      const s = await stats(eve.page);
      return s.snapshots > before.snapshots && (await ocw<string>(eve.page, "status")) === "online";
    });
    const deeId = (await me(dee.page)).id;
    expect((await seen(eve.page)).some((e) => e.id === deeId)).toBe(true);
    const resumed = await stats(eve.page);
    await walkSeenBy(
      dee.page,
      eve.page,
      await freeStep(dee.page, [
        [-2, 0],
        [2, 0],
        [0, -2],
        [0, 2],
      ]),
    );
    const after = await stats(eve.page);
    expect(after.binary).toBeGreaterThan(resumed.binary);
    expect(after.refused).toBe(0);
    expect(await ocw(eve.page, "errors()")).toEqual([]);
  });
});
