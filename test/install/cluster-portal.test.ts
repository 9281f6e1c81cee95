// Portals between gateways (#28): two real gateways and one real nats-server, each gateway owning a
// different world (a cluster room), each world with a portal to the other. An agent walks onto the
// portal on A over AIC, is handed over to B's world (through the transfer stream), and A answers its
// next request with the typed redirect to B; the tools' remote mode pointed at A follows it and acts
// on B. Both gateways' status directories list both rooms. Then a person joined in a real chromium
// on A walks onto the same portal: the page is sent on to B's page with a one-time claim, joins
// there as the same person at the portal's target tile, and the agent on B sees them.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { aicCall, launchClusterGateway, until } from "../../scripts/lib/cluster.ts";
import { freePort, type LaunchedGateway, randomToken } from "../../scripts/lib/gateway.ts";
import { buildWebIfNeeded } from "../../scripts/lib/web-build.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { RemoteAicClient } from "../../src/tools/remote-client.ts";
import { portalWorldFiles } from "../../src/world/testing/fixtures.ts";
import { launchBrowser, ocw, until as pageUntil, watchedPage } from "../support/browser.ts";
import { startNats, type TestNats } from "../support/nats.ts";
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
  const gw = await launchClusterGateway({
    natsUrl: nats!.url,
    gatewayId,
    stateRoot: path.join(root, "gateway"),
    port: await freePort(),
    gatewayToken: randomToken(),
    room: name,
    worldDir,
    leaseTtlMs: 3000,
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

describe("cluster: a portal from a world on one gateway to a world on another", () => {
  it("hands an agent over to the other gateway, which it then reaches through a redirect", {
    timeout: 600_000,
  }, async () => {
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
    for (const gw of [a, b]) {
      const directory = await until(`${gw.baseUrl}'s directory to list both rooms`, async () => {
        const listed = (await adminDirectory(gw)) as unknown[] | undefined;
        // Live too: on a busy machine a lease may lapse once while a gateway starts, and be taken again.
        return listed?.length === 2 && listed.every((e) => (e as { live?: boolean }).live)
          ? listed
          : undefined;
      });
      expect(directory).toMatchObject(both);
    }

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
    await page.goto(`${a.baseUrl}/world/?name=Wren`);
    await pageUntil("Wren to be in north's lobby on A", async () =>
      (await ocw<string | undefined>(page, "roomId")) === "lobby" ? true : undefined,
    );
    const wrenOnA = await ocw<string>(page, "entityId");
    await ocw(page, `send(${JSON.stringify({ type: "click_to_move", destTx: 8, destTy: 4 })})`);
    const onBPage = await pageUntil(
      "the page to join on B as Wren",
      async () => {
        if (!page.url().startsWith(`${b.baseUrl}/world/`)) return undefined;
        // Read between page loads, the old page's context may be gone: try again.
        const me = await ocw<{ id: string; name: string; tx: number; ty: number } | undefined>(
          page,
          "me()",
        ).catch(() => undefined);
        return me?.name === "Wren" ? me : undefined;
      },
      30_000,
    );
    // The same person (the world keeps its id across the handoff), at the portal's target tile, and
    // the page's address no longer holds the one-time claim.
    expect(onBPage).toMatchObject({ id: wrenOnA, name: "Wren", tx: 3, ty: 3 });
    expect(new URL(page.url()).searchParams.has("claim")).toBe(false);
    expect(await ocw<string>(page, "status")).toBe("online");
    const wrenSeen = await until("the agent on B to see Wren", async () => {
      const seen = await aicCall(b.baseUrl, TOKEN, "observe", {
        agentId: AGENT,
        roomId: "lobby",
        radius: 8,
        detail: "lite",
      });
      return seen.text.includes("Wren") ? seen.text : undefined;
    });
    expect(wrenSeen).toContain(wrenOnA);
    expect(consoleErrors).toEqual([]);
  });
});
