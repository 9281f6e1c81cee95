// Issue #42 through the real gateway and a real Chromium: an agent walks and talks; the operator gets
// a replay link (gateway token), opens the replay page, scrubs to a tick the agent was observed at and
// sees it drawn where the live world had it, and finds its chat on the timeline. Following the agent,
// the page lists its turns (what it asked, what it was answered, the conflict it was refused with)
// and a click on its chat's turn jumps to the tick the chat was said. A resident (the Herald, through
// the gateway's own agent loop and the scripted model) answers the agent: following it, the page shows
// its turn (what woke it, its model's time) and the chat it answered with, at that chat's tick. The
// operator CLI reads the same turns. Without the link's key nothing is read. One tick drawn live and
// replayed is the same picture, people's picked looks included.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import {
  drawnFrames,
  launchBrowser,
  lobbyBlocked,
  me,
  ocw,
  openPlayer,
  type SeenActor,
  until,
  watchedPage,
} from "../support/browser.ts";
import { runOcw } from "../support/ocw-cli.ts";
import { joinPerson } from "../support/person.ts";
import { scriptedModelClient } from "../support/scripted-model.ts";
import { E2E_FORMAT_RESIDENTS, gateway, leaveWhenDone } from "./fixtures.ts";
import { answer, betweenTurns, heardFrom, residentStatus, TURN_MS } from "./resident-calls.ts";

const AGENT = "agent_replay";
const ENTITY = `agt_${AGENT}`;
const HERALD = E2E_FORMAT_RESIDENTS.anthropic;
const browser = launchBrowser();
afterAll(async () => (await browser).close());

async function call(endpoint: string, body: Record<string, unknown>, expected = "ok") {
  const res = await fetch(`${gateway().baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${gateway().agents[AGENT]!.token}`,
    },
    body: JSON.stringify({ agentId: AGENT, roomId: "lobby", ...body }),
  });
  const answer = (await res.json()) as { status: string; data: Record<string, unknown> };
  expect(answer.status, `${endpoint}: ${JSON.stringify(answer)}`).toBe(expected);
  return answer.data;
}

async function operator(method: "GET" | "POST", route: string, token = gateway().gatewayToken) {
  return fetch(`${gateway().baseUrl}/openclawworld/admin${route}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });
}

interface Turn {
  seq: number;
  tick: number;
  kind: string;
  name: string;
  status: string;
  request: string;
  answer: string;
}

interface Observed {
  self: { tile: { tx: number; ty: number } };
  serverTsMs: number;
}

leaveWhenDone(AGENT);

/** A normal click (Playwright checks nothing covers the point) on the timeline's marker of `kind` at
 * `tick`: the marker itself, or, when markers near it are drawn as one cluster, the cluster and then
 * its entry. */
async function clickMarker(page: Page, kind: string, tick: number): Promise<void> {
  const own = page.locator(`#replay-markers > button[data-kind="${kind}"][data-tick="${tick}"]`);
  if ((await own.count()) > 0) return own.click();
  await page.locator(`#replay-markers > button.marker-cluster[data-ticks~="${tick}"]`).click();
  await page
    .locator(`#replay-markers .marker-cluster-list button[data-kind="${kind}"][data-tick="${tick}"]`)
    .click();
}

/** Moves the replay page's timeline to `tick`, as a person dragging it does. */
function scrubTo(page: Page, tick: number): Promise<void> {
  return page.evaluate((t) => {
    const scrub = document.getElementById("replay-scrub") as HTMLInputElement;
    scrub.value = String(t);
    scrub.dispatchEvent(new Event("change"));
  }, tick);
}

describe("issue #42: the replay page on the real gateway", () => {
  // A resident's turn may take long on a busy machine (TURN_MS), and the rest about a minute.
  it("shows the room as it was at a tick, with the agent's chat on the timeline", async () => {
    await call("join", {});
    const start = (await call("observe", { radius: 5, detail: "lite" })) as unknown as Observed;
    // Two moves to free tiles nearby (read from the map the gateway serves), and a chat.
    const map = (await (await fetch(`${gateway().baseUrl}/world/maps/lobby.json`)).json()) as {
      width: number;
      layers: { name: string; data?: number[] }[];
    };
    const collision = map.layers.find((l) => l.name === "collision")!.data!;
    const free = (tx: number, ty: number) => collision[ty * map.width + tx] === 0;
    const { tx, ty } = start.self.tile;
    const dest = [
      { tx: tx + 2, ty },
      { tx: tx - 2, ty },
      { tx, ty: ty + 2 },
      { tx, ty: ty - 2 },
    ].find((t) => free(t.tx, t.ty))!;
    await call("moveTo", { dest, txId: `tx_replay_${Date.now()}` });
    const arrived = await until("the agent arrives", async () => {
      const seen = (await call("observe", { radius: 5, detail: "lite" })) as unknown as Observed;
      return seen.self.tile.tx === dest.tx && seen.self.tile.ty === dest.ty ? seen : undefined;
    });
    const said = `replay me ${Date.now()}`;
    const chatTx = `tx_replay_chat_${Date.now()}`;
    await call("chatSend", { channel: "global", message: said, txId: chatTx });
    // The same txId with other words: refused (conflict), and kept as such in its turns.
    await call("chatSend", { channel: "global", message: `${said}!`, txId: chatTx }, "error");

    // The Herald, called by name, answers the agent; its turn is recorded once it has ended.
    const heraldSays = `Heard you, replay ${Date.now()}.`;
    await scriptedModelClient(gateway().modelOrigin).define("replay-hello", answer(heraldSays));
    await betweenTurns(HERALD.agentId);
    const turnsBefore = (await residentStatus(HERALD.agentId)).lastTurn?.startedAtMs ?? 0;
    await call("chatSend", {
      channel: "global",
      message: `${HERALD.config.name}, hello ocw-scenario:replay-hello`,
      txId: `tx_replay_herald_${Date.now()}`,
    });
    await until("the Herald answers", () => heardFrom(HERALD.entityId, AGENT, heraldSays), TURN_MS);
    await until(
      "the Herald's turn has ended",
      async () => {
        const turn = (await residentStatus(HERALD.agentId)).lastTurn;
        return !!turn && turn.startedAtMs! > turnsBefore && !!turn.endedAtMs;
      },
      TURN_MS,
    );

    // Not for anyone without the gateway token, nor the page's API without a link's key.
    expect((await operator("POST", "/replay/link", "not-the-token")).status).toBe(401);
    expect((await fetch(`${gateway().baseUrl}/openclawworld/replay/api/`)).status).toBe(401);
    const link = ((await (await operator("POST", "/replay/link")).json()) as { data: { url: string } }).data;

    // The tick the arrival was observed at, from the history's own tick/time.
    const overview = (
      (await (await operator("GET", "/replay")).json()) as {
        data: { tickRate: number; stretches: { segment: number; lastTick: number; lastTime: number }[] };
      }
    ).data;
    const latest = overview.stretches[overview.stretches.length - 1]!;
    const tickAt = (ts: number) => latest.lastTick - ((latest.lastTime - ts) * overview.tickRate) / 1000;
    const arrivedTick = tickAt(arrived.serverTsMs);
    expect(Number.isInteger(arrivedTick)).toBe(true);

    const { page, consoleErrors } = await watchedPage(await browser);
    await page.goto(link.url);
    // It opens on the last five minutes of the newest timeline.
    await until("the replay draws a frame", () =>
      page.evaluate("Boolean(window.ocwReplay && window.ocwReplay.frame)"),
    );
    const markers = (await page.evaluate("window.ocwReplay.markers")) as {
      tick: number;
      kind: string;
      who?: string;
      text: string;
      words?: string;
    }[];
    const chat = markers.find((m) => m.kind === "chat" && m.text === said);
    expect(chat?.who).toBe(ENTITY);
    // Markers are words, names not ids: the chat's, and every line of the page's list.
    expect(chat?.words?.endsWith(` said "${said}"`), chat?.words).toBe(true);
    expect(chat?.words).not.toMatch(/\b(agt|hum)_/);
    const lines = await page.locator("#replay-events li").allTextContents();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => /\b(agt|hum)_/.test(line))).toEqual([]);

    // Scrub to the observed tick: the agent is drawn on the tile the live world had it on.
    await scrubTo(page, arrivedTick);
    const drawn = await until("the page shows the observed tick", async () => {
      const tick = await page.evaluate("window.ocwReplay.tick");
      if (tick !== arrivedTick) return undefined;
      const actors = (await page.evaluate("window.ocwReplay.drawn()")) as {
        id: string;
        tx: number;
        ty: number;
      }[];
      return actors.find((a) => a.id === ENTITY);
    });
    expect({ tx: drawn.tx, ty: drawn.ty }).toEqual(dest);

    // A click on the chat's marker jumps to the tick it was said at. The Herald's turn starts a few
    // ticks on; markers drawn that close share one cluster marker, and each is reached by a normal
    // click (the cluster, then its entry).
    const heraldWoke = markers.find(
      (m) => m.kind === "turn" && m.who === HERALD.entityId && m.tick >= chat!.tick,
    )!;
    // Drawn closer than a marker's width apart (a long timeline: the whole suite's), they share a
    // cluster; on a short one (this file alone) each is its own marker. Either way a normal click.
    const bar = (await page.locator("#replay-markers").boundingBox())!;
    const span = (await page.evaluate("window.ocwReplay.to - window.ocwReplay.from")) as number;
    if (((heraldWoke.tick - chat!.tick) / span) * bar.width < 6) {
      const cluster = page.locator(`#replay-markers > button.marker-cluster[data-ticks~="${chat!.tick}"]`);
      expect((await cluster.getAttribute("data-ticks"))?.split(" ")).toContain(String(heraldWoke.tick));
    }
    await clickMarker(page, "turn", heraldWoke.tick);
    await until(
      "the page jumps to the Herald's turn",
      async () => (await page.evaluate("window.ocwReplay.tick")) === heraldWoke.tick,
    );
    await clickMarker(page, "chat", chat!.tick);
    await until(
      "the page jumps to the chat",
      async () => (await page.evaluate("window.ocwReplay.tick")) === chat!.tick,
    );
    // Step one tick on.
    await page.click("#replay-step");
    await until("one tick on", async () => (await page.evaluate("window.ocwReplay.tick")) === chat!.tick + 1);

    // Follow the agent: its turns, as served, beside the replay.
    await page.selectOption("#replay-agent", AGENT);
    const turns = await until("the agent's turns are listed", async () => {
      const listed = (await page.evaluate("window.ocwReplay.turns")) as Turn[];
      return listed.some((t) => t.status === "conflict") ? listed : undefined;
    });
    const spoke = turns.find((t) => t.name === "chatSend" && t.status === "ok")!;
    expect(JSON.parse(spoke.request)).toMatchObject({ message: said, txId: chatTx });
    expect(spoke.tick).toBe(chat!.tick);
    const refused = turns.find((t) => t.status === "conflict")!;
    expect(JSON.parse(refused.answer)).toMatchObject({ code: "conflict" });
    // What it was shown: the observe that saw it arrive, answered as it was served.
    const saw = turns.find(
      (t) => t.name === "observe" && JSON.parse(t.answer).serverTsMs === arrived.serverTsMs,
    );
    expect(JSON.parse(saw!.answer).self.tile).toEqual(dest);
    expect(await page.locator(`#replay-turns li[data-ok="false"]`).count()).toBeGreaterThan(0);
    // Its turns in words, names and no ids: "Replay Bot called chatSend (3 ms)".
    const summaries = await page.locator("#replay-turns summary").allTextContents();
    expect(summaries.filter((line) => /\b(agt|hum)_/.test(line))).toEqual([]);
    expect(summaries).toContainEqual(
      expect.stringMatching(/^\d+: Replay Bot called chatSend \(\d+ ms, refused: conflict\)$/),
    );
    await page.click("#replay-step");
    // (Its refusal answered on the same tick: the markers overlap; the panel lists each.)
    await page.click(`#replay-turns li[data-seq="${spoke.seq}"] summary`);
    await until(
      "the turn's marker jumps to the chat",
      async () => (await page.evaluate("window.ocwReplay.tick")) === chat!.tick,
    );

    // Follow the resident: the turn the agent's words woke, and the chat it answered with, at the tick
    // that chat was said.
    const heraldChat = markers.find((m) => m.kind === "chat" && m.text === heraldSays);
    expect(heraldChat?.who).toBe(HERALD.entityId);
    await page.selectOption("#replay-agent", HERALD.agentId);
    const heraldTurns = await until("the Herald's turns are listed", async () => {
      const listed = (await page.evaluate("window.ocwReplay.turns")) as Turn[];
      return listed.some((t) => t.kind === "turn") ? listed : undefined;
    });
    const woke = heraldTurns.filter((t) => t.kind === "turn").at(-1)!;
    expect(woke.status).toBe("ok");
    expect(JSON.parse(woke.request).wokenBy).toContainEqual(
      expect.objectContaining({ fromEntityId: ENTITY, roomId: "lobby" }),
    );
    expect(JSON.parse(woke.answer).modelRequests).toBeGreaterThan(0);
    expect((woke as Turn & { words: string }).words).toMatch(/ took a turn woken by Replay Bot \(/);
    const replied = heraldTurns.find(
      (t) => t.name === "chatSend" && t.status === "ok" && JSON.parse(t.request).message === heraldSays,
    )!;
    expect(replied.tick).toBe(heraldChat!.tick);
    await page.click(`#replay-turns li[data-seq="${replied.seq}"] summary`);
    await until(
      "the resident's turn jumps to the chat it answered with",
      async () => (await page.evaluate("window.ocwReplay.tick")) === heraldChat!.tick,
    );
    expect(consoleErrors).toEqual([]);

    // The operator CLI reads the same turns from the gateway.
    const printed = await runOcw(gateway().baseUrl, gateway().gatewayToken, "replay", "turns", AGENT, "30");
    const fromCli = (JSON.parse(printed) as { turns: Turn[] }).turns;
    expect(fromCli.find((t) => t.seq === refused.seq)).toMatchObject({
      status: "conflict",
      name: "chatSend",
    });

    // Export the stretch with the CLI, open the file with the CLI: the page shows the file, and its
    // frame at the chat's tick is the world's.
    const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-replay-export-"));
    try {
      const file = path.join(dir, "stretch.json");
      const cli = (...args: string[]) => runOcw(gateway().baseUrl, gateway().gatewayToken, ...args);
      // The last 3 minutes (the agent's and the Herald's turns are within them): opening a file
      // re-simulates all of it, and the shared gateway's history grows with every e2e file before this.
      const exported = JSON.parse(await cli("replay", "export", file, "3")) as {
        format: string;
        run: { from: number; to: number; agentTurns: number };
      };
      expect(exported.format).toBe("openclawworld.replay-export.v1");
      expect(exported.run.from).toBeLessThanOrEqual(chat!.tick);
      expect(exported.run.agentTurns).toBeGreaterThan(0);
      const opened = JSON.parse(await cli("replay", "open", file)) as {
        file: string;
        link: { url: string };
      };
      const frameAt = async (extra: string) =>
        (
          (await (await operator("GET", `/replay/frame?tick=${chat!.tick}&room=lobby${extra}`)).json()) as {
            data: unknown;
          }
        ).data;
      expect(await frameAt(`&file=${opened.file}`)).toEqual(await frameAt(""));
      await page.goto(opened.link.url);
      await page.reload();
      await until(
        "the page shows the opened file",
        async () =>
          ((await page.textContent("#replay-source")) ?? "").includes(opened.file) &&
          (await page.evaluate("Boolean(window.ocwReplay.frame)")),
        60_000,
      );
      const fileMarkers = (await page.evaluate("window.ocwReplay.markers")) as {
        kind: string;
        text: string;
        tick: number;
      }[];
      expect(fileMarkers.find((m) => m.kind === "chat" && m.text === said)?.tick).toBe(chat!.tick);
      // Another format is refused with its reason.
      const refusedOpen = await fetch(`${gateway().baseUrl}/openclawworld/admin/replay/open`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway().gatewayToken}`, "content-type": "application/json" },
        body: JSON.stringify({ format: "openclawworld.snapshot.v1" }),
      });
      expect(refusedOpen.status).toBe(422);
      expect(((await refusedOpen.json()) as { error: { code: string } }).error.code).toBe("other_format");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(consoleErrors).toEqual([]);
  }, 420_000);

  // One renderer for live and replay: a stretch of the lobby as a person's page drew it, and the same
  // tick replayed, compared pixel by pixel around a person (with the look they picked) and an agent.
  it("draws a tick as the live page drew it: people's looks, tags, the map", async () => {
    const { baseUrl } = gateway();
    const blocked = await lobbyBlocked(baseUrl);
    const viewer = await openPlayer(await browser, baseUrl, "Vera");
    const lumenName = `Lumen ${Date.now() % 10_000}`;
    const lumen = await joinPerson(baseUrl, lumenName, 5);
    try {
      await call("join", {});
      // Two tiles on one row, a few tiles east or west of Vera (her ring and tag stay out of the
      // compared box), with free tiles around them and nobody else near: someone another file left
      // standing there may turn away between the live look and the replayed tick.
      const vera = await me(viewer.page);
      const others = (await ocw<SeenActor[]>(viewer.page, "entities()")).filter((e) => e.id !== vera.id);
      const spot = [4, 5, 6, 7, -5, -6, -7, -8, 9, -10, 11, -12]
        .map((dx) => ({ tx: vera.tx + dx, ty: vera.ty }))
        .find(({ tx, ty }) => {
          for (let x = tx - 1; x <= tx + 3; x++)
            for (let y = ty - 2; y <= ty + 1; y++) if (blocked(x, y)) return false;
          return !others.some((e) => e.tx >= tx - 3 && e.tx <= tx + 5 && e.ty >= ty - 4 && e.ty <= ty + 3);
        });
      if (!spot) throw new Error(`no free stretch of the lobby beside Vera at (${vera.tx}, ${vera.ty})`);
      const agentSpot = { tx: spot.tx + 2, ty: spot.ty };
      lumen.walkTo(spot.tx, spot.ty);
      await call("moveTo", { dest: agentSpot, txId: `tx_replay_look_${Date.now()}` });
      const lumenId = await until(
        "Vera's page shows Lumen and the agent where they went",
        async () => {
          const seen = await ocw<SeenActor[]>(viewer.page, "entities()");
          const l = seen.find((e) => e.name === lumenName);
          const a = seen.find((e) => e.id === ENTITY);
          return (
            l?.tx === spot.tx && l.ty === spot.ty && a?.tx === agentSpot.tx && a.ty === agentSpot.ty && l.id
          );
        },
        40_000,
      );
      const box = { tx0: spot.tx - 1, ty0: spot.ty - 2, tx1: agentSpot.tx + 1, ty1: spot.ty + 1 };
      // The live picture: two looks that agree (nothing moving in the box), the tick between them.
      const overviewNow = async () =>
        (
          (await (await operator("GET", "/replay")).json()) as {
            data: { tickRate: number; stretches: { lastTick: number; lastTime: number }[] };
          }
        ).data;
      const live = await until(
        "a still live picture",
        async () => {
          const first = await pixels(viewer.page, "__ocw", box);
          const seen = (await call("observe", { radius: 2, detail: "lite" })) as unknown as Observed;
          await drawnFrames(viewer.page, 3); // two reads within one frame agree while all moves
          const second = await pixels(viewer.page, "__ocw", box);
          return differing(first, second) === 0 && { picture: second, serverTsMs: seen.serverTsMs };
        },
        30_000,
      );
      const overview = await overviewNow();
      const latest = overview.stretches[overview.stretches.length - 1]!;
      const tick = latest.lastTick - ((latest.lastTime - live.serverTsMs) * overview.tickRate) / 1000;

      const link = ((await (await operator("POST", "/replay/link")).json()) as { data: { url: string } })
        .data;
      const { page, consoleErrors } = await watchedPage(await browser, {
        viewport: { width: 1280, height: 800 },
      });
      await page.goto(link.url);
      await until("the replay draws a frame", () =>
        page.evaluate("Boolean(window.ocwReplay && window.ocwReplay.frame)"),
      );
      await page.selectOption("#replay-agent", AGENT); // the camera stays on it
      await scrubTo(page, tick);
      const drawn = await until("the replay shows the tick", async () => {
        if ((await page.evaluate("window.ocwReplay.tick")) !== tick) return undefined;
        const actors = (await page.evaluate("window.ocwReplay.drawn()")) as SeenActor[];
        return actors.find((a) => a.id === lumenId && a.tx === spot.tx);
      });
      expect(drawn.look).toBe(5); // the look Lumen picked, not one derived from the id
      const replayed = await until("a still replayed picture", async () => {
        const first = await pixels(page, "ocwReplay", box);
        await drawnFrames(page, 3); // the camera follows the agent over a few frames after a jump
        const second = await pixels(page, "ocwReplay", box);
        return differing(first, second) === 0 && second;
      });
      expect(replayed.width).toBe(live.picture.width);
      // Measured: 4 pixels of 27,648 differ (0.01 %); a person drawn with another look, 679 (2.5 %).
      const share = differing(live.picture, replayed) / (replayed.width * replayed.height);
      if (share >= 0.005) {
        // Kept for whoever reads the failure: both pages as they were, and what each drew.
        await mkdir(".test-artifacts", { recursive: true });
        await viewer.page.screenshot({ path: ".test-artifacts/replay-live.png" });
        await page.screenshot({ path: ".test-artifacts/replay-replayed.png" });
        const png = (picture: Picture) => Buffer.from(picture.png.split(",")[1]!, "base64");
        await writeFile(".test-artifacts/replay-live-box.png", png(live.picture));
        await writeFile(".test-artifacts/replay-replayed-box.png", png(replayed));
        console.log("live vs replay", {
          box,
          at: { live: [live.picture.x, live.picture.y], replay: [replayed.x, replayed.y] },
          live: await viewer.page.evaluate("window.__ocw.daylight && window.__ocw.daylight()"),
          replay: await page.evaluate("window.ocwReplay.daylight && window.ocwReplay.daylight()"),
        });
      }
      expect(share, `${(share * 100).toFixed(2)} % of the box differs`).toBeLessThan(0.005);
      expect(consoleErrors).toEqual([]);
      await page.close();
    } finally {
      lumen.ws.close(4100, "page closed");
      await viewer.page.close();
    }
  }, 180_000);
});

interface Picture {
  /** Where on the canvas the box begins. */
  x: number;
  y: number;
  width: number;
  height: number;
  rgba: number[];
  /** The same pixels as a PNG data URL (kept when a comparison fails). */
  png: string;
}

/** The canvas pixels between the centres of two tiles as a page draws them (`window[handle]` is the
 * page's window with `screenPoint`: the live page's `__ocw`, the replay's `ocwReplay`). */
function pixels(page: Page, handle: string, box: { tx0: number; ty0: number; tx1: number; ty1: number }) {
  return page.evaluate(
    ({ handle, box }) => {
      const o = (
        window as unknown as Record<string, { screenPoint(tx: number, ty: number): { x: number; y: number } }>
      )[handle]!;
      const a = o.screenPoint(box.tx0, box.ty0);
      const b = o.screenPoint(box.tx1, box.ty1);
      const canvas = document.querySelector("#game canvas") as HTMLCanvasElement;
      const [x, y] = [Math.round(a.x), Math.round(a.y)];
      const [width, height] = [Math.round(b.x) - x, Math.round(b.y) - y];
      const image = canvas.getContext("2d")!.getImageData(x, y, width, height);
      const copy = document.createElement("canvas");
      [copy.width, copy.height] = [width, height];
      copy.getContext("2d")!.putImageData(image, 0, 0);
      return { x, y, width, height, rgba: Array.from(image.data), png: copy.toDataURL("image/png") };
    },
    { handle, box },
  ) as Promise<Picture>;
}

/** How many pixels of two pictures differ by more than a shade in any colour. */
function differing(a: Picture, b: Picture): number {
  if (a.width !== b.width || a.height !== b.height) return Number.POSITIVE_INFINITY;
  let count = 0;
  for (let i = 0; i < a.rgba.length; i += 4)
    if (
      Math.abs(a.rgba[i]! - b.rgba[i]!) > 24 ||
      Math.abs(a.rgba[i + 1]! - b.rgba[i + 1]!) > 24 ||
      Math.abs(a.rgba[i + 2]! - b.rgba[i + 2]!) > 24
    )
      count++;
  return count;
}
