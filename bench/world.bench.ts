// Tick-time benchmark of the world core: 100, 1000 and 5000 moving actors with proximity on, at a
// fixed density (the synthetic room grows with the actor count). Run: npx node bench/world.bench.ts
// Optional argument: a comma-separated list of counts (e.g. `5000`) to run (for profiling).
// The last output line is one JSON object with the figures.
//
// The movement model is the same at every size and keeps the density uniform, so the sizes do the
// same work per actor: each actor decides every ~40 ticks on average, either walking to a tile up to
// 6 tiles away (moveTo) or holding a direction for a burst (moveDir), then stopping. Proposals are
// symmetric and a proposal that would leave the room is refused (the actor idles instead), so actors
// do not pile up against walls (a held direction that never ends would, and would make small rooms,
// with more wall per actor, cheaper and quieter than big ones).
import { parseWorld } from "../src/world/definition.ts";
import { tiledMapJson, worldToml } from "../src/world/testing/fixtures.ts";
import type { Input } from "../src/world/types.ts";
import { World } from "../src/world/world.ts";

const COUNTS = process.argv[2] ? process.argv[2].split(",").map(Number) : [100, 1000, 5000];
const TILES_PER_ACTOR = 16; // density: one actor per 4x4 tiles
const WARMUP_TICKS = 300;
const MEASURED_TICKS = 1000;
const TILES_PER_TICK = 128 / 20 / 32; // fixture walk speed / tick rate / tile size
const HOP = 6; // max tiles per moveTo hop and per moveDir burst
const DIRS = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
] as const;

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

/** Drives the actors; all decisions happen outside the timed step. */
function driver(world: World, ids: string[], side: number, seed: number) {
  const rand = lcg(seed);
  const int = (n: number) => Math.floor(rand() * n);
  // Decisions due per tick (a ring of buckets); a stop is the end of a moveDir burst.
  const RING = 256;
  const due: { id: number; stop: boolean }[][] = Array.from({ length: RING }, () => []);
  const schedule = (tick: number, id: number, stop: boolean): void => {
    due[tick % RING]!.push({ id, stop });
  };
  for (let i = 0; i < ids.length; i++) schedule(1 + int(40), i, false);
  const inside = (tx: number, ty: number) => tx >= 1 && ty >= 1 && tx <= side - 2 && ty <= side - 2;
  return (tick: number): Input[] => {
    const bucket = due[tick % RING]!;
    due[tick % RING] = [];
    const inputs: Input[] = [];
    for (const { id: i, stop } of bucket) {
      const entityId = ids[i]!;
      if (stop) {
        inputs.push({ kind: "moveDir", entityId, dx: 0, dy: 0 });
        schedule(tick + 1 + int(20), i, false); // pause, then decide again
        continue;
      }
      const at = world.getEntity(entityId)!.tile;
      if (rand() < 0.5) {
        const tx = at.tx + int(2 * HOP + 1) - HOP;
        const ty = at.ty + int(2 * HOP + 1) - HOP;
        const hop = Math.max(Math.abs(tx - at.tx), Math.abs(ty - at.ty));
        if (inside(tx, ty) && !world.isBlocked("arena", { tx, ty }) && hop > 0) {
          inputs.push({ kind: "moveTo", entityId, dest: { tx, ty } });
          schedule(tick + Math.ceil((hop * 1.5) / TILES_PER_TICK) + int(20), i, false);
        } else schedule(tick + 1 + int(20), i, false); // refused proposal: idle
      } else {
        const [dx, dy] = DIRS[int(8)]!;
        const ticks = 5 + int(Math.floor(HOP / TILES_PER_TICK) - 5);
        const reach = Math.ceil(ticks * TILES_PER_TICK) + 1;
        if (inside(at.tx + dx * reach, at.ty + dy * reach)) {
          inputs.push({ kind: "moveDir", entityId, dx, dy });
          schedule(tick + ticks, i, true);
        } else schedule(tick + 1 + int(20), i, false);
      }
    }
    return inputs;
  };
}

interface Figures {
  p50: number;
  p99: number;
  mean: number;
  eventsPerActorTick: number;
  movingShare: number;
  pairsPerActor: number;
}

function benchOne(count: number): Figures {
  const { def, side } = syntheticWorld(count);
  const world = World.create(def);
  const ids = Array.from({ length: count }, (_, i) => `agt_${String(i).padStart(5, "0")}`);
  world.step(ids.map((id) => ({ kind: "join", entityId: id, actorKind: "agent", name: id }) as Input));
  const steer = driver(world, ids, side, count * 7 + 1);
  for (let t = 0; t < WARMUP_TICKS; t++) world.step(steer(world.tick + 1));
  const times: number[] = [];
  let events = 0;
  let moving = 0;
  let pairs = 0;
  for (let t = 0; t < MEASURED_TICKS; t++) {
    const inputs = steer(world.tick + 1);
    const started = performance.now();
    const r = world.step(inputs);
    times.push(performance.now() - started);
    events += r.events.length;
    if (t % 100 === 0) {
      // Sampled outside the timing: the share of actors walking, and proximity pairs per actor.
      const views = world.actorsInRoom("arena");
      moving += views.filter((v) => (v.speed ?? 0) > 0).length / count;
      for (const v of views) pairs += world.queryRadius("arena", v.pos, 3 * 32).length - 1;
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  const samples = MEASURED_TICKS / 100;
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    eventsPerActorTick: events / MEASURED_TICKS / count,
    movingShare: moving / samples,
    pairsPerActor: pairs / samples / count,
  };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
const p50: Record<string, number> = {};
const p99: Record<string, number> = {};
const eventsPerActorTick: Record<string, number> = {};
console.log("entities  tick p50 (ms)  tick p99 (ms)  mean (ms)  events/actor/tick  moving  neighbours/actor");
for (const count of COUNTS) {
  const r = benchOne(count);
  p50[count] = round(r.p50);
  p99[count] = round(r.p99);
  eventsPerActorTick[count] = round(r.eventsPerActorTick);
  console.log(
    `${String(count).padStart(8)}  ${r.p50.toFixed(3).padStart(13)}  ${r.p99.toFixed(3).padStart(13)}  ${r.mean.toFixed(3).padStart(9)}  ${r.eventsPerActorTick.toFixed(4).padStart(17)}  ${r.movingShare.toFixed(2).padStart(6)}  ${r.pairsPerActor.toFixed(2).padStart(16)}`,
  );
}
/** Growth of p50 per doubling of the actor count between two sizes (1 = constant, 2 = linear). */
const growth = (from: number, to: number) =>
  p50[from] && p50[to] ? round((p50[to]! / p50[from]!) ** (1 / Math.log2(to / from))) : null;
const growthPerDoubling = growth(100, 5000);
const growth1000to5000 = growth(1000, 5000);
console.log(
  `growth per doubling (p50) 100->5000: ${growthPerDoubling} (target <= 2.2), 1000->5000: ${growth1000to5000}; p99 at 1000: ${p99[1000]} ms (target <= 10)`,
);
console.log(
  JSON.stringify({
    tickP50Ms: p50,
    tickP99Ms: p99,
    growthPerDoubling,
    growth1000to5000,
    eventsPerActorTick,
  }),
);
