// Failover soak: one nats-server and two real gateways in cluster mode sharing one room,
// agents acting on both over AIC (chats and moves with txIds, event polls with cursors), the room's
// owner killed with SIGKILL every `--every` seconds for `--seconds` and restarted each time, and once
// (the middle turn) paused with SIGSTOP past its lease, then resumed with SIGCONT. At the end it checks
// against the world: every acknowledged action is in the shared log exactly once, no tick is logged
// twice (or skipped), every agent's event cursor went on without a gap or a repeat across the
// takeovers, and the paused gateway wrote nothing after another took its room. The install test
// (test/install/cluster.test.ts) does one kill and one pause inside `npm test`; this is the long run.
//
// Usage: npm run cluster:soak -- [--seconds 300] [--every 20] [--agents 4] [--lease-ms 3000]
//                                 [--snapshot-every 400] [--pace-ms 100]
// Last line: one JSON object (kills, takeoverMsP50, takeoverMsMax, acked, lostAcked,
// duplicateActions, duplicateTicks, writesAfterResume, ...); exit code 1 when a check failed.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { txKey } from "../src/aic/actions.ts";
import { decodeEventCursor } from "../src/aic/cursor.ts";
import { type ClusterResources, connectCluster, LOG_STREAM, logSubject } from "../src/cluster/nats.ts";
import { directoryEntry } from "../src/cluster/ownership.ts";
import { type LogRecord, lastSequence, restoreRoom } from "../src/cluster/shared-log.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { aicCall, launchClusterGateway, running, standingBy, until } from "./lib/cluster.ts";
import { freePort, type LaunchedGateway, randomToken } from "./lib/gateway.ts";
import { type LaunchedNats, launchNats } from "./lib/nats-server.ts";
import { buildWebIfNeeded } from "./lib/web-build.ts";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "300" },
    every: { type: "string", default: "20" },
    agents: { type: "string", default: "4" },
    "lease-ms": { type: "string", default: "3000" },
    "snapshot-every": { type: "string", default: "400" },
    "pace-ms": { type: "string", default: "100" },
    gateways: { type: "string", default: "2" },
  },
});
const SECONDS = Number(args.seconds);
const EVERY = Number(args.every);
const AGENTS = Number(args.agents);
const TTL_MS = Number(args["lease-ms"]);
const SNAPSHOT_EVERY = Number(args["snapshot-every"]);
const PACE_MS = Number(args["pace-ms"]);
const GATEWAYS = Number(args.gateways);
const ROOM = "lobby-world";
const AIC_ROOM = "lobby";
/** A request to a paused or dying gateway is given up after this and tried on the other one. */
const REQUEST_TIMEOUT_MS = 8_000;

const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function percentile(values: number[], p: number): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : null;
}

// ---- processes --------------------------------------------------------------------------------

interface Slot {
  gatewayId: string;
  stateRoot: string;
  port: number;
  baseUrl: string;
  gatewayToken: string;
  /** The running process once its launch resolved (it served the room at least once). */
  gw: LaunchedGateway | undefined;
  starting: Promise<LaunchedGateway | undefined> | undefined;
  abort: AbortController;
  starts: number;
}

const agents = Array.from({ length: AGENTS }, (_, i) => ({
  agentId: `agent_soak_${i}`,
  entityId: `agt_agent_soak_${i}`,
  token: randomToken(),
}));
const agentConfig = Object.fromEntries(
  agents.map((a) => [a.agentId, { token: a.token, name: `Soak ${a.agentId}` }]),
);

let tmp: string | undefined;
let nats: LaunchedNats | undefined;
let resources: ClusterResources | undefined;
const slots: Slot[] = [];
let stopping = false;

function start(slot: Slot): void {
  slot.abort = new AbortController();
  slot.gw = undefined;
  slot.starts += 1;
  slot.starting = launchClusterGateway({
    natsUrl: nats!.url,
    gatewayId: slot.gatewayId,
    stateRoot: slot.stateRoot,
    port: slot.port,
    gatewayToken: slot.gatewayToken,
    room: ROOM,
    leaseTtlMs: TTL_MS,
    snapshotEveryTicks: SNAPSHOT_EVERY,
    agents: agentConfig,
    signal: slot.abort.signal,
  }).then(
    (gw) => {
      slot.gw = gw;
      return gw;
    },
    (error: unknown) => {
      if (!stopping) log(`${slot.gatewayId} did not start: ${String(error)}`);
      return undefined;
    },
  );
}

function exited(gw: LaunchedGateway): Promise<void> {
  if (gw.child.exitCode !== null || gw.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => gw.child.once("exit", () => resolve()));
}

async function stopAll(): Promise<void> {
  await stopGateways();
  await resources?.close().catch(() => undefined);
  await nats?.stop().catch(() => undefined);
  if (tmp) await rm(tmp, { recursive: true, force: true });
}

async function stopGateways(): Promise<void> {
  stopping = true;
  for (const slot of slots) {
    slot.abort.abort();
    const gw = slot.gw ?? (await Promise.race([slot.starting, sleep(100).then(() => undefined)]));
    if (gw && gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill("SIGCONT");
  }
  await Promise.all(
    slots.map(async (slot) => {
      await slot.starting?.catch(() => undefined);
      await slot.gw?.stop().catch(() => undefined);
    }),
  );
}

// ---- the room's log, read as it grows -----------------------------------------------------------

interface Logged {
  seq: number;
  record: LogRecord;
}
const logged: Logged[] = [];
let readerGaps = 0;
const decoder = new TextDecoder();

/** Reads the room's subject from its first record on, as it is stored, through one consumer that
 * lives as long as the soak: the owners trim the log behind their snapshots, and the server delivers
 * each record as it is stored, before any trim. A jump in sequences would be a part this reader
 * missed: counted, as the checks below would then be incomplete. */
async function readLogContinuously(signal: AbortSignal): Promise<void> {
  const js = jetstream(resources!.nc);
  const consumer = await js.consumers.get(LOG_STREAM, {
    filter_subjects: logSubject(ROOM),
    deliver_policy: DeliverPolicy.All,
  });
  const messages = await consumer.consume();
  signal.addEventListener("abort", () => messages.stop());
  let next = 1;
  for await (const message of messages) {
    if (message.seq !== next) readerGaps += Math.abs(message.seq - next);
    next = message.seq + 1;
    const record = JSON.parse(decoder.decode(message.data)) as LogRecord;
    logged.push({ seq: message.seq, record });
    if (record.kind === "epoch")
      log(`log: epoch ${record.epoch} taken by ${record.gatewayId} at tick ${record.tick}`);
  }
}

// ---- agents -----------------------------------------------------------------------------------

interface Acked {
  agentId: string;
  txId: string;
  key: string;
  kind: "chat" | "move";
  message?: string;
  via: string;
}
const acked: Acked[] = [];
const answers = new Map<string, number>();
const oddAnswers: string[] = [];
const count = (what: string) => answers.set(what, (answers.get(what) ?? 0) + 1);

/** Sends one action until some gateway acknowledges it (the same txId and payload each time: a
 * retry of something already applied is answered from the world's records, not applied again). */
async function act(
  agent: (typeof agents)[number],
  lane: { slot: number },
  endpoint: string,
  body: Record<string, unknown>,
): Promise<{ via: string; text: string } | undefined> {
  while (!stopping) {
    const slot = slots[lane.slot]!;
    try {
      const answer = await aicCall(slot.baseUrl, agent.token, endpoint, body, REQUEST_TIMEOUT_MS);
      count(`${endpoint} ${answer.status}`);
      if (answer.status >= 500 && answer.status !== 503 && oddAnswers.length < 10)
        oddAnswers.push(`${slot.gatewayId} ${endpoint} ${answer.status}: ${answer.text.slice(0, 300)}`);
      if (answer.status === 200) return { via: slot.gatewayId, text: answer.text };
      // A domain refusal is an answer (nothing to retry); a gateway not serving the room (503, or
      // a redirect) or a limit is tried again.
      if (
        answer.status < 500 &&
        answer.status !== 429 &&
        !(answer.status >= 300 && answer.status < 400) &&
        answer.status !== 421
      )
        return undefined;
    } catch {
      count(`${endpoint} no answer`);
    }
    lane.slot = (lane.slot + 1) % slots.length;
    await sleep(100);
  }
  return undefined;
}

async function agentLane(agent: (typeof agents)[number], index: number): Promise<void> {
  const lane = { slot: index % slots.length };
  const dests = [
    { tx: 10, ty: 8 },
    { tx: 12, ty: 8 },
  ];
  for (let n = 0; !stopping; n++) {
    const txId = `tx_soak_${index}_${String(n).padStart(6, "0")}`;
    const kind = n % 3 === 2 ? "move" : "chat";
    const message = `[soak ${agent.agentId} #${n}]`;
    const body =
      kind === "chat"
        ? { agentId: agent.agentId, roomId: AIC_ROOM, txId, channel: "global", message }
        : { agentId: agent.agentId, roomId: AIC_ROOM, txId, dest: dests[n % 2] };
    const done = await act(agent, lane, kind === "chat" ? "chatSend" : "moveTo", body);
    if (done)
      acked.push({
        agentId: agent.agentId,
        txId,
        key: txKey(agent.agentId, AIC_ROOM, txId),
        kind,
        ...(kind === "chat" ? { message } : {}),
        via: done.via,
      });
    await sleep(PACE_MS);
  }
}

/** Each agent's event feed, polled with its cursor from whichever gateway answers. */
interface Feed {
  chats: Map<string, number>;
  lastSeq: number;
  cursor: string;
  repeats: number;
  expired: number;
  dropped: number;
  polls: number;
}
const feeds = new Map<string, Feed>();

async function pollOnce(agent: (typeof agents)[number], lane: { slot: number }, feed: Feed, waitMs: number) {
  const slot = slots[lane.slot]!;
  const body = { agentId: agent.agentId, roomId: AIC_ROOM, sinceCursor: feed.cursor, limit: 200, waitMs };
  let answer: { status: number; text: string };
  try {
    answer = await aicCall(slot.baseUrl, agent.token, "pollEvents", body, REQUEST_TIMEOUT_MS + waitMs);
  } catch {
    lane.slot = (lane.slot + 1) % slots.length;
    return false;
  }
  count(`pollEvents ${answer.status}`);
  const parsed = JSON.parse(answer.text) as {
    data?: { events: { cursor: string; type: string; payload: { message?: string } }[]; nextCursor: string };
    error?: { details?: { reason?: string; nextCursor?: string; droppedCount?: number } };
  };
  if (answer.status !== 200 || !parsed.data) {
    const details = parsed.error?.details;
    if (details?.reason === "cursor_expired" && details.nextCursor) {
      feed.expired += 1;
      feed.dropped += details.droppedCount ?? 0;
      log(`${agent.agentId}: cursor expired on ${slot.gatewayId} (${details.droppedCount} dropped)`);
      feed.cursor = details.nextCursor;
      return false;
    }
    lane.slot = (lane.slot + 1) % slots.length;
    return false;
  }
  feed.polls += 1;
  for (const event of parsed.data.events) {
    const decoded = decodeEventCursor(event.cursor);
    const seq = decoded.ok ? decoded.position.afterSeq : Number.NaN;
    if (!(seq > feed.lastSeq)) feed.repeats += 1;
    else feed.lastSeq = seq;
    if (event.type === "chat.message" && event.payload.message)
      feed.chats.set(event.payload.message, (feed.chats.get(event.payload.message) ?? 0) + 1);
  }
  feed.cursor = parsed.data.nextCursor;
  return parsed.data.events.length > 0;
}

async function pollLane(agent: (typeof agents)[number], index: number): Promise<void> {
  const lane = { slot: index % slots.length };
  const feed = feeds.get(agent.agentId)!;
  while (!stopping) {
    if (!(await pollOnce(agent, lane, feed, 1000))) await sleep(200);
  }
}

// ---- the run ----------------------------------------------------------------------------------

interface Turn {
  kind: "kill" | "pause";
  victim: string;
  atS: number;
  epochBefore: number;
  takeoverMs: number;
  epochAfter: number;
  restartedStandbyMs?: number;
  resumedStoppedServingMs?: number;
}

const turns: Turn[] = [];

async function ownerSlot(): Promise<{ slot: Slot; epoch: number }> {
  return until("a live owner", async () => {
    const entry = await directoryEntry(resources!, ROOM);
    const slot = slots.find((s) => s.gatewayId === entry?.gatewayId);
    if (!entry || !slot) return undefined;
    return (await running(slot.baseUrl)) ? { slot, epoch: entry.epoch } : undefined;
  });
}

async function main(): Promise<number> {
  await buildWebIfNeeded();
  tmp = await mkdtemp(path.join(os.tmpdir(), "ocw-cluster-soak-"));
  nats = await launchNats({ storeDir: path.join(tmp, "nats") });
  resources = await connectCluster({ servers: [nats.url] }, { leaseTtlMs: TTL_MS });
  const definition = await loadWorldDir(BUNDLED_WORLD_DIR);
  for (const gatewayId of Array.from({ length: GATEWAYS }, (_, i) => `gw-${String.fromCharCode(97 + i)}`)) {
    const port = await freePort();
    slots.push({
      gatewayId,
      stateRoot: path.join(tmp, gatewayId),
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      gatewayToken: randomToken(),
      gw: undefined,
      starting: undefined,
      abort: new AbortController(),
      starts: 0,
    });
  }
  const readerStop = new AbortController();
  const reader = readLogContinuously(readerStop.signal);
  log(`nats ${nats.url}; starting gw-a, then gw-b`);
  start(slots[0]!);
  if (!(await slots[0]!.starting)) throw new Error("gw-a did not start");
  for (const slot of slots.slice(1)) start(slot);
  for (const slot of slots.slice(1))
    await until(`${slot.gatewayId} to stand by`, () => standingBy(slot), 600_000);
  log(`gw-a serves (epoch ${(await directoryEntry(resources, ROOM))?.epoch}); the others stand by`);

  for (const agent of agents) {
    const joined = await aicCall(slots[0]!.baseUrl, agent.token, "join", {
      agentId: agent.agentId,
      roomId: AIC_ROOM,
    });
    if (joined.status !== 200) throw new Error(`join ${agent.agentId}: ${joined.status} ${joined.text}`);
    feeds.set(agent.agentId, {
      chats: new Map(),
      lastSeq: 0,
      cursor: "c_0",
      repeats: 0,
      expired: 0,
      dropped: 0,
      polls: 0,
    });
  }
  const lanes = agents.flatMap((agent, i) => [agentLane(agent, i), pollLane(agent, i)]);

  const startedAt = performance.now();
  const plannedTurns = Math.max(1, Math.floor(SECONDS / EVERY));
  const pauseTurn = Math.floor(plannedTurns / 2);
  let pausedEpoch: number | undefined;
  for (let turn = 1; turn <= plannedTurns; turn++) {
    await sleep(Math.max(0, startedAt + turn * EVERY * 1000 - performance.now()));
    const { slot: victim, epoch } = await ownerSlot();
    const others = slots.filter((s) => s !== victim);
    // Another gateway must be up and standing by, or there is nobody to take over.
    await until(
      "another gateway to stand by",
      async () =>
        (await Promise.all(others.map((s) => standingBy(s).catch(() => undefined)))).some(Boolean)
          ? true
          : undefined,
      600_000,
    );
    const gw = victim.gw ?? (await victim.starting);
    if (!gw) throw new Error(`${victim.gatewayId} owns the room but its process is unknown`);
    const kind = turn === pauseTurn ? "pause" : "kill";
    const at = performance.now();
    gw.child.kill(kind === "pause" ? "SIGSTOP" : "SIGKILL");
    const other = await until(
      "another gateway to take the room",
      async () => {
        const serving = await Promise.all(others.map((s) => running(s.baseUrl).catch(() => undefined)));
        return others.find((_, i) => serving[i]);
      },
      120_000,
    );
    const takeoverMs = Math.round(performance.now() - at);
    const epochAfter = (await directoryEntry(resources, ROOM))?.epoch ?? -1;
    const record: Turn = {
      kind,
      victim: victim.gatewayId,
      atS: Math.round((at - startedAt) / 1000),
      epochBefore: epoch,
      takeoverMs,
      epochAfter,
    };
    turns.push(record);
    if (kind === "pause") {
      pausedEpoch = epoch;
      gw.child.kill("SIGCONT");
      const resumed = performance.now();
      await until(
        `${victim.gatewayId} to stop serving after SIGCONT`,
        async () => ((await running(victim.baseUrl)) ? undefined : true),
        60_000,
      );
      record.resumedStoppedServingMs = Math.round(performance.now() - resumed);
      log(
        `turn ${turn}: paused ${victim.gatewayId} (epoch ${epoch}); ${other.gatewayId} served ${takeoverMs} ms later (epoch ${epochAfter}); resumed, it stopped serving in ${record.resumedStoppedServingMs} ms`,
      );
    } else {
      await exited(gw);
      start(victim);
      log(
        `turn ${turn}: killed ${victim.gatewayId} (epoch ${epoch}); ${other.gatewayId} served ${takeoverMs} ms later (epoch ${epochAfter}); ${acked.length} acknowledged so far`,
      );
      const restartAt = performance.now();
      // Watched beside the turns; it gives up when the soak stops (it would keep the process alive).
      void until(
        `${victim.gatewayId} to stand by again`,
        async () => (stopping ? false : standingBy(victim)),
        600_000,
      ).then(
        (stood) => {
          if (stood === true) record.restartedStandbyMs = Math.round(performance.now() - restartAt);
        },
        () => undefined,
      );
    }
  }
  await sleep(Math.max(0, startedAt + SECONDS * 1000 - performance.now()));

  // Wind down: stop acting, let the feeds catch up with the last acknowledged chats.
  log("stopping the agents");
  const stopLanes = lanes.map((l) => l.catch(() => undefined));
  stopping = true;
  await Promise.all(stopLanes);
  stopping = false;
  const owner = await ownerSlot();
  for (const agent of agents) {
    const feed = feeds.get(agent.agentId)!;
    const lane = { slot: slots.indexOf(owner.slot) };
    for (let i = 0; i < 20 && (await pollOnce(agent, lane, feed, 0)); i++);
  }
  for (const turn of turns) {
    if (turn.kind === "kill" && turn.restartedStandbyMs === undefined) turn.restartedStandbyMs = -1;
  }
  // Every gateway stops (a clean stop releases the lease, so the room may change hands once more
  // meanwhile); then nothing writes, and the log and the world are compared at rest.
  const finalEpochServed = (await directoryEntry(resources, ROOM))?.epoch ?? null;
  await stopGateways();
  const finalSeq = await lastSequence(resources, ROOM);
  await until("the log reader to catch up", async () =>
    logged.at(-1) && logged.at(-1)!.seq >= finalSeq ? true : undefined,
  );
  readerStop.abort();
  await reader;

  // ---- the checks ----
  const ticks = logged.flatMap((l) => (l.record.kind === "tick" ? [l.record] : []));
  const tickNumbers = new Map<number, number>();
  for (const t of ticks) tickNumbers.set(t.tick, (tickNumbers.get(t.tick) ?? 0) + 1);
  const duplicateTicks = [...tickNumbers.values()].filter((n) => n > 1).length;
  let tickGaps = 0;
  for (let i = 1; i < ticks.length; i++) if (ticks[i]!.tick !== ticks[i - 1]!.tick + 1) tickGaps += 1;
  // Writes by a deposed owner: any record whose epoch is older than a fence before it.
  let fenceEpoch = 0;
  let staleWrites = 0;
  let writesAfterResume = 0;
  for (const { record } of logged) {
    if (record.kind === "epoch") {
      if (record.epoch <= fenceEpoch) staleWrites += 1;
      fenceEpoch = Math.max(fenceEpoch, record.epoch);
    } else if (record.epoch !== fenceEpoch) {
      staleWrites += 1;
      if (record.epoch === pausedEpoch) writesAfterResume += 1;
    }
  }
  const inLog = new Map<string, number>();
  for (const t of ticks)
    for (const input of t.inputs) if (input.tx) inLog.set(input.tx.key, (inLog.get(input.tx.key) ?? 0) + 1);
  const lostAcked = acked.filter((a) => !inLog.has(a.key));
  const duplicateActions = acked.filter((a) => (inLog.get(a.key) ?? 0) > 1).length;
  // Every agent's feed: each acknowledged chat heard exactly once, event sequences only growing.
  const ackedChats = acked.filter((a) => a.kind === "chat");
  let missingEvents = 0;
  let duplicateEvents = 0;
  for (const feed of feeds.values())
    for (const chat of ackedChats) {
      const heard = feed.chats.get(chat.message!) ?? 0;
      if (heard === 0) missingEvents += 1;
      if (heard > 1) duplicateEvents += 1;
    }
  const feedList = [...feeds.values()];
  const cursorRepeats = feedList.reduce((n, f) => n + f.repeats, 0);
  const cursorExpired = feedList.reduce((n, f) => n + f.expired, 0);
  // The world itself, rebuilt from snapshot + log (every tick's digest checked on the way).
  const restored = await restoreRoom(resources, ROOM, definition);
  const lastTick = ticks.at(-1)?.tick ?? 0;

  const kills = turns.filter((t) => t.kind === "kill");
  const takeovers = turns.map((t) => t.takeoverMs);
  const result = {
    seconds: SECONDS,
    every: EVERY,
    agents: AGENTS,
    leaseTtlMs: TTL_MS,
    snapshotEveryTicks: SNAPSHOT_EVERY,
    kills: kills.length,
    pauses: turns.length - kills.length,
    takeoverMsP50: percentile(takeovers, 50),
    takeoverMsMax: takeovers.length ? Math.max(...takeovers) : null,
    takeoversMs: takeovers,
    /** From a kill until the restarted gateway stood by again (-1: not by the end). */
    restartToStandbyMs: kills.map((t) => t.restartedStandbyMs ?? -1),
    /** When each turn came, in seconds from the start of the load. */
    turnsAtS: turns.map((t) => t.atS),
    pausedStoppedServingMs: turns.find((t) => t.kind === "pause")?.resumedStoppedServingMs ?? null,
    finalEpochServed,
    unplannedTakeovers: finalEpochServed === null ? null : finalEpochServed - 1 - turns.length,
    epochs: logged.flatMap(({ record }) =>
      record.kind === "epoch" ? [`${record.epoch}:${record.gatewayId}@${record.tick}`] : [],
    ),
    gateways: GATEWAYS,
    starts: Object.fromEntries(slots.map((s) => [s.gatewayId, s.starts])),
    acked: acked.length,
    ackedChats: ackedChats.length,
    ackedMoves: acked.length - ackedChats.length,
    ackedVia: Object.fromEntries(
      slots.map((s) => [s.gatewayId, acked.filter((a) => a.via === s.gatewayId).length]),
    ),
    lostAcked: lostAcked.length,
    duplicateActions,
    logRecords: logged.length,
    loggedTicks: ticks.length,
    duplicateTicks,
    tickGaps,
    staleWrites,
    writesAfterResume,
    readerGaps,
    restoredTick: restored.world.tick,
    lastLoggedTick: lastTick,
    eventPolls: feedList.reduce((n, f) => n + f.polls, 0),
    missingEvents,
    duplicateEvents,
    cursorRepeats,
    cursorExpired,
    answers: Object.fromEntries([...answers].sort()),
    oddAnswers,
  };
  const failed =
    result.lostAcked +
      duplicateActions +
      duplicateTicks +
      tickGaps +
      staleWrites +
      writesAfterResume +
      missingEvents +
      duplicateEvents +
      cursorRepeats +
      cursorExpired >
      0 ||
    readerGaps !== 0 ||
    restored.world.tick !== lastTick;
  if (lostAcked.length)
    log(
      `lost acknowledged: ${lostAcked
        .slice(0, 10)
        .map((a) => a.txId)
        .join(", ")}`,
    );
  log(failed ? "FAILED: see the figures" : "every check passed");
  await stopAll();
  console.log(JSON.stringify({ ok: !failed, ...result }));
  return failed ? 1 : 0;
}

process.once("SIGINT", () => {
  log("interrupted: stopping every process");
  stopAll().finally(() => process.exit(130));
});

try {
  process.exitCode = await main();
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await stopAll();
  console.log(
    JSON.stringify({
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      kills: turns.filter((t) => t.kind === "kill").length,
      takeoversMs: turns.map((t) => t.takeoverMs),
      acked: acked.length,
    }),
  );
  process.exitCode = 1;
}
