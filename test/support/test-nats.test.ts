import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { startNats } from "./test-nats.ts";

describe("startNats", () => {
  it("serves JetStream on 127.0.0.1 and stops cleanly", async () => {
    const nats = await startNats();
    try {
      expect(nats.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
      const nc = await connect({ servers: nats.url });
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      expect(info.limits).toBeDefined();
      await nc.close();
    } finally {
      await nats.stop();
    }
    expect(() => process.kill(nats.pid, 0)).toThrow();
  });
});
