// Rooms across gateways (#28): two real gateways share one cluster room through a real nats-server.
// A owns the room; B stands by. Agents chat on A; A is killed with SIGKILL while requests are in
// flight; B takes the room (epoch + 1) from snapshot + log and serves it: every acknowledged chat is
// in the shared log exactly once, no tick is logged twice, and a retry by txId is answered, not
// applied again. Then B is paused (SIGSTOP) past its lease, a standby takes the room, and B, resumed
// (SIGCONT), appends nothing more and stops serving.
// Reaching the owner: while B stands by, an AIC request, the web page and its WebSocket on B are
// redirected (307) to A, and the tools' remote mode pointed at B acts on A; after each failover the
// clients reach the new owner and B's redirect names it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  aicCall,
  launchClusterGateway,
  running,
  standingBy,
  until,
  wholeLog,
} from "../../scripts/lib/cluster.ts";
import { freePort, type LaunchedGateway, randomToken } from "../../scripts/lib/gateway.ts";
import { buildWebIfNeeded } from "../../scripts/lib/web-build.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { waitForRoom } from "../../src/cluster/cluster-room.ts";
import { type ClusterResources, connectCluster } from "../../src/cluster/nats.ts";
import { directoryEntry } from "../../src/cluster/ownership.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../src/runtime/load-world-dir.ts";
import { RemoteAicClient } from "../../src/tools/remote-client.ts";
import { startNats, type TestNats } from "../support/test-nats.ts";
import { holdsFor } from "../support/wait.ts";

const TTL_MS = 3000;
const ROOM = "lobby-world";
const AGENT = "agent_cluster";
const TOKEN = randomToken();
/** The in-test standby's base URL, named in the directory (nothing listens there). */
const GW_TEST_URL = "http://127.0.0.1:9";

let nats: TestNats | undefined;
let resources: ClusterResources | undefined;
const roots: string[] = [];
const gateways: LaunchedGateway[] = [];

afterAll(async () => {
  for (const gw of gateways) {
    if (gw.child.signalCode === null) gw.child.kill("SIGCONT");
    await gw.stop().catch(() => undefined);
  }
  await resources?.close();
  await nats?.stop();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function launch(
  gatewayId: string,
): Promise<{ port: number; started: Promise<LaunchedGateway>; baseUrl: string; gatewayToken: string }> {
  const stateRoot = await mkdtemp(path.join(os.tmpdir(), `ocw-cluster-${gatewayId}-`));
  roots.push(stateRoot);
  const port = await freePort();
  const gatewayToken = randomToken();
  const started = launchClusterGateway({
    natsUrl: nats!.url,
    gatewayId,
    stateRoot,
    port,
    gatewayToken,
    room: ROOM,
    leaseTtlMs: TTL_MS,
    // The whole log is kept, so the test can count every acknowledged chat in it (trimming
    // behind snapshots is covered by src/cluster/cluster-room.test.ts).
    snapshotEveryTicks: 1_000_000,
    agents: { [AGENT]: { token: TOKEN, name: "Cluster Agent" } },
  }).then((gw) => {
    gateways.push(gw);
    return gw;
  });
  return { port, started, baseUrl: `http://127.0.0.1:${port}`, gatewayToken };
}

const call = (baseUrl: string, endpoint: string, body: Record<string, unknown>) =>
  aicCall(baseUrl, TOKEN, endpoint, body);

/** An AIC request answered with a redirect (not followed): its target and its body. */
async function redirectOf(baseUrl: string): Promise<{ location: string; body: unknown } | undefined> {
  const res = await fetch(`${baseUrl}/aic/v0.1/observe`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ agentId: AGENT, roomId: "lobby", radius: 8, detail: "lite" }),
    redirect: "manual",
  });
  const body = (await res.json()) as unknown;
  const location = res.headers.get("location");
  return res.status === 307 && location ? { location, body } : undefined;
}

/** How the world's WebSocket upgrade is answered: 101, or a status with its Location. */
function upgradeAnswer(baseUrl: string): Promise<{ status: number; location?: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}/world/ws`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": randomBytes(16).toString("base64"),
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve({ status: 101 });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("cluster: one room, two gateways, one NATS", () => {
  it("fails over after kill -9 with nothing acknowledged lost, and fences a paused owner", {
    timeout: 900_000,
  }, async () => {
    await buildWebIfNeeded();
    nats = await startNats();
    resources = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL_MS });

    const a = await launch("gw-a");
    const gwA = await a.started;
    expect(await directoryEntry(resources, ROOM)).toMatchObject({ gatewayId: "gw-a", epoch: 1 });
    const b = await launch("gw-b");
    await until("gw-b to stand by", () => standingBy(b));

    // B sends every door to A: AIC with a 307 and a contract error naming the owner, ...
    const toA = await until("gw-b to redirect to gw-a", () => redirectOf(b.baseUrl));
    expect(toA.location).toBe(`${gwA.baseUrl}/aic/v0.1/observe`);
    expect(checkResponse("ObserveResponseData", toA.body)).toEqual([]);
    expect(toA.body).toMatchObject({
      status: "error",
      error: {
        code: "room_not_ready",
        retryable: true,
        details: { owner: { gatewayId: "gw-a", baseUrl: gwA.baseUrl } },
      },
    });
    // ... the tools' remote mode pointed at B acts on A (its token kept across the redirect), ...
    const remote = new RemoteAicClient(
      resolveConfig({ remote: { baseUrl: `${b.baseUrl}/aic/v0.1`, apiKey: TOKEN, defaultAgentId: AGENT } })
        .remote!,
    );
    const signal = new AbortController().signal;
    const joined = await remote.call("join", AGENT, { agentId: AGENT, roomId: "lobby" }, signal);
    expect(joined.status, JSON.stringify(joined)).toBe("ok");
    // ... a browser loading the page on B lands on A's page, a WebSocket upgrade is sent there too,
    const page = await fetch(`${b.baseUrl}/world/?name=Visitor`);
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${gwA.baseUrl}/world/?name=Visitor`);
    expect(await page.text()).toMatch(/<html/i);
    expect(await upgradeAnswer(b.baseUrl)).toEqual({ status: 307, location: `${gwA.baseUrl}/world/ws` });
    // ... and B's status and directory name the owner.
    const statusB = (await (await fetch(`${b.baseUrl}/world/api/status`)).json()) as Record<string, unknown>;
    expect(statusB).toMatchObject({
      running: false,
      cluster: { gatewayId: "gw-b", servedBy: { gatewayId: "gw-a", baseUrl: gwA.baseUrl } },
    });
    const adminB = await fetch(`${b.baseUrl}/openclawworld/admin/status`, {
      headers: { authorization: `Bearer ${b.gatewayToken}` },
    });
    expect(await adminB.json()).toMatchObject({
      data: {
        waitingForStore: {
          cluster: { directory: [{ room: ROOM, gatewayId: "gw-a", baseUrl: gwA.baseUrl, live: true }] },
        },
      },
    });
    // A busy machine may have cost A a renewal and the room once (taken back at the next epoch).
    const ownerA = (await directoryEntry(resources, ROOM))!;
    expect(ownerA.gatewayId).toBe("gw-a");
    const acked: { txId: string; message: string; answer: string }[] = [];
    let killedAt = 0;
    const lanes = [0, 1, 2].map(async (lane) => {
      for (let i = 0; killedAt === 0; i++) {
        const txId = `tx_cluster_${lane}_${String(i).padStart(6, "0")}`;
        const message = `lane ${lane} says ${i}`;
        const answer = await call(gwA.baseUrl, "chatSend", {
          agentId: AGENT,
          roomId: "lobby",
          txId,
          channel: "global",
          message,
        }).catch(() => undefined);
        if (!answer) return; // died with the gateway: not acknowledged
        expect(answer.status, answer.text).toBe(200);
        acked.push({ txId, message, answer: answer.text });
        if (acked.length === 60 && killedAt === 0) {
          killedAt = performance.now();
          gwA.child.kill("SIGKILL");
        }
      }
    });
    await Promise.all(lanes);
    const gwB = await b.started;
    await until("gw-b to serve", () => running(gwB.baseUrl));
    const takeoverMs = performance.now() - killedAt;
    console.info(
      `cluster failover: takeover ${Math.round(takeoverMs)} ms after kill -9, ${acked.length} acknowledged`,
    );
    const ownerB = (await directoryEntry(resources, ROOM))!;
    expect(ownerB.gatewayId).toBe("gw-b");
    expect(ownerB.epoch).toBeGreaterThan(ownerA.epoch);
    // The remote client sent to A finds A gone, asks B again, and B serves now.
    await until("the remote client to reach the new owner", async () => {
      const observed = await remote.call(
        "observe",
        AGENT,
        { agentId: AGENT, roomId: "lobby", radius: 8, detail: "lite" },
        signal,
      );
      return observed.status === "ok" ? true : undefined;
    });

    const log = await wholeLog(resources, ROOM);
    const ticks = log.filter((r) => r.kind === "tick");
    expect(new Set(ticks.map((t) => t.tick)).size).toBe(ticks.length);
    const chats = ticks.flatMap((t) => t.inputs.flatMap((i) => (i.kind === "chat" ? [i.message] : [])));
    for (const { message } of acked) expect(chats.filter((m) => m === message)).toHaveLength(1);
    // A retry of an acknowledged action is answered from the world's records, not applied again.
    const first = acked[0]!;
    const retry = await call(gwB.baseUrl, "chatSend", {
      agentId: AGENT,
      roomId: "lobby",
      txId: first.txId,
      channel: "global",
      message: first.message,
    });
    expect(retry.status, retry.text).toBe(200);
    expect(JSON.parse(retry.text).data).toEqual(JSON.parse(first.answer).data);

    // B is paused past its lease (SIGSTOP); a standby here takes the room; B, resumed, appends nothing.
    gwB.child.kill("SIGSTOP");
    const definition = await loadWorldDir(BUNDLED_WORLD_DIR);
    const standby = await waitForRoom({
      resources,
      room: ROOM,
      definition,
      claimant: { gatewayId: "gw-test", baseUrl: GW_TEST_URL },
      leaseTtlMs: TTL_MS,
      snapshotEveryTicks: 100,
      logger: { info() {}, warn() {}, error() {} },
    });
    const fenceEpoch = standby.lease.epoch;
    expect(fenceEpoch).toBeGreaterThan(ownerB.epoch);
    gwB.child.kill("SIGCONT");
    await until(
      "gw-b to stop serving",
      async () => ((await running(gwB.baseUrl)) ? undefined : true),
      30_000,
    );
    // B, deposed, stands by again and sends its callers to the new owner.
    const toTest = await until("gw-b to redirect to the new owner", () => redirectOf(gwB.baseUrl), 30_000);
    expect(toTest.location).toBe(`${GW_TEST_URL}/aic/v0.1/observe`);
    expect(toTest.body).toMatchObject({
      error: { details: { owner: { gatewayId: "gw-test", epoch: fenceEpoch } } },
    });
    // For a lease's TTL after the fence, nothing of another epoch is written behind it.
    const fencedLog = async () => {
      const log = await wholeLog(resources!, ROOM);
      const fence = log.findIndex((r) => r.kind === "epoch" && r.epoch === fenceEpoch);
      return { log, fence, strays: log.slice(fence).filter((r) => r.epoch !== fenceEpoch) };
    };
    await holdsFor(
      "only the new owner writes after the fence",
      async () => {
        const { fence, strays } = await fencedLog();
        return fence > 0 && strays.length === 0;
      },
      TTL_MS,
      TTL_MS / 4,
    );
    const { log: after } = await fencedLog();
    const afterTicks = after.filter((r) => r.kind === "tick");
    expect(new Set(afterTicks.map((t) => t.tick)).size).toBe(afterTicks.length);
    await standby.release();
    expect(await running(gwB.baseUrl)).toBeUndefined();
  });
});
