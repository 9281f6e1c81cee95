// Tick-time benchmark of the world core: 100, 1000 and 5000 moving actors with proximity on, at a
// fixed density (the synthetic room grows with the actor count). Run: npx node bench/world.bench.ts
// The last output line is one JSON object with the figures.
import { parseWorld } from "../src/world/definition.ts";
import { tiledMapJson, worldToml } from "../src/world/testing/fixtures.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const COUNTS = [100, 1000, 5000] as const;
const TILES_PER_ACTOR = 16; // density: one actor per 4x4 tiles
const WARMUP_TICKS = 200;
const MEASURED_TICKS = 1000;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function syntheticWorld(actors: number) {
  const side = Math.ceil(Math.sqrt(actors * TILES_PER_ACTOR)) + 2;
  const rand = lcg(actors);
  const rows: string[] = [];
  for (let y = 0; y < side; y++) {
    let row = "";
    for (let x = 0; x < side; x++) {
      const border = x === 0 || y === 0 || x === side - 1 || y === side - 1;
      // ~4% scattered obstacles so movement exercises collision; spawn tiles (odd, odd) stay free.
      row += border || (x % 2 === 0 && rand() < 0.08) ? "#" : ".";
    }
    rows.push(row);
  }
  const spawns = [];
  for (let y = 1; y < side - 1; y += 2)
    for (let x = 1; x < side - 1; x += 2) spawns.push({ type: "spawn", name: `s_${x}_${y}`, tx: x, ty: y });
  const files = new Map<string, string>([
    [
      "world.toml",
      worldToml([{ id: "arena", rows, objects: [] }], {
        event_retention: 5000,
        proximity_radius_tiles: 3,
        proximity_debounce_ticks: 2,
      }),
    ],
    ["maps/arena.json", tiledMapJson(rows, spawns)],
  ]);
  return { def: parseWorld(files), side };
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function benchOne(count: number): { p50: number; p99: number; mean: number; events: number } {
  const { def, side } = syntheticWorld(count);
  const world = World.create(def);
  const ids = Array.from({ length: count }, (_, i) => `agt_${String(i).padStart(5, "0")}`);
  world.step(ids.map((id) => ({ kind: "join", entityId: id, actorKind: "agent", name: id }) as Input));
  const rand = lcg(count * 7 + 1);
  const dir = () => Math.floor(rand() * 3) - 1;
  // Everyone starts moving; then ~1/40 of the actors change course every tick (WASD or a short moveTo).
  world.step(ids.map((id) => ({ kind: "moveDir", entityId: id, dx: dir() || 1, dy: dir() }) as Input));
  const steer = (): Input[] => {
    const inputs: Input[] = [];
    const n = Math.max(1, Math.round(count / 40));
    for (let i = 0; i < n; i++) {
      const id = ids[Math.floor(rand() * count)]!;
      if (rand() < 0.3) {
        const e = world.getEntity(id)!;
        const tx = Math.min(side - 2, Math.max(1, e.tile.tx + Math.floor(rand() * 13) - 6));
        const ty = Math.min(side - 2, Math.max(1, e.tile.ty + Math.floor(rand() * 13) - 6));
        inputs.push({ kind: "moveTo", entityId: id, dest: { tx, ty } });
      } else inputs.push({ kind: "moveDir", entityId: id, dx: dir() || 1, dy: dir() });
    }
    return inputs;
  };
  for (let t = 0; t < WARMUP_TICKS; t++) world.step(steer());
  const times: number[] = [];
  let events = 0;
  for (let t = 0; t < MEASURED_TICKS; t++) {
    const inputs = steer();
    const started = performance.now();
    const r = world.step(inputs);
    times.push(performance.now() - started);
    events += r.events.length;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    events,
  };
}

const p50: Record<string, number> = {};
const p99: Record<string, number> = {};
const round = (v: number) => Math.round(v * 1000) / 1000;
console.log("entities  tick p50 (ms)  tick p99 (ms)  mean (ms)  events/tick");
for (const count of COUNTS) {
  const r = benchOne(count);
  p50[count] = round(r.p50);
  p99[count] = round(r.p99);
  console.log(
    `${String(count).padStart(8)}  ${r.p50.toFixed(3).padStart(13)}  ${r.p99.toFixed(3).padStart(13)}  ${r.mean.toFixed(3).padStart(9)}  ${(r.events / MEASURED_TICKS).toFixed(1).padStart(11)}`,
  );
}
const growthPerDoubling = round((p50[5000]! / p50[100]!) ** (1 / Math.log2(50)));
console.log(
  `growth per doubling (p50): ${growthPerDoubling} (target <= 2.2); p99 at 1000: ${p99[1000]} ms (target <= 10)`,
);
console.log(JSON.stringify({ tickP50Ms: p50, tickP99Ms: p99, growthPerDoubling }));
