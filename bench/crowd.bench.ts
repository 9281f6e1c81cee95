// The load harness's crowd, in-process: N actors of the bundled lobby walking its plaza (the tile box
// `npm run load` uses), each picking a new destination now and then, as the harness's humans and
// agents do. It measures the world step and how many events a tick appends, by type. Issue #13: through
// the gateway the 1,000-participant run is bounded by this crowd, not by the transport — every pair of
// actors within the proximity radius (4 tiles) enters and leaves proximity as they walk, so the events
// grow with the square of the crowd, and a room keeps only `event_retention` (5,000) of them.
// Seeded, no wall clock in the world. Last line: one JSON object with the figures per crowd size.
import { fileURLToPath } from "node:url";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const SIZES = (process.env.CROWD_SIZES ?? "150,300,600,1000").split(",").map(Number);
const WARM_TICKS = 100;
const MEASURED_TICKS = 200;
/** The harness's walk box (scripts/lib/load.ts DEFAULT_BOX). */
const BOX = { tx0: 16, ty0: 11, tx1: 28, ty1: 20 };

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const definition = await loadWorldDir(fileURLToPath(new URL("../worlds/lobby", import.meta.url)));
const figures: Record<string, unknown>[] = [];
for (const n of SIZES) {
  const world = World.create(definition);
  const rand = lcg(n);
  const ids = Array.from({ length: n }, (_, i) => `agt_crowd_${i}`);
  for (let i = 0; i < n; i += 50) {
    world.step(
      ids
        .slice(i, i + 50)
        .map((entityId): Input => ({ kind: "join", entityId, actorKind: "agent", name: entityId })),
    );
  }
  // About one move every 2 s per actor, the harness's pace (20 Hz: 1/40 per tick), never while walking a fresh path.
  const busyUntil = new Int32Array(n);
  const times: number[] = [];
  const byType: Record<string, number> = {};
  let events = 0;
  for (let t = 0; t < WARM_TICKS + MEASURED_TICKS; t++) {
    const inputs: Input[] = [];
    for (let i = 0; i < n; i++) {
      if (busyUntil[i]! > t || rand() >= 1 / 40) continue;
      const dest = {
        tx: BOX.tx0 + Math.floor(rand() * (BOX.tx1 - BOX.tx0 + 1)),
        ty: BOX.ty0 + Math.floor(rand() * (BOX.ty1 - BOX.ty0 + 1)),
      };
      inputs.push({ kind: "moveTo", entityId: ids[i]!, dest });
      busyUntil[i] = t + 20;
    }
    const started = performance.now();
    const result = world.step(inputs);
    const ms = performance.now() - started;
    if (t < WARM_TICKS) continue;
    times.push(ms);
    events += result.events.length;
    for (const event of result.events) byType[event.type] = (byType[event.type] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Number(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!.toFixed(2));
  const row = {
    actors: n,
    stepP50Ms: at(0.5),
    stepP99Ms: at(0.99),
    eventsPerTick: Math.round(events / MEASURED_TICKS),
    byTypePerTick: Object.fromEntries(
      Object.entries(byType).map(([type, count]) => [type, Math.round((count / MEASURED_TICKS) * 10) / 10]),
    ),
    /** How many ticks the room's retained events cover at this rate. */
    retentionTicks: Math.round((5000 / Math.max(1, events / MEASURED_TICKS)) * 10) / 10,
  };
  figures.push(row);
  console.log(
    `${n} actors in the plaza: step p50 ${row.stepP50Ms} ms, p99 ${row.stepP99Ms} ms; ${row.eventsPerTick} events/tick (${JSON.stringify(row.byTypePerTick)}); the 5,000 retained events cover ${row.retentionTicks} ticks`,
  );
}
console.log(JSON.stringify({ crowd: figures }));
