// Idempotency records under a flood (the store grew from 7.5 to 45 MB). Agents send chat
// and moves, each with a txId of its own, through the production store path (openWorld: every tick
// committed, a snapshot every SNAPSHOT_EVERY ticks as the periodic save does), far faster than the
// default rate limits allow, for more than the records' TTL of simulated time. Reported per phase:
// live idempotency records, the store on disk (database + WAL), the snapshot's gzipped size.
// Last line: one JSON object with the figures.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import { closeWorld, openWorld, saveWorld } from "../src/runtime/open-world.ts";
import type { Input } from "../src/world/types.ts";

const AGENTS = Number(process.env.TX_FLOOD_AGENTS ?? 20);
const PER_AGENT_PER_TICK = Number(process.env.TX_FLOOD_RATE ?? 1);
/** 20 Hz: 14,000 ticks are 700 simulated seconds, past the 600 s TTL. */
const TICKS = Number(process.env.TX_FLOOD_TICKS ?? 14_000);
const SNAPSHOT_EVERY = 1_200;
const quiet = { info() {}, warn() {}, error() {} };

const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-tx-flood-"));
const storeFile = path.join(dir, "world.db");
const opened = await openWorld({
  worldDir: BUNDLED_WORLD_DIR,
  defaultRoomId: "lobby",
  storeFile,
  storeSync: "normal",
  logger: quiet,
});
const runtime = opened.runtime;
const ids = Array.from({ length: AGENTS }, (_, i) => `agt_flood_${i}`);
const joined = ids.map((entityId) =>
  runtime.submit({ kind: "join", entityId, actorKind: "agent", name: entityId }),
);
runtime.stepNow();
await Promise.all(joined);

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};
const storeBytes = () => size(storeFile) + size(`${storeFile}-wal`);
const txRecords = () => (runtime.world.snapshot().state as { tx: unknown[] }).tx.length;
interface Phase {
  tick: number;
  simSec: number;
  txRecords: number;
  storeMB: number;
  snapshotGzMB: number;
}
const phases: Phase[] = [];
let sent = 0;
const started = performance.now();
for (let t = 1; t <= TICKS; t++) {
  const pending: Promise<unknown>[] = [];
  for (const entityId of ids) {
    for (let k = 0; k < PER_AGENT_PER_TICK; k++) {
      const n = sent++;
      const input: Input =
        n % 2 === 0
          ? { kind: "chat", entityId, channel: "global", message: `flood ${n}` }
          : { kind: "moveTo", entityId, dest: { tx: 5 + (n % 7), ty: 5 + (n % 5) } };
      pending.push(
        runtime.submit({
          ...input,
          tx: { key: `aic:${entityId}:lobby:tx_flood_${n}`, payloadHash: `p${n}` },
        }),
      );
    }
  }
  runtime.stepNow();
  await Promise.all(pending);
  if (t % SNAPSHOT_EVERY === 0) {
    saveWorld(opened);
    phases.push({
      tick: t,
      simSec: Math.round(t / 20),
      txRecords: txRecords(),
      storeMB: +(storeBytes() / 2 ** 20).toFixed(2),
      snapshotGzMB: +(opened.store!.autoSnapshots()[0]!.body.length / 2 ** 20).toFixed(2),
    });
    console.log(JSON.stringify(phases.at(-1)));
  }
}
const wallSec = (performance.now() - started) / 1000;
closeWorld(opened, quiet);
const final = { storeMB: +(storeBytes() / 2 ** 20).toFixed(2) };
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    bench: "tx-flood",
    agents: AGENTS,
    txPerSimSec: AGENTS * PER_AGENT_PER_TICK * 20,
    ticks: TICKS,
    wallSec: +wallSec.toFixed(1),
    peakTxRecords: Math.max(...phases.map((p) => p.txRecords)),
    lastTxRecords: phases.at(-1)?.txRecords,
    peakStoreMB: Math.max(...phases.map((p) => p.storeMB)),
    lastStoreMB: phases.at(-1)?.storeMB,
    closedStoreMB: final.storeMB,
    lastSnapshotGzMB: phases.at(-1)?.snapshotGzMB,
  }),
);
