// Rooms across gateways (#28): two real gateways share one cluster room through a real nats-server.
// A owns the room; B stands by. Agents chat on A; A is killed with SIGKILL while requests are in
// flight; B takes the room (epoch + 1) from snapshot + log and serves it: every acknowledged chat is
// in the shared log exactly once, no tick is logged twice, and a retry by txId is answered, not
// applied again. Then B is paused (SIGSTOP) past its lease, a standby takes the room, and B, resumed
// (SIGCONT), appends nothing more and stops serving.
import { mkdtemp, rm } from "node:fs/promises";
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
import { waitForRoom } from "../../src/cluster/cluster-room.ts";
import { type ClusterResources, connectCluster } from "../../src/cluster/nats.ts";
import { directoryEntry } from "../../src/cluster/ownership.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../src/runtime/load-world-dir.ts";
import { startNats, type TestNats } from "../support/nats.ts";

const TTL_MS = 3000;
const ROOM = "lobby-world";
const AGENT = "agent_cluster";
const TOKEN = randomToken();

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

    const joined = await call(gwA.baseUrl, "join", { agentId: AGENT, roomId: "lobby" });
    expect(joined.status, joined.text).toBe(200);
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
    expect(await directoryEntry(resources, ROOM)).toMatchObject({ gatewayId: "gw-b", epoch: 2 });

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
      claimant: { gatewayId: "gw-test", baseUrl: "http://127.0.0.1:1" },
      leaseTtlMs: TTL_MS,
      snapshotEveryTicks: 100,
      logger: { info() {}, warn() {}, error() {} },
    });
    expect(standby.lease.epoch).toBe(3);
    gwB.child.kill("SIGCONT");
    await until(
      "gw-b to stop serving",
      async () => ((await running(gwB.baseUrl)) ? undefined : true),
      30_000,
    );
    await new Promise((r) => setTimeout(r, TTL_MS));
    const after = await wholeLog(resources, ROOM);
    const fence = after.findIndex((r) => r.kind === "epoch" && r.epoch === 3);
    expect(fence).toBeGreaterThan(0);
    expect(after.slice(fence).filter((r) => r.epoch !== 3)).toEqual([]);
    const afterTicks = after.filter((r) => r.kind === "tick");
    expect(new Set(afterTicks.map((t) => t.tick)).size).toBe(afterTicks.length);
    await standby.release();
    expect(await running(gwB.baseUrl)).toBeUndefined();
  });
});
