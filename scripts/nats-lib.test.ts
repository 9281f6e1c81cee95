// The local nats-server launcher on a machine without nats-server: one clear line saying how to
// install it, not a spawn error's stack.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchNats } from "./lib/nats-server.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("launchNats", () => {
  it("says how to install nats-server when it is missing", async () => {
    const storeDir = await mkdtemp(path.join(os.tmpdir(), "ocw-nats-missing-"));
    dirs.push(storeDir);
    const missing = path.join(storeDir, "no-such-nats-server");
    await expect(launchNats({ storeDir, binary: missing })).rejects.toThrow(
      /is not installed: install the Debian 'nats-server' package \(sudo apt-get install nats-server/,
    );
  });
});
