// The load harness's crowd, in-process: N actors of the bundled lobby walking its plaza (the tile box
// `npm run load` uses), each picking a new destination now and then, as the harness's humans and
// agents do (src/world/testing/plaza-crowd.ts). It measures the world step and how many events a tick
// appends, by type. Before proximity was bounded per actor, every pair of actors within
// the radius (4 tiles) entered and left proximity as they walked, so the events grew with the square
// of the crowd (12,400 a tick at 1,000); now an
// actor is in proximity with at most `proximity_max_neighbors` others (the world's, or each of
// CROWD_CAPS). A second scenario, "pile", sends the whole walking crowd onto one tile at once when the
// measurement starts (hostile bots), and measures their way there and their stay.
// Seeded, no wall clock in the world. Last line: one JSON object with the figures per crowd size.
import { fileURLToPath } from "node:url";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { Crowd } from "../src/world/testing/plaza-crowd.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const SIZES = (process.env.CROWD_SIZES ?? "150,300,600,1000").split(",").map(Number);
const WARM_TICKS = 100;
const MEASURED_TICKS = Number(process.env.CROWD_TICKS ?? 200);

const lobby = await loadWorldDir(fileURLToPath(new URL("../worlds/lobby", import.meta.url)));
const CAPS = (process.env.CROWD_CAPS ?? String(lobby.proximityMaxNeighbors)).split(",").map(Number);
const SCENARIOS = (process.env.CROWD_SCENARIOS ?? "walk,pile").split(",") as ("walk" | "pile")[];
/** A walkable plaza tile beside the fountain. */
const PILE = { tx: 20, ty: 14 };

function measure(scenario: "walk" | "pile", n: number, cap: number): Record<string, unknown> {
  const world = World.create({ ...lobby, proximityMaxNeighbors: cap });
  const crowd = new Crowd(world, n);
  const times: number[] = [];
  const byType: Record<string, number> = {};
  let events = 0;
  /** The most proximity events one actor was the subject of in one tick. */
  let perActorMax = 0;
  for (let t = 0; t < WARM_TICKS + MEASURED_TICKS; t++) {
    // The pile: the crowd walks as usual, then all at once heads for one tile and stays there.
    const inputs: Input[] =
      scenario === "walk" || t < WARM_TICKS
        ? crowd.inputs()
        : t === WARM_TICKS
          ? crowd.ids.map((entityId): Input => ({ kind: "moveTo", entityId, dest: PILE }))
          : [];
    const started = performance.now();
    const result = world.step(inputs);
    const ms = performance.now() - started;
    if (scenario === "pile" && t === WARM_TICKS && result.results.some((r) => !r.ok))
      throw new Error(`the pile's moveTo was refused: ${JSON.stringify(result.results.find((r) => !r.ok))}`);
    if (t < WARM_TICKS) continue;
    times.push(ms);
    events += result.events.length;
    const perSubject = new Map<unknown, number>();
    for (const event of result.events) {
      byType[event.type] = (byType[event.type] ?? 0) + 1;
      if (!event.type.startsWith("proximity.")) continue;
      const count = (perSubject.get(event.payload.subjectId) ?? 0) + 1;
      perSubject.set(event.payload.subjectId, count);
      perActorMax = Math.max(perActorMax, count);
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Number(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!.toFixed(2));
  return {
    scenario,
    actors: n,
    maxNeighbors: cap,
    stepP50Ms: at(0.5),
    stepP99Ms: at(0.99),
    eventsPerTick: Math.round(events / MEASURED_TICKS),
    byTypePerTick: Object.fromEntries(
      Object.entries(byType).map(([type, count]) => [type, Math.round((count / MEASURED_TICKS) * 10) / 10]),
    ),
    proximityEventsPerActorTickMax: perActorMax,
    /** How many ticks an actor's own newest events (event_retention_per_recipient) cover at the
     * crowd's mean rate of events per actor; the room's pool adds its share on top. */
    ownRetentionTicks:
      Math.round((lobby.eventRetentionPerRecipient / Math.max(1e-9, events / MEASURED_TICKS / n)) * 10) / 10,
  };
}

const figures: Record<string, unknown>[] = [];
for (const scenario of SCENARIOS) {
  for (const cap of CAPS) {
    for (const n of SIZES) {
      const row = measure(scenario, n, cap);
      figures.push(row);
      console.log(
        `${scenario}: ${n} actors, at most ${cap} proximity neighbours each: step p50 ${row.stepP50Ms} ms, p99 ${row.stepP99Ms} ms; ${row.eventsPerTick} events/tick (${JSON.stringify(row.byTypePerTick)}), at most ${row.proximityEventsPerActorTickMax} proximity events per actor in a tick; an actor's own ${lobby.eventRetentionPerRecipient} events cover ${row.ownRetentionTicks} ticks`,
      );
    }
  }
}
console.log(JSON.stringify({ crowd: figures }));
