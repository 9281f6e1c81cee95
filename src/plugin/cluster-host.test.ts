// The plugin with config `cluster`, against a real nats-server: the world is hosted as a cluster room
// (no local store), a second gateway's host stands by (RoomHeldElsewhereError, retried by the service
// at a quarter of the lease), the operator status shows the directory, and when the owner lets go
// the standby service takes the room with the next epoch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/support/test-nats.ts";
import { until } from "../../test/support/wait.ts";
import { resolveConfig } from "../config/config.ts";
import { ownerElsewhere, RoomHeldElsewhereError } from "./cluster-host.ts";
import { createHost, disposeHost } from "./host.ts";
import { operatorActions } from "./operator-actions.ts";
import { activeHost, processSlot } from "./singleton.ts";
import { createWorldService } from "./world-service.ts";

let nats: TestNats;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.stop();
});

const logger = { info() {}, warn() {}, error() {} };
const config = (gatewayId: string) =>
  resolveConfig({
    cluster: {
      servers: [nats.url],
      gatewayId,
      publicBaseUrl: `http://127.0.0.1/${gatewayId}`,
      rooms: ["plugin-room"],
      leaseTtlMs: 1000,
    },
  });

describe("plugin: the world as a cluster room", () => {
  it("one gateway serves, the other stands by and takes over when the owner lets go", async () => {
    const owner = await createHost({ config: config("gw-a"), logger });
    expect(owner.store).toBeUndefined();
    expect(owner.cluster?.room.lease.epoch).toBe(1);
    owner.runtime.start();
    const joined = await owner.runtime.submit({
      kind: "join",
      entityId: "agt_p",
      actorKind: "agent",
      name: "P",
    });
    expect(joined.ok).toBe(true);

    await expect(createHost({ config: config("gw-b"), logger })).rejects.toBeInstanceOf(
      RoomHeldElsewhereError,
    );
    const status = (await operatorActions(owner).status()) as { cluster: Record<string, unknown> };
    expect(status.cluster).toMatchObject({
      gatewayId: "gw-a",
      room: "plugin-room",
      epoch: 1,
      serving: true,
      directory: [
        { room: "plugin-room", gatewayId: "gw-a", baseUrl: "http://127.0.0.1/gw-a", epoch: 1, live: true },
      ],
    });

    const ctx = { stateDir: "", logger };
    const standby = createWorldService(config("gw-b"), () => {});
    try {
      await standby.start(ctx);
      expect(activeHost()).toBeUndefined();
      expect(processSlot().waiting?.reason).toMatch(/held elsewhere.*gw-a epoch 1/);
      // The standby knows where to send its callers (every door asks ownerElsewhere).
      expect(ownerElsewhere(processSlot().waiting?.cluster)).toEqual({
        room: "plugin-room",
        gatewayId: "gw-a",
        baseUrl: "http://127.0.0.1/gw-a",
        epoch: 1,
      });
      await disposeHost(owner, logger); // releases the lease
      const next = await until("the standby takes the room", () => activeHost(), 10_000);
      expect(next.cluster?.room.lease.epoch).toBe(2);
      // The acknowledged join carried over through the shared log.
      expect(next.runtime.world.getEntity("agt_p")?.roomId).toBe("lobby");
    } finally {
      await standby.stop(ctx);
    }
  });
});

describe("ownerElsewhere: where a standby sends its callers", () => {
  const entry = (room: string, gatewayId: string, live: boolean, epoch = 1) => ({
    room,
    gatewayId,
    baseUrl: `https://${gatewayId}.example`,
    epoch,
    live,
  });

  it("names the live owner of a room this gateway may host, never itself or a lapsed lease", () => {
    const standby = (directory: ReturnType<typeof entry>[]) => ({
      gatewayId: "gw-b",
      rooms: ["r1"],
      directory,
    });
    expect(ownerElsewhere(undefined)).toBeUndefined();
    expect(ownerElsewhere(standby([entry("r1", "gw-a", true, 4)]))).toEqual({
      room: "r1",
      gatewayId: "gw-a",
      baseUrl: "https://gw-a.example",
      epoch: 4,
    });
    // Its own lease from before a restart: redirecting would loop.
    expect(ownerElsewhere(standby([entry("r1", "gw-b", true)]))).toBeUndefined();
    // Nobody holds the lease: the room is about to be taken, not served elsewhere.
    expect(ownerElsewhere(standby([entry("r1", "gw-a", false)]))).toBeUndefined();
    // Another world's room.
    expect(ownerElsewhere(standby([entry("r2", "gw-a", true)]))).toBeUndefined();
  });
});
