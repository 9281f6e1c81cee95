// Portals between gateways (#28): two real gateways and one real nats-server, each gateway owning a
// different world (a cluster room), each world with a portal to the other. An agent walks onto the
// portal on A over AIC, is handed over to B's world (through the transfer stream), and A answers its
// next request with the typed redirect to B; the tools' remote mode pointed at A follows it and acts
// on B. Both gateways' status directories list both rooms.
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
import { startNats, type TestNats } from "../support/nats.ts";
import { writeWorldDir } from "../support/world-dir.ts";

const AGENT = "agent_traveller";
const TOKEN = randomToken();

let nats: TestNats | undefined;
const roots: string[] = [];
const gateways: LaunchedGateway[] = [];

afterAll(async () => {
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
        return listed?.length === 2 ? listed : undefined;
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
  });
});
