// One real nats-server with JetStream for tests, on 127.0.0.1 and a free port, its store in a
// throw-away directory removed by stop().
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { launchNats } from "../../scripts/lib/nats-server.ts";

export interface TestNats {
  url: string;
  pid: number;
  storeDir: string;
  stop(): Promise<void>;
}

export async function startNats(): Promise<TestNats> {
  const storeDir = await mkdtemp(path.join(os.tmpdir(), "ocw-nats-"));
  const nats = await launchNats({ storeDir }).catch(async (error: unknown) => {
    await rm(storeDir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: nats.url,
    pid: nats.pid,
    storeDir,
    async stop() {
      await nats.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
