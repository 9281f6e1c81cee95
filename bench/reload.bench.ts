// Live reload benchmark: the bundled world (a copy) with RELOAD_ACTORS agents (default 100) walking
// about, ticking on its real timer at 20 Hz with the store and the replay history on, as a gateway
// runs it. The lobby map is changed (a wall drawn across a row of the floor) and reloaded
// (reloadWorld: the files read and checked, the redefine input applied at a tick, the new scene and a
// base snapshot stored), RELOAD_TIMES times (default 5), alternating the two maps. Reported:
//   reloadMsP50 / reloadMsMax   from the call to its answer (the change durable)
//   tickP99MsBaseline           the whole tick (step, commit, listeners) p99 over the seconds before
//   tickP99MsDuringReload       the same over the ticks from each call to 1 s after its answer
//   tickP99Ratio                the second over the first: the same run, so the same machine load
//   tickMaxMsDuringReload       the longest of those
//   loopDelayMsMaxBaseline / loopDelayMsMaxDuringReload   the event loop's longest stall (a tick
//                               waits it out), over the same windows: work between ticks shows here
//   movedPerReload              actors the wall moved, on average
//   loadAverage                 the machine's 1-minute load average at the end (2 cores here)
// Last line: one JSON object.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import { closeWorld, openWorld } from "../src/runtime/open-world.ts";
import { reloadWorld } from "../src/runtime/world-reload.ts";

const ACTORS = Number(process.env.RELOAD_ACTORS ?? 100);
const TIMES = Number(process.env.RELOAD_TIMES ?? 5);
const quiet = { info() {}, warn() {}, error() {} };
const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const round = (n: number) => Math.round(n * 100) / 100;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-bench-"));
const worldDir = path.join(dir, "world");
cpSync(BUNDLED_WORLD_DIR, worldDir, { recursive: true });
const mapFile = path.join(worldDir, "maps", "lobby.json");
const original = readFileSync(mapFile, "utf8");
const map = JSON.parse(original) as {
  width: number;
  height: number;
  layers: { name: string; data?: number[] }[];
};
const collision = map.layers.find((l) => l.name === "collision")!.data!;
// Tiles a wall may not take: the lobby's objects, and where portals of every room lead in the lobby.
const kept = new Set<string>();
for (const file of ["lobby", "garden", "town"]) {
  const other = JSON.parse(readFileSync(path.join(worldDir, "maps", `${file}.json`), "utf8")) as {
    tilewidth: number;
    layers: { objects?: { x: number; y: number; properties?: { name: string; value: unknown }[] }[] }[];
  };
  for (const o of other.layers.flatMap((l) => l.objects ?? [])) {
    const prop = (name: string) => o.properties?.find((q) => q.name === name)?.value;
    if (file === "lobby")
      kept.add(`${Math.floor(o.x / other.tilewidth)},${Math.floor(o.y / other.tilewidth)}`);
    if (prop("targetRoom") === "lobby") kept.add(`${prop("targetTx")},${prop("targetTy")}`);
  }
}
const row = Math.floor(map.height / 2);
for (let tx = 2; tx < map.width - 2; tx++)
  if (collision[row * map.width + tx] === 0 && !kept.has(`${tx},${row}`)) collision[row * map.width + tx] = 1;
const walled = JSON.stringify(map);

try {
  const host = await openWorld({
    worldDir,
    defaultRoomId: "lobby",
    storeFile: path.join(dir, "state", "world.db"),
    logger: quiet,
  });
  const ticks: { at: number; totalMs: number }[] = [];
  host.runtime.onTickTiming((t) => ticks.push({ at: performance.now(), totalMs: t.totalMs }));
  host.runtime.start();
  for (let i = 0; i < ACTORS; i++)
    void host.runtime.submit({ kind: "join", entityId: `agt_b${i}`, actorKind: "agent", name: `B${i}` });
  let walking = true;
  let n = 0;
  const walker = (async () => {
    while (walking) {
      for (let k = 0; k < 10; k++, n++) {
        const id = `agt_b${n % ACTORS}`;
        const dest = { tx: 2 + ((n * 7) % (map.width - 4)), ty: 2 + ((n * 5) % (map.height - 4)) };
        void host.runtime.submit({ kind: "moveTo", entityId: id, dest }).catch(() => {});
      }
      await pause(100);
    }
  })();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const stallMs = () => loop.max / 1e6;
  await pause(5_000);
  const baselineFrom = performance.now();
  loop.reset();
  await pause(5_000);
  const baseline = ticks.filter((t) => t.at >= baselineFrom).map((t) => t.totalMs);
  const loopDelayMsMaxBaseline = stallMs();
  let loopDelayMsMaxDuringReload = 0;
  const reloadMs: number[] = [];
  const during: number[] = [];
  let moved = 0;
  for (let i = 0; i < TIMES; i++) {
    writeFileSync(mapFile, i % 2 === 0 ? walled : original);
    loop.reset();
    const from = performance.now();
    const outcome = await reloadWorld(host, { worldDir, defaultRoomId: "lobby" });
    const to = performance.now();
    if (outcome.status !== "applied") throw new Error(`reload ${i}: ${JSON.stringify(outcome)}`);
    reloadMs.push(to - from);
    moved += outcome.moved.length;
    await pause(1_000);
    during.push(...ticks.filter((t) => t.at >= from && t.at <= to + 1_000).map((t) => t.totalMs));
    loopDelayMsMaxDuringReload = Math.max(loopDelayMsMaxDuringReload, stallMs());
    await pause(1_000);
  }
  walking = false;
  await walker;
  loop.disable();
  host.runtime.stop();
  closeWorld(host, quiet);
  const tickP99MsBaseline = p(baseline, 0.99);
  const tickP99MsDuringReload = p(during, 0.99);
  console.log(
    JSON.stringify({
      actors: ACTORS,
      reloads: TIMES,
      reloadMsP50: round(p(reloadMs, 0.5)),
      reloadMsMax: round(Math.max(...reloadMs)),
      tickP99MsBaseline: round(tickP99MsBaseline),
      tickP99MsDuringReload: round(tickP99MsDuringReload),
      tickP99Ratio: round(tickP99MsDuringReload / tickP99MsBaseline),
      tickMaxMsDuringReload: round(Math.max(...during)),
      loopDelayMsMaxBaseline: round(loopDelayMsMaxBaseline),
      loopDelayMsMaxDuringReload: round(loopDelayMsMaxDuringReload),
      movedPerReload: round(moved / TIMES),
      loadAverage: round(os.loadavg()[0]!),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
