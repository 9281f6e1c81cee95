// Replay benchmark. A recording of the PRD demo room (5 people + 10 agents in the bundled
// lobby, walking about once every 2 s each and chatting about once every 10 s each) is made through
// the real runtime, store and replay history (snapshot every 60 s of simulation time, as the gateway
// does), stepped as fast as it goes; REPLAY_MINUTES of simulation time (default 60, the issue's
// one-hour recording), figures scaled to an hour where they are per hour. Then:
//   seekP95Ms            a frame at a random tick as the replay page asks it: the desk opened the
//                        stretch (its markers re-simulated it, keeping waypoints every 200 ticks), then
//                        nearest waypoint or keyframe + logged inputs, and the room's actors and
//                        objects read; p95 over REPLAY_SEEKS (default 100);
//   seekColdP95Ms        the same from a fresh desk each time (nearest keyframe only: the figure
//                        before waypoints, measured in the same run);
//   replaySpeedX         the whole recording re-simulated from its first keyframe: simulation time
//                        per wall time;
//   liveTickCostP99Ms    what recording adds to a live tick: the history's append, p99 (the agents'
//                        turns are noted in memory during the tick's callers and written after it);
//   turnWriteP99Ms       one write of the agents' turns noted since the last (off the tick), p99;
//                        each of the 10 agents makes a request every 2 s (an observe answer ~2 KB);
//   diskBytesPerHour     the history's bytes per hour of the recording;
//   exportBytesPerHour   an export file (replay-export.ts) of the whole recording, per hour;
//   exportOpenMs         opening that file on a second replay desk (checked: every tick re-simulated).
// Last line: one JSON object.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { turnOfCall } from "../src/plugin/agent-turns.ts";
import { MAX_MARKER_TICKS, OpenedExports, ReplayDesk, replayRead } from "../src/plugin/replay-desk.ts";
import { BUNDLED_WORLD_DIR } from "../src/runtime/load-world-dir.ts";
import { closeWorld, openWorld, saveWorld } from "../src/runtime/open-world.ts";
import { Replayer } from "../src/runtime/replay-engine.ts";
import { lcg } from "../src/world/testing/plaza-crowd.ts";
import type { Input } from "../src/world/types.ts";

const MINUTES = Number(process.env.REPLAY_MINUTES ?? 60);
const SEEKS = Number(process.env.REPLAY_SEEKS ?? 100);
const quiet = { info() {}, warn() {}, error() {} };
const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const round = (n: number) => Math.round(n * 1000) / 1000;

const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-replay-bench-"));
try {
  const host = await openWorld({
    worldDir: BUNDLED_WORLD_DIR,
    defaultRoomId: "lobby",
    storeFile: path.join(dir, "world.db"),
    logger: quiet,
  });
  const history = host.history!;
  const appendMs: number[] = [];
  const append = history.append.bind(history);
  history.append = (row, time) => {
    const started = performance.now();
    append(row, time);
    appendMs.push(performance.now() - started);
  };
  const flushMs: number[] = [];
  const flush = history.flushTurns.bind(history);
  history.flushTurns = () => {
    const started = performance.now();
    flush();
    flushMs.push(performance.now() - started);
  };
  const people = [
    ...Array.from({ length: 5 }, (_, i) => ({ id: `hum_person_${i}`, kind: "human" as const })),
    ...Array.from({ length: 10 }, (_, i) => ({ id: `agt_agent_${i}`, kind: "agent" as const })),
  ];
  for (const who of people)
    void host.runtime.submit({ kind: "join", entityId: who.id, actorKind: who.kind, name: who.id.slice(4) });
  host.runtime.stepNow();
  const rand = lcg(42);
  const tickRate = host.definition.tickRate;
  const ticks = MINUTES * 60 * tickRate;
  const recordStarted = performance.now();
  for (let t = 0; t < ticks; t++) {
    const inputs: Input[] = [];
    for (const who of people) {
      if (rand() < 1 / (2 * tickRate))
        inputs.push({
          kind: "moveTo",
          entityId: who.id,
          dest: { tx: 16 + Math.floor(rand() * 13), ty: 11 + Math.floor(rand() * 10) },
        });
      if (rand() < 1 / (10 * tickRate))
        inputs.push({ kind: "chat", entityId: who.id, channel: "proximity", message: `hello at ${t}` });
    }
    for (const input of inputs) void host.runtime.submit(input);
    host.runtime.stepNow();
    // The agents' requests as the AIC service tells them (agent-turns.ts), between ticks.
    for (const who of people)
      if (who.kind === "agent" && rand() < 1 / (2 * tickRate))
        history.noteTurn(
          turnOfCall({
            caller: who.id.slice(4),
            endpoint: "observe",
            request: { agentId: who.id.slice(4), roomId: "lobby", radius: 8 },
            answer: { status: "ok", data: host.runtime.world.actorsInRoom("lobby").slice(0, 12) },
            ms: 0.4,
            tick: host.runtime.world.tick,
            time: host.runtime.world.serverTsMs,
          }),
        );
    if (t % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    if ((t + 1) % (60 * tickRate) === 0) saveWorld(host);
  }
  const recordMs = performance.now() - recordStarted;
  const [stretch] = history.stretches();
  const hours = MINUTES / 60;

  const randomTick = () => stretch!.firstTick + Math.floor(rand() * (stretch!.lastTick - stretch!.firstTick));
  // Cold: a fresh desk each time (no position, no waypoints): the nearest keyframe + logged inputs.
  const coldMs: number[] = [];
  for (let i = 0; i < SEEKS; i++) {
    const tick = randomTick();
    const desk = new ReplayDesk(host.definition, history);
    const started = performance.now();
    desk.frame(stretch!.segment, tick, "lobby");
    coldMs.push(performance.now() - started);
  }
  // As the page: one desk opens a stretch (markers; the page opens at most MAX_MARKER_TICKS, 20
  // minutes, at a time: here the recording's last), then jumps about in it.
  const desk = new ReplayDesk(host.definition, history);
  const openFrom = Math.max(stretch!.firstTick, stretch!.lastTick - MAX_MARKER_TICKS);
  const openStarted = performance.now();
  desk.markers(stretch!.segment, openFrom, stretch!.lastTick);
  const openMs = performance.now() - openStarted;
  const seekMs: number[] = [];
  for (let i = 0; i < SEEKS; i++) {
    const tick = openFrom + Math.floor(rand() * (stretch!.lastTick - openFrom));
    const started = performance.now();
    desk.frame(stretch!.segment, tick, "lobby");
    seekMs.push(performance.now() - started);
  }

  // Replay speed: the whole recording from its first keyframe, every keyframe hash checked.
  const replayStarted = performance.now();
  const whole = new Replayer(host.definition, history).seek(stretch!.segment, stretch!.lastTick, {
    verify: true,
    fromFirstKeyframe: true,
  });
  const replayMs = performance.now() - replayStarted;
  const simMs = ((stretch!.lastTick - stretch!.firstTick) * 1000) / tickRate;

  const rows = history.rows(stretch!.segment, stretch!.firstTick, stretch!.lastTick);
  const turns = history.agentTurns(stretch!.segment, stretch!.firstTick, stretch!.lastTick);
  const exported = JSON.stringify(
    replayRead(desk, "/export", new URLSearchParams({ segment: String(stretch!.segment) })),
  );
  const exportBytes = Buffer.byteLength(exported);
  const fileStarted = performance.now();
  await new OpenedExports().open(host.definition, JSON.parse(exported));
  const exportOpenMs = performance.now() - fileStarted;
  const figures = {
    recordingMinutes: MINUTES,
    ticks: rows.length,
    people: people.length,
    recordWallMs: Math.round(recordMs),
    openStretchMs: Math.round(openMs),
    seekP50Ms: round(p(seekMs, 0.5)),
    seekP95Ms: round(p(seekMs, 0.95)),
    seekColdP95Ms: round(p(coldMs, 0.95)),
    waypoints: desk.overview().waypoints,
    replaySpeedX: Math.round(simMs / replayMs),
    verifiedKeyframes: whole.verified.length,
    liveTickCostP50Ms: round(p(appendMs, 0.5)),
    liveTickCostP99Ms: round(p(appendMs, 0.99)),
    liveTickCostMaxMs: round(Math.max(...appendMs)),
    agentTurns: turns.length,
    turnWriteP99Ms: round(p(flushMs, 0.99)),
    diskBytesPerHour: Math.round(history.stats().bytes / hours),
    exportBytesPerHour: Math.round(exportBytes / hours),
    exportOpenMs: Math.round(exportOpenMs),
  };
  console.log(
    `recorded ${MINUTES} min (${rows.length} ticks, ${people.length} people) in ${Math.round(recordMs)} ms; ` +
      `seek p95 ${figures.seekP95Ms} ms (cold ${figures.seekColdP95Ms} ms); replay ${figures.replaySpeedX}x real time; history append p99 ${figures.liveTickCostP99Ms} ms`,
  );
  host.runtime.stop();
  closeWorld(host, quiet);
  console.log(JSON.stringify(figures));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
