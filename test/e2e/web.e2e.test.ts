// Humans in a real browser (Debian chromium via playwright-core) against the real gateway: two
// people see each other, move, hit walls, chat both ways, and watch an agent moved by ocw_move_to.
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freeTileNear,
  launchBrowser,
  lobbyBlocked,
  mapPoint,
  ocw,
  settledPoint,
  until,
  type WatchedPage,
  watchedPage,
} from "../support/browser.ts";
import { holdsFor } from "../support/wait.ts";
import { gateway, invokeTool } from "./fixtures.ts";

interface Seen {
  id: string;
  name: string;
  kind: string;
  x: number;
  y: number;
  tx: number;
  ty: number;
}

const me = (page: Page) => ocw<Seen>(page, "me()");
const seen = (page: Page) => ocw<Seen[]>(page, "entities()");

let browser: Browser;
let alice: WatchedPage;
let bob: WatchedPage;
let blocked: (tx: number, ty: number) => boolean;

beforeAll(async () => {
  const gw = gateway();
  blocked = await lobbyBlocked(gw.baseUrl);
  // WebGL, as most players draw the world; the other browser files use the canvas renderer.
  browser = await launchBrowser({ webgl: true });
  alice = await watchedPage(browser);
  bob = await watchedPage(browser);
  await alice.page.goto(`${gw.baseUrl}/world/?name=Alice`);
  await bob.page.goto(`${gw.baseUrl}/world/?name=Bob`);
  for (const p of [alice.page, bob.page]) {
    await until("online", () => ocw<string>(p, "status").then((s) => s === "online"));
    await until("the room is drawn", () => me(p));
  }
}, 60_000);

afterAll(async () => {
  await mkdir(".test-artifacts", { recursive: true });
  await alice?.page.screenshot({ path: ".test-artifacts/web-alice.png" }).catch(() => {});
  await bob?.page.screenshot({ path: ".test-artifacts/web-bob.png" }).catch(() => {});
  await browser?.close();
});

describe("humans in the browser", () => {
  it("serves the client with a CSP and nosniff, and the map file the server uses", async () => {
    const gw = gateway();
    const page = await fetch(`${gw.baseUrl}/world/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    // Traversal never reaches a file outside the served folders (the gateway may answer its own page).
    for (const probe of [
      "/world/maps/..%2F..%2Fworld.toml",
      "/world/maps/%2e%2e/world.toml",
      "/world/assets/..%2F..%2F..%2Fpackage.json",
    ]) {
      const res = await fetch(`${gw.baseUrl}${probe}`);
      const body = await res.text();
      expect(body, probe).not.toContain("tick_rate");
      expect(body, probe).not.toContain('"devDependencies"');
    }
    const map = await fetch(`${gw.baseUrl}/world/maps/lobby.json`);
    expect(map.headers.get("content-type")).toContain("application/json");
    expect(((await map.json()) as { layers: unknown[] }).layers.length).toBeGreaterThan(2);
  });

  it("two browsers join and see each other", async () => {
    const aliceId = await ocw<string>(alice.page, "entityId");
    const bobId = await ocw<string>(bob.page, "entityId");
    expect(aliceId).toMatch(/^hum_/);
    expect(await ocw<string>(alice.page, "renderer")).toBe("webgl");
    await until("Alice sees Bob", async () =>
      (await seen(alice.page)).some((e) => e.id === bobId && e.name === "Bob"),
    );
    await until("Bob sees Alice", async () =>
      (await seen(bob.page)).some((e) => e.id === aliceId && e.name === "Alice"),
    );
    const roster = await ocw<{ name: string }[]>(alice.page, "roster()");
    expect(roster.map((r) => r.name)).toEqual(expect.arrayContaining(["Alice", "Bob"]));
  });

  it("one moves (click to move) and the other sees it", async () => {
    const bobId = await ocw<string>(bob.page, "entityId");
    // Open, no object on it (a click on a sign reads it: two of the plaza's spawn points have one two
    // steps away) and nobody on it or next to it: a click on someone is "talk to", and a sprite stands
    // taller than its tile, so one on the tile below covers this one (Alice, or an agent another file
    // left here, may stand two steps away).
    const others = await seen(bob.page);
    const objects = await ocw<{ tx: number; ty: number }[]>(bob.page, "objects()");
    const dest = freeTileNear(
      await me(bob.page),
      (tx, ty) =>
        blocked(tx, ty) ||
        objects.some((o) => o.tx === tx && o.ty === ty) ||
        others.some((e) => e.id !== bobId && Math.abs(e.tx - tx) <= 1 && Math.abs(e.ty - ty) <= 1),
    );
    // A real click on the canvas, on the destination tile's centre as the camera shows it now.
    const point = await mapPoint(bob.page, dest.tx, dest.ty); // once the camera has settled on Bob
    await bob.page.mouse.click(point.x, point.y);
    let last: unknown;
    await until("Bob arrives", async () => {
      const now = await me(bob.page);
      last = { bob: [now.tx, now.ty], dest, hover: await ocw(bob.page, "hover()") };
      return now.tx === dest.tx && now.ty === dest.ty;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; ${JSON.stringify(last)}`);
    });
    await until("Alice sees Bob move", async () =>
      (await seen(alice.page)).some((e) => e.id === bobId && e.tx === dest.tx && e.ty === dest.ty),
    );
  });

  it("a wall stops movement (WASD held towards it)", async () => {
    const start = await me(alice.page);
    const dirs = [
      { key: "a", dx: -1, dy: 0 },
      { key: "d", dx: 1, dy: 0 },
      { key: "w", dx: 0, dy: -1 },
      { key: "s", dx: 0, dy: 1 },
    ];
    const distanceToWall = (d: { dx: number; dy: number }) => {
      for (let n = 1; n < 40; n++) if (blocked(start.tx + d.dx * n, start.ty + d.dy * n)) return n;
      return 99;
    };
    // The nearest wall at least two tiles away, so there is room to walk before it stops her.
    const dir = dirs
      .filter((d) => distanceToWall(d) >= 2)
      .sort((a, b) => distanceToWall(a) - distanceToWall(b))[0]!;
    const wallAt = distanceToWall(dir);
    expect(wallAt).toBeLessThan(40);
    // Keys go to the game only when no text field has focus (Escape leaves the chat box).
    await alice.page.keyboard.press("Escape");
    await alice.page.keyboard.down(dir.key);
    // She walks until the next tile that way is the wall (two looks with no news between them are
    // not a stop: on a busy machine a patch can be later than a look), and then stays there, key held.
    const beforeWall = (p: { tx: number; ty: number }) => blocked(p.tx + dir.dx, p.ty + dir.dy);
    const stopped = await until(
      "Alice at the wall",
      async () => {
        const now = await me(alice.page);
        return beforeWall(now) ? now : undefined;
      },
      20_000,
    );
    await holdsFor(
      "Alice stays before the wall, key held",
      async () => {
        const now = await me(alice.page);
        return now.tx === stopped.tx && now.ty === stopped.ty;
      },
      1500,
      150,
    );
    await alice.page.keyboard.up(dir.key);
    // She moved towards the wall (it was two tiles or more away) and stands on a free tile.
    expect(blocked(stopped.tx, stopped.ty)).toBe(false);
  });

  it("chat goes both ways, and markup in a message is shown as text and runs nothing", async () => {
    await alice.page.selectOption("#chat-channel", "global");
    await alice.page.fill("#chat-input", "hello Bob");
    await alice.page.press("#chat-input", "Enter");
    await until("Bob hears Alice", async () =>
      (await ocw<{ fromName: string; message: string }[]>(bob.page, "chat()")).some(
        (m) => m.fromName === "Alice" && m.message === "hello Bob",
      ),
    );
    const evil = "<img src=x onerror=alert(1)>";
    await bob.page.selectOption("#chat-channel", "global");
    await bob.page.fill("#chat-input", evil);
    await bob.page.press("#chat-input", "Enter");
    await until("Alice hears Bob", async () =>
      (await ocw<{ message: string }[]>(alice.page, "chat()")).some((m) => m.message === evil),
    );
    await expect.poll(() => alice.page.locator("#chat-log li .text").last().textContent()).toBe(evil);
    expect(await alice.page.locator("#chat-log img").count()).toBe(0);
    await holdsFor("no dialog opens", () => alice.dialogs.length + bob.dialogs.length === 0, 500);
  });

  it("an agent moved through ocw_move_to appears and moves in the browser", async () => {
    const joined = await invokeTool("ocw_observe", { radius: 64 }, { agentId: "web_walker" });
    expect(joined.status).toBe(200);
    const aliceAt = await me(alice.page);
    const candidates = [
      [aliceAt.tx + 2, aliceAt.ty],
      [aliceAt.tx - 2, aliceAt.ty],
      [aliceAt.tx, aliceAt.ty + 2],
      [aliceAt.tx, aliceAt.ty - 2],
      [aliceAt.tx + 1, aliceAt.ty + 1],
    ].filter(([tx, ty]) => !blocked(tx!, ty!));
    let dest: number[] | undefined;
    for (const c of candidates) {
      const moved = await invokeTool("ocw_move_to", { tx: c[0], ty: c[1] }, { agentId: "web_walker" });
      if (moved.status === 200) {
        dest = c;
        break;
      }
    }
    expect(dest).toBeDefined();
    const agent = await until(
      "Alice sees the agent arrive",
      async () =>
        (await seen(alice.page)).find(
          (e) => e.id === "agt_web_walker" && e.tx === dest![0] && e.ty === dest![1],
        ),
      20_000,
    );
    expect(agent.kind).toBe("agent");
  });

  it("clicking a sign walks there and shows its text, all decided by the server", async () => {
    await alice.page.keyboard.press("Escape");
    const sign = { id: "obj_sign_welcome", text: "Welcome to OpenClawWorld!" };
    const objects = await alice.page.evaluate(() => fetch("/world/maps/lobby.json").then((r) => r.json()));
    const layer = (
      objects as { layers: { type: string; objects?: { name: string; x: number; y: number }[] }[] }
    ).layers.find((l) => l.type === "objectgroup")!;
    const at = layer.objects!.find((o) => `obj_${o.name}` === sign.id)!;
    const tile = { tx: Math.floor(at.x / 32), ty: Math.floor(at.y / 32) };
    // Bring the sign on screen first (walk near it), then click it like a person would.
    const near = [
      [tile.tx, tile.ty + 2],
      [tile.tx, tile.ty + 1],
      [tile.tx - 1, tile.ty + 1],
      [tile.tx + 1, tile.ty + 1],
    ].find(([tx, ty]) => !blocked(tx!, ty!))!;
    await ocw(
      alice.page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: near[0], ty: near[1] } } })})`,
    );
    await until("Alice near the sign", async () => {
      const now = await me(alice.page);
      return Math.abs(now.tx - tile.tx) <= 3 && Math.abs(now.ty - tile.ty) <= 3;
    });
    const point = await settledPoint(alice.page, tile.tx, tile.ty);
    await alice.page.mouse.click(point.x, point.y);
    await expect
      .poll(() => alice.page.locator("#dialog-text").textContent(), { timeout: 15_000 })
      .toBe(sign.text);
    expect(await alice.page.locator("#dialog").isVisible()).toBe(true);
    await alice.page.click("#dialog-close");
  });

  it("reconnects by itself after a dropped connection and keeps the same character", async () => {
    const before = await ocw<string>(bob.page, "entityId");
    const states: string[] = [];
    await ocw(bob.page, "dropConnection()");
    await until("Bob reconnected", async () => {
      const s = await ocw<string>(bob.page, "status");
      states.push(s);
      return s === "online" && states.includes("reconnecting");
    });
    expect(await bob.page.locator("#conn").getAttribute("data-state")).toBe("online");
    expect(await ocw<string>(bob.page, "entityId")).toBe(before);
    const roster = await ocw<{ id: string }[]>(alice.page, "roster()");
    expect(roster.some((r) => r.id === before)).toBe(true);
  });

  it("a world whose tile image does not load says so, not that its map has no tileset", async () => {
    const tess = await watchedPage(browser);
    try {
      await tess.page.route("**/world/tiles.png", (route) => route.fulfill({ status: 404, body: "" }));
      await tess.page.goto(`${gateway().baseUrl}/world/?name=Tess`);
      const notice = await until("the notice", async () =>
        (await ocw<{ text: string; kind: string }[]>(tess.page, "notices()")).find((n) =>
          n.text.includes("tile image"),
        ),
      );
      expect(notice).toEqual({
        kind: "error",
        text: "this world's tile image (/world/tiles.png) did not load, so its map cannot be drawn",
      });
    } finally {
      await tess.page.context().close();
    }
  });

  it("had no console errors in either browser", async () => {
    await mkdir(".test-artifacts", { recursive: true });
    await alice.page.screenshot({ path: ".test-artifacts/web-two-browsers.png" });
    expect(alice.consoleErrors).toEqual([]);
    expect(bob.consoleErrors).toEqual([]);
  });
});
