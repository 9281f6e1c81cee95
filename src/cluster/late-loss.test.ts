// A room lost before anyone listened (#28), against a real nats-server. Found by the failover soak
// (scripts/cluster-soak.ts): on a loaded machine a gateway took the room and lost its lease while it
// was still restoring it, before the host registered its loss listener. Nobody heard the loss: the
// runtime stopped at its first commit, and the gateway neither served the room nor stood by for it
// again until it was restarted. A listener that comes after the loss now hears it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/support/test-nats.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../runtime/load-world-dir.ts";
import { takeRoom } from "./cluster-room.ts";
import { type ClusterResources, connectCluster } from "./nats.ts";
import { RoomLease } from "./ownership.ts";

const TTL = 2000;
const A = { gatewayId: "gw-a", baseUrl: "http://127.0.0.1:1" };
let nats: TestNats;
let a: ClusterResources;

beforeAll(async () => {
  nats = await startNats();
  a = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
});

afterAll(async () => {
  await a?.close();
  await nats?.stop();
});

describe("a cluster room lost before anyone listened", () => {
  it("a lease's late listener hears the loss at once", async () => {
    const lease = (await RoomLease.tryAcquire(a, "late-lease", A, { ttlMs: TTL }))!;
    await a.leases.purge("late-lease"); // another gateway's doing, as far as this holder can tell
    await lease.renew();
    expect(lease.lossReason).toBe("deposed");
    const heard: string[] = [];
    lease.onLost((why) => heard.push(why));
    expect(heard).toEqual(["deposed"]);
  });

  it("a room's late listener hears the loss, so the host stands by again", async () => {
    const room = (await takeRoom({
      resources: a,
      room: "late-room",
      definition: await loadWorldDir(BUNDLED_WORLD_DIR),
      claimant: A,
      leaseTtlMs: TTL,
      snapshotEveryTicks: 1000,
      logger: { info() {}, warn() {}, error() {} },
    }))!;
    await a.leases.purge("late-room");
    await room.lease.renew();
    expect(room.lostReason).toMatch(/deposed/);
    const heard = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the loss was never told")), 5_000);
      room.onLost((reason) => {
        clearTimeout(timer);
        resolve(reason);
      });
    });
    expect(heard).toMatch(/deposed/);
    await room.release();
  });
});
