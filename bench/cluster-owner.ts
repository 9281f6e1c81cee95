// The room owner the cluster benchmark kills with SIGKILL: a plain Node process that takes a cluster
// room through the production path (takeRoom: lease, restore, fence, the shared log as journal),
// ticks it, and has one agent chat every tick. Each acknowledged chat is printed as `ACK <message>`
// once its answer came back (after JetStream acknowledged the tick).
// Usage: node bench/cluster-owner.ts <nats-url> <room> <lease-ttl-ms>
import { takeRoom } from "../src/cluster/cluster-room.ts";
import { connectCluster } from "../src/cluster/nats.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../src/runtime/load-world-dir.ts";

const [url, room, ttl] = process.argv.slice(2);
const leaseTtlMs = Number(ttl);
const quiet = { info: () => {}, warn: () => {}, error: (m: string) => console.error(m) };
const resources = await connectCluster({ servers: [url!] }, { leaseTtlMs });
const owned = await takeRoom({
  resources,
  room: room!,
  definition: await loadWorldDir(BUNDLED_WORLD_DIR),
  claimant: { gatewayId: `owner-${process.pid}`, baseUrl: "http://127.0.0.1:1" },
  leaseTtlMs,
  snapshotEveryTicks: 100,
  logger: quiet,
});
if (!owned) throw new Error("the room is held elsewhere");
owned.runtime.start();
await owned.runtime.submit({ kind: "join", entityId: "agt_bench", actorKind: "agent", name: "Bench" });
console.log("OWNER");
for (let i = 0; ; i++) {
  const message = `bench ${i}`;
  const result = await owned.runtime.submit({
    kind: "chat",
    entityId: "agt_bench",
    channel: "global",
    message,
    tx: { key: `agt_bench:${i}`, payloadHash: `h${i}` },
  });
  if (result.ok) console.log(`ACK ${message}`);
}
