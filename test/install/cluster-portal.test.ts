// Portals between gateways (#28): two real gateways and one real nats-server, each gateway owning a
// different world (a cluster room), each world with a portal to the other. An agent walks onto the
// portal on A over AIC, is handed over to B's world (through the transfer stream), and A answers its
// next request with the typed redirect to B; the tools' remote mode pointed at A follows it and acts
// on B. Both gateways' status directories list both rooms. Then a person joined in a real chromium
// on A walks onto the same portal: the page is sent on to B's page with a one-time claim, joins
// there as the same person at the portal's target tile, and the agent on B sees them; the same link
// opened again is refused with the typed error.
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { aicCall, launchClusterGateway, until } from "../../scripts/lib/cluster.ts";
import { freePort, type LaunchedGateway, randomToken } from "../../scripts/lib/gateway.ts";
import { buildWebIfNeeded } from "../../scripts/lib/web-build.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { BUNDLED_WORLD_DIR } from "../../src/runtime/load-world-dir.ts";
import { RemoteAicClient } from "../../src/tools/remote-client.ts";
import { portalWorldFiles } from "../../src/world/testing/fixtures.ts";
import { launchBrowser, ocw, until as pageUntil, watchedPage } from "../support/browser.ts";
import { startNats, type TestNats } from "../support/test-nats.ts";
import { writeWorldDir } from "../support/world-dir.ts";

const AGENT = "agent_traveller";
const TOKEN = randomToken();

let nats: TestNats | undefined;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
const roots: string[] = [];
const gateways: LaunchedGateway[] = [];

afterAll(async () => {
  await browser?.close();
  for (const gw of gateways) await gw.stop().catch(() => undefined);
  await nats?.stop();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A gateway owning world `name` (room `roomId`), whose portal leads to `toRoom` of world `toWorld`.
 * Both worlds' rooms are "lobby": the plugin's default room (config `defaultRoomId`). */
async function launch(gatewayId: string, name: string, roomId: string, toWorld: string, toRoom: string) {
  const root = await mkdtemp(path.join(os.tmpdir(), `ocw-portal-${gatewayId}-`));
  roots.push(root);
  const worldDir = path.join(root, "world");
  await writeWorldDir(worldDir, portalWorldFiles(name, roomId, toWorld, toRoom));
  // The page draws the map with the world's tileset (`/world/tiles.png`), which the fixture does not
  // write: without it the page joins but shows nobody (its `me()` stays empty).
  await copyFile(path.join(BUNDLED_WORLD_DIR, "tiles.png"), path.join(worldDir, "tiles.png"));
  const gw = await launchClusterGateway({
    natsUrl: nats!.url,
    gatewayId,
    stateRoot: path.join(root, "gateway"),
    port: await freePort(),
    gatewayToken: randomToken(),
    room: name,
    worldDir,
    // Nothing here is a failover (cluster.test.ts tests those), and a failover ends a browser's
    // session (no resume tokens in cluster mode, docs/cluster.md): a lease that lapses under a
    // stalled event loop (3 s did at load 8-21) would make the arrived person's page join anew.
    leaseTtlMs: 10_000,
    snapshotEveryTicks: 1200,
    agents: { [AGENT]: { token: TOKEN, name: "Traveller" } },
  });
  gateways.push(gw);
  return gw;
}

async function adminDirectory(gw: LaunchedGateway): Promise<unknown> {
  const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
  });
  const body = (await res.json()) as { data?: { cluster?: { directory?: unknown } } };
  return body.data?.cluster?.directory;
}

/** The gateway's directory once it lists both rooms, each with its lease held: on a busy machine a
 * lease may lapse while a gateway starts (or later), and be taken again. */
function everyRoomLive(gw: LaunchedGateway): Promise<unknown[]> {
  return until(`${gw.baseUrl}'s directory to list both rooms live`, async () => {
    const listed = (await adminDirectory(gw)) as unknown[] | undefined;
    return listed?.length === 2 && listed.every((e) => (e as { live?: boolean }).live) ? listed : undefined;
  });
}

describe("cluster: a portal from a world on one gateway to a world on another", () => {
  it("hands an agent over to the other gateway, which it then reaches through a redirect; a person's browser follows", {
    timeout: 600_000,
  }, async () => {
    // The gateways' logs outlive a failure (their directories are removed after the run).
    onTestFailed(async () => {
      await mkdir(".test-artifacts", { recursive: true });
      for (const gw of gateways)
        for (const log of [gw.logFile, gw.openclawLogFile])
          await copyFile(log, `.test-artifacts/cluster-portal-${gw.port}-${path.basename(log)}`).catch(
            (error: Error) => console.error(`${log} not kept: ${error.message}`),
          );
    });
    await buildWebIfNeeded();
    nats = await startNats();
    const [a, b] = await Promise.all([
      launch("gw-a", "north", "lobby", "south", "lobby"),
      launch("gw-b", "south", "lobby", "north", "lobby"),
    ]);

    // Both gateways' directories list both rooms, each served by its own gateway.
    const both = [
      { room: "north", gatewayId: "gw-a", baseUrl: a.baseUrl, live: true },
      { room: "south", gatewayId: "gw-b", baseUrl: b.baseUrl, live: true },
    ];
    for (const gw of [a, b]) expect(await everyRoomLive(gw)).toMatchObject(both);

    // The agent joins north on A and walks onto its portal.
    const joined = await aicCall(a.baseUrl, TOKEN, "join", { agentId: AGENT, roomId: "lobby" });
    expect(JSON.parse(joined.text), joined.text).toMatchObject({ status: "ok" });
    const walk = await aicCall(a.baseUrl, TOKEN, "moveTo", {
      agentId: AGENT,
      roomId: "lobby",
      dest: { tx: 8, ty: 4 },
      txId: "tx_portal-walk-1",
    });
    expect(JSON.parse(walk.text), walk.text).toMatchObject({ status: "ok" });

    // A answers its next request with the redirect to B (307 + room_not_ready naming B).
    const redirect = await until("A to send the traveller to B", async () => {
      const res = await fetch(`${a.baseUrl}/aic/v0.1/observe`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ agentId: AGENT, roomId: "lobby", radius: 5, detail: "lite" }),
      });
      const body = (await res.json()) as unknown;
      return res.status === 307 ? { location: res.headers.get("location"), body } : undefined;
    });
    expect(redirect.location).toBe(`${b.baseUrl}/aic/v0.1/observe`);
    expect(checkResponse("ObserveResponseData", redirect.body)).toEqual([]);
    expect(redirect.body).toMatchObject({
      status: "error",
      error: {
        code: "room_not_ready",
        details: { world: "south", owner: { gatewayId: "gw-b", room: "south" } },
      },
    });

    // The tools' remote mode, configured for A, follows it and acts on B: the traveller is in south's lobby.
    const remote = new RemoteAicClient(
      resolveConfig({ remote: { baseUrl: `${a.baseUrl}/aic/v0.1`, apiKey: TOKEN, defaultAgentId: AGENT } })
        .remote!,
    );
    const signal = new AbortController().signal;
    const seen = await remote.call(
      "observe",
      AGENT,
      { agentId: AGENT, roomId: "lobby", radius: 5, detail: "lite" },
      signal,
    );
    expect(seen, JSON.stringify(seen)).toMatchObject({
      status: "ok",
      data: { self: { id: `agt_${AGENT}`, roomId: "lobby", tile: { tx: 3, ty: 3 } } },
    });
    const said = await remote.call(
      "chatSend",
      AGENT,
      {
        agentId: AGENT,
        roomId: "lobby",
        channel: "global",
        message: "hello from the north",
        txId: "tx_portal-chat-1",
      },
      signal,
    );
    expect(said, JSON.stringify(said)).toMatchObject({ status: "ok" });
    const onB = await aicCall(b.baseUrl, TOKEN, "chatObserve", {
      agentId: AGENT,
      roomId: "lobby",
      windowSec: 60,
    });
    expect(onB.text).toContain("hello from the north");

    // A person in chromium on A walks onto the portal; the page follows them to B.
    browser = await launchBrowser();
    const { page, consoleErrors } = await watchedPage(browser);
    // The travel link is in the address only for its page load (the page drops it once answered):
    // kept from the request, to try it a second time below.
    const travelLinks: string[] = [];
    page.on("request", (request) => {
      if (request.isNavigationRequest() && new URL(request.url()).searchParams.has("claim"))
        travelLinks.push(request.url());
    });
    // Every join the page sends and every socket's close, on both origins (the failure lists them).
    const sockets: string[] = [];
    page.on("websocket", (ws) => {
      ws.on("framesent", ({ payload }) => {
        if (typeof payload === "string" && payload.includes('"join"'))
          sockets.push(`${ws.url()} sent ${payload.replace(/"(claim|resumeToken)":"[^"]*"/g, '"$1":"…"')}`);
      });
      ws.on("close", () => sockets.push(`${ws.url()} closed`));
    });
    // Where the page is, whom it shows and what it sent, if it never gets where it should.
    onTestFailed(async () => {
      const seen = await page
        .evaluate(`(() => {
          const o = window.__ocw;
          if (!o) return "no page script";
          const who = (list) => list.map((e) => e.id + " " + JSON.stringify(e.name));
          return {
            status: o.status,
            entityId: o.entityId,
            name: o.name(),
            me: o.me() ?? null,
            entities: who(o.entities()),
            roster: who(o.roster()),
            errors: o.errors(),
            notices: o.notices(),
            wire: o.wireStats(),
          };
        })()`)
        .catch((error: Error) => `unreadable: ${error.message}`);
      const humansOnB = await aicCall(b.baseUrl, TOKEN, "observe", {
        agentId: AGENT,
        roomId: "lobby",
        radius: 200,
        detail: "lite",
      }).then(
        (res) => res.text,
        (error: Error) => error.message,
      );
      console.error(
        `the page is at ${page.url()}: ${JSON.stringify(seen, null, 1)}\nits sockets:\n${sockets.join("\n")}\nthe agent on B observes: ${humansOnB}`,
      );
    });
    // On a busy machine a gateway may lose its lease for a moment and stand by until it takes the
    // room again, answering its page with a 503 meanwhile: both rooms live again, then the page is
    // opened until it is the world's.
    for (const gw of [a, b]) await everyRoomLive(gw);
    await until("Wren to be in north's lobby on A", async () => {
      if (!page.url().startsWith(`${a.baseUrl}/world/`)) await page.goto(`${a.baseUrl}/world/?name=Wren`);
      // In the room and drawn there: the page's own person on its map.
      const room = await ocw<string | undefined>(page, "roomId").catch(() => undefined);
      const me = await ocw<{ name: string } | undefined>(page, "me()").catch(() => undefined);
      if (room === "lobby" && me?.name === "Wren") return true;
      // A page that did not start (the room was not served yet) is loaded again.
      const started = await page
        .waitForFunction("typeof window.__ocw === 'object'", undefined, { timeout: 5_000 })
        .then(() => true)
        .catch(() => false);
      if (!started) await page.goto(`${a.baseUrl}/world/?name=Wren`);
      return undefined;
    });
    const wrenOnA = await ocw<string>(page, "entityId");
    await ocw(
      page,
      `send(${JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: 8, ty: 4 } } })})`,
    );
    const onBPage = await pageUntil(
      "the page to join on B as Wren",
      async () => {
        if (new URL(page.url()).origin !== new URL(b.baseUrl).origin) return undefined;
        // Read between page loads, the old page's context may be gone: try again.
        const me = await ocw<{ id: string; name: string; tx: number; ty: number } | undefined>(
          page,
          "me()",
        ).catch(() => undefined);
        return me?.name === "Wren" ? me : undefined;
      },
      // Bounded by what it waits on (A's walk, the transfer's publish, B's arrival tick, a page
      // load), generously: none of it is a speed claim.
      120_000,
    );
    // The same person (the world keeps its id across the handoff), at the portal's target tile, on
    // B's page, whose address no longer holds the one-time claim.
    expect(onBPage).toMatchObject({ id: wrenOnA, name: "Wren", tx: 3, ty: 3 });
    expect(page.url().startsWith(`${b.baseUrl}/world/`)).toBe(true);
    expect(new URL(page.url()).searchParams.has("claim")).toBe(false);
    expect(await ocw<string>(page, "status")).toBe("online");
    expect(await ocw<string>(page, "roomId")).toBe("lobby");
    expect(travelLinks).toHaveLength(1);
    expect(travelLinks[0]!.startsWith(`${b.baseUrl}/world/?claim=`)).toBe(true);

    // B's world has Wren, as the agent there sees: the same entity, a human, at the target tile.
    const wrenSeen = await until("the agent on B to see Wren", async () => {
      const seen = await aicCall(b.baseUrl, TOKEN, "observe", {
        agentId: AGENT,
        roomId: "lobby",
        radius: 200,
        detail: "lite",
      });
      const data = (JSON.parse(seen.text) as { data?: { nearby?: { entity: Record<string, unknown> }[] } })
        .data;
      return data?.nearby?.find((n) => n.entity.name === "Wren")?.entity;
    });
    expect(wrenSeen).toMatchObject({
      id: wrenOnA,
      kind: "human",
      roomId: "lobby",
      tile: { tx: 3, ty: 3 },
    });

    // The same travel link a second time (another browser, nothing of the first one's): refused
    // with the typed error, the join form shown, and nobody new in B's world.
    const second = await watchedPage(browser);
    await second.page.goto(travelLinks[0]!);
    const refused = await pageUntil("the used travel link to be refused", async () => {
      const errors = await ocw<{ code: string; message: string }[]>(second.page, "errors()");
      return errors.find((e) => e.code === "claim_invalid");
    });
    expect(refused.message).toMatch(/already used/);
    await pageUntil("the join form", () =>
      second.page.evaluate(() => document.body.dataset.phase === "join"),
    );
    expect(await second.page.locator("#join-error").textContent()).toMatch(/already used/);
    expect(await ocw<string | undefined>(second.page, "entityId")).toBeUndefined();
    expect(new URL(second.page.url()).searchParams.has("claim")).toBe(false);
    await second.page.context().close();
    const humansOnB = await aicCall(b.baseUrl, TOKEN, "observe", {
      agentId: AGENT,
      roomId: "lobby",
      radius: 200,
      detail: "lite",
    });
    const nearby = (JSON.parse(humansOnB.text) as { data: { nearby: { entity: { kind: string } }[] } }).data
      .nearby;
    expect(nearby.filter((n) => n.entity.kind === "human")).toHaveLength(1);
    expect(consoleErrors).toEqual([]);
  });
});
