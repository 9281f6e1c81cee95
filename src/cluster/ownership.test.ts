// Against a real nats-server (test/support/test-nats.ts): leases, the directory and the fencing epoch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/support/test-nats.ts";
import { until } from "../../test/support/wait.ts";
import { type ClusterResources, connectCluster } from "./nats.ts";
import { directoryEntry, RoomLease, readDirectory } from "./ownership.ts";

const TTL = 1000;
const A = { gatewayId: "gw-a", baseUrl: "http://127.0.0.1:1" };
const B = { gatewayId: "gw-b", baseUrl: "http://127.0.0.1:2" };

let nats: TestNats;
let a: ClusterResources;
let b: ClusterResources;

beforeAll(async () => {
  nats = await startNats();
  a = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
  b = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await nats?.stop();
});

describe("room ownership on NATS KV", () => {
  it("one holder at a time; a clean release hands the room on with the next epoch", async () => {
    const leaseA = await RoomLease.tryAcquire(a, "town", A, { ttlMs: TTL });
    expect(leaseA?.epoch).toBe(1);
    expect(await RoomLease.tryAcquire(b, "town", B, { ttlMs: TTL })).toBeUndefined();
    expect(await directoryEntry(b, "town")).toEqual({ room: "town", ...A, epoch: 1 });
    await leaseA!.release();
    expect(leaseA!.valid()).toBe(false);
    const leaseB = await RoomLease.tryAcquire(b, "town", B, { ttlMs: TTL });
    expect(leaseB?.epoch).toBe(2);
    expect(await readDirectory(a)).toEqual([{ room: "town", ...B, epoch: 2, live: true }]);
    await leaseB!.release();
  });

  it("a renewed lease is kept past its TTL; one not renewed lapses and its holder is deposed", async () => {
    const kept = await RoomLease.tryAcquire(a, "kept", A, { ttlMs: TTL });
    kept!.startRenewing();
    const lapsing = await RoomLease.tryAcquire(a, "lapsing", A, { ttlMs: TTL });
    const losses: string[] = [];
    lapsing!.onLost((why) => losses.push(why));
    const started = performance.now();
    const taken = await until(
      "another gateway takes the lapsed lease",
      () => RoomLease.tryAcquire(b, "lapsing", B, { ttlMs: TTL }),
      { timeoutMs: 10_000, everyMs: 100 },
    );
    expect(taken?.epoch).toBe(lapsing!.epoch + 1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(TTL - 50);
    // The holder's own clock already told it to stop serving; its late renewal is refused.
    expect(lapsing!.valid()).toBe(false);
    await lapsing!.renew();
    expect(losses).toEqual(["unconfirmed"]);
    expect(await RoomLease.tryAcquire(b, "kept", B, { ttlMs: TTL })).toBeUndefined();
    expect(kept!.valid()).toBe(true);
    await kept!.release();
    await taken!.release();
  });

  it("a holder whose renewal finds another holder is deposed at once", async () => {
    let clock = 0;
    const old = await RoomLease.tryAcquire(a, "fenced", A, { ttlMs: TTL, now: () => clock });
    const losses: string[] = [];
    old!.onLost((why, detail) => losses.push(`${why}: ${detail}`));
    // As if it had been paused (SIGSTOP) past its lease: someone else removed and took it.
    await a.leases.purge("fenced");
    const next = await RoomLease.tryAcquire(b, "fenced", B, { ttlMs: TTL });
    expect(next?.epoch).toBe(2);
    clock = 10; // its own clock saw no pause: only the compare-and-set can tell
    expect(old!.valid()).toBe(true);
    await old!.renew();
    expect(old!.valid()).toBe(false);
    expect(losses[0]).toMatch(/^deposed/);
    await next!.release();
  });
});
