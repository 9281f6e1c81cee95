// The load harness: a real gateway on loopback in an isolated state directory, H humans
// as real WebSocket clients walking and chatting, A agents moving, observing, chatting and reading
// their events: most over AIC HTTP (long-polls), a share (`toolShare`) through the plugin's tools,
// which the gateway runs in-process (POST /tools/invoke with the gateway token, as an OpenClaw agent
// would call them). It measures what a user meets:
//   - input -> authoritative update latency as ANOTHER client sees it: a mover that has stood still
//     sends a move (WS act moveTo, HTTP moveTo or the ocw_move_to tool) at t0; every watching human
//     that has the mover in view records when its first delta moving that entity arrives (one clock:
//     all clients live here), overall and per kind of mover;
//   - tick time (the gateway's own histogram at /world/metrics, phase="total": step + durable commit +
//     answers), the browsers' patch fan-out after it (delivery to the last browser, patches per second
//     and skipped), RSS, CPU, event log depth and rate-limited count from the same scrape;
//   - frames and bytes per human client per second, dropped connections;
//   - cursor integrity per agent: event seqs strictly increasing, no duplicates, pages that continue
//     exactly where the previous one ended, no cursor_expired, and every global chat acknowledged while
//     the agent was present delivered to it exactly once (HTTP agents; tool agents check their seqs);
//   - the harness's own CPU, so a run can tell when the load generator, not the gateway, is the limit.
// Only the first `watchers` humans decode the world deltas they receive (the latency observers); the
// others count their frames and bytes and decode only the small text messages, which keeps the
// harness cheap enough to drive ~1,000 clients from the same 2-core machine as the gateway.
// Rate limits are raised for the run (every class 1,000/s, burst 1,000) so it measures the world, not
// the limiter; the limiter still runs and its refusals are counted. The WebSocket admission caps
// (web.maxConnections, maxConnectionsPerAddress, maxHumans) are raised to fit: all humans are local. Loops are bounded and the run stops
// by itself; the gateway is stopped with SIGTERM and its state directory removed.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { DEFAULT_RATE_CLASSES } from "../../src/aic/rate-limit.ts";
import { DEFAULT_FANOUT } from "../../src/config/config.ts";
import { type DeltaDecoder, ServerFrameReader } from "../../src/http/humans/wire-delta.ts";
import { type LaunchedGateway, launchGateway, randomToken } from "./gateway.ts";
import { postJson } from "./post-json.ts";

export interface LoadOptions {
  humans: number;
  agents: number;
  /** Measured duration (after everyone joined). */
  seconds: number;
  /** How often a progress line is printed and a time-series point recorded. */
  reportEverySec?: number;
  onProgress?: (line: string) => void;
  /** Where humans walk: a box of tiles (default: the lobby's plaza). */
  walkBox?: { tx0: number; ty0: number; tx1: number; ty1: number };
  /** Patches per second to each browser (plugin config web.patchRate; default: every tick). */
  patchRate?: number;
  /** How long the gateway may take to come up (a busy machine is slow). */
  readyTimeoutMs?: number;
  /** Share of the agents that act through the plugin's tools in the gateway (default 0.2). */
  toolShare?: number;
  /** How many humans decode deltas to observe moves (default 64). */
  watchers?: number;
  /** Write the gateway's V8 CPU profile here when it stops (where its time goes under this load). */
  cpuProfileDir?: string;
  /** Flags for the gateway's node process (e.g. V8 heap sizes), which the harness does not take. */
  gatewayNodeFlags?: string[];
  /** Where the browsers' fan-out runs (plugin config web.fanout; default: the plugin's default). */
  fanout?: "process" | "inline";
}

/** Who sent a move: a browser over WebSocket, an agent over AIC HTTP, an agent through the tools. */
export type MoverKind = "human" | "http" | "tool";
const MOVER_KINDS: MoverKind[] = ["human", "http", "tool"];

export interface SeriesPoint {
  tSec: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  tickP50Ms: number | null;
  tickP99Ms: number | null;
  patchDeliveryP99Ms: number | null;
  rssMiB: number;
  /** What the RSS holds: the V8 heap (used, and reserved) and memory outside it (`external`: Buffers,
   * ArrayBuffers, strings held by native code; `arrayBuffers` is the Buffer/ArrayBuffer part of it). */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  cpuPct: number;
  bytesPerClientPerSec: number;
  connected: number;
  /** The load generator's own CPU (% of one core). */
  harnessCpuPct: number;
}

export interface AgentTraffic {
  agents: number;
  requests: number;
  requestsPerAgentPerSec: number;
  errors: number;
  /** HTTP agents: the error answers by code (`transport`: no answer). */
  errorsByCode?: Record<string, number>;
}

interface Counters {
  requests: number;
  errors: number;
  errorsByCode: Record<string, number>;
}

function countError(counters: Counters, code: string): void {
  counters.errors += 1;
  counters.errorsByCode[code] = (counters.errorsByCode[code] ?? 0) + 1;
}

export interface LoadReport {
  humans: number;
  agents: number;
  seconds: number;
  latency: { samples: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number; lost: number };
  /** The same latency by kind of mover. */
  latencyByMover: Record<MoverKind, { samples: number; p50Ms: number; p95Ms: number }>;
  tick: { count: number; p50Ms: number; p99Ms: number; stepP99Ms: number; hz: number };
  /** The browsers' patches, fanned out after the tick: delivery (tick to last browser) and work
   * percentiles, patches sent per second, and patches skipped because the previous was still going out. */
  patches: {
    deliveryP50Ms: number;
    deliveryP99Ms: number;
    workP99Ms: number;
    perSec: number;
    skipped: number;
  };
  rssMiB: { start: number; end: number; max: number };
  /** The gateway's process.memoryUsage() at the start and end of the measured window (MiB). */
  memoryMiB: Record<"start" | "end", Record<MemoryType, number>>;
  cpuPct: number;
  /** The gateway's main thread alone (% of one core), and the fan-out process's (0 when inline). */
  gatewayThreadCpuPct: number;
  childCpuPct: number;
  /** How long the gateway's main thread waited for a core while ready to run (% of the time): the
   * machine's share of a slow tick (the harness and a fan-out child compete for the same cores). */
  gatewayThreadWaitPct: number;
  /** The same for the fan-out child's main thread (0 inline; a run with a restart undercounts). */
  childWaitPct: number;
  fanout: "process" | "inline";
  eventLogDepth: number;
  humansTraffic: { framesPerClientPerSec: number; bytesPerClientPerSec: number };
  /** All agents together, then split: over AIC HTTP and through the tools (POST /tools/invoke). */
  agentsTraffic: AgentTraffic;
  httpAgentsTraffic: AgentTraffic;
  toolAgentsTraffic: AgentTraffic & { latencyP50Ms: number; latencyP95Ms: number };
  /** The harness process's CPU over the measured window (% of one core) and the watchers used. */
  harnessCpuPct: number;
  watchers: number;
  droppedConnections: number;
  dropReasons: string[];
  /** Humans that got in, and those refused (or never welcomed) after every attempt. */
  humansJoined: number;
  joinFailures: number;
  joinFailureSamples: string[];
  rateLimited: { serverTotal: number; answersSeen: number };
  cursorErrors: number;
  /** Of cursorErrors, those that were `cursor_expired` (the agent fell out of the room's retained events). */
  cursorExpired: number;
  cursorErrorSamples: string[];
  chatsChecked: number;
  series: SeriesPoint[];
  loadAverage: number[];
  gatewayStartupMs: number;
}

// ---- small statistics ----------------------------------------------------------------------------

/** Latencies in 0.25 ms bins up to 10 s (beyond counts in the last bin): exact enough, bounded memory. */
export class LatencyHistogram {
  private readonly bins = new Uint32Array(40_001);
  count = 0;
  max = 0;
  add(ms: number): void {
    this.bins[Math.min(40_000, Math.max(0, Math.round(ms * 4)))]! += 1;
    this.count += 1;
    if (ms > this.max) this.max = ms;
  }
  quantile(q: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i < this.bins.length; i++) {
      seen += this.bins[i]!;
      if (seen >= rank) return i / 4;
    }
    return this.max;
  }
  reset(): void {
    this.bins.fill(0);
    this.count = 0;
    this.max = 0;
  }
}

/** A Prometheus histogram's cumulative buckets: le (seconds) -> count. */
type Buckets = Map<number, number>;

/** Quantile (ms) from the difference of two cumulative bucket sets, interpolated inside the bucket. */
export function bucketQuantileMs(now: Buckets, before: Buckets | undefined, q: number): number | null {
  const les = [...now.keys()].sort((a, b) => a - b);
  const counts = les.map((le) => (now.get(le) ?? 0) - (before?.get(le) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (let i = 0; i < les.length; i++) {
    const le = les[i]!;
    if (counts[i]! >= rank) {
      if (!Number.isFinite(le)) return lower * 1000;
      const inBucket = counts[i]! - below;
      const frac = inBucket > 0 ? (rank - below) / inBucket : 1;
      return (lower + (le - lower) * frac) * 1000;
    }
    below = counts[i]!;
    lower = Number.isFinite(le) ? le : lower;
  }
  return lower * 1000;
}

interface Scrape {
  atMs: number;
  tickTotal: Buckets;
  tickStep: Buckets;
  /** Each patch's fan-out to the browsers (after its tick): to the last browser, and the work. */
  patchDelivery: Buckets;
  patchWork: Buckets;
  patchesSkipped: number;
  ticks: number;
  rssBytes: number;
  /** openclawworld_process_memory_bytes by type (rss is also rssBytes). */
  memoryBytes: Record<MemoryType, number>;
  cpuSeconds: number;
  /** The gateway's main thread alone, and the fan-out process (0 when inline). */
  threadCpuSeconds: number;
  fanoutCpuSeconds: number;
  /** Time the gateway's main thread was ready to run but waited for a core (/proc schedstat). */
  threadWaitSeconds: number;
  childWaitSeconds: number;
  eventLogDepth: number;
  rateLimited: number;
  connected: number;
}

const MEMORY_TYPES = ["rss", "heap_used", "heap_total", "external", "array_buffers"] as const;
type MemoryType = (typeof MEMORY_TYPES)[number];
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const memoryMiB = (scrape: Scrape) =>
  Object.fromEntries(MEMORY_TYPES.map((type) => [type, mib(scrape.memoryBytes[type])])) as Record<
    MemoryType,
    number
  >;

/** Seconds the process's main thread spent runnable but not running: the second field of
 * /proc/<pid>/schedstat (ns); 0 where there is no such file. */
function threadWaitSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e9 || 0;
  } catch {
    return 0;
  }
}

/** The same for the gateway's fan-out child (found among its children by its module's name). */
function childWaitSeconds(gatewayPid: number): number {
  try {
    const children = readFileSync(`/proc/${gatewayPid}/task/${gatewayPid}/children`, "utf8")
      .trim()
      .split(" ");
    const child = children.find((pid) => {
      try {
        return /fanout-child|child-main/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      } catch {
        return false;
      }
    });
    return child ? threadWaitSeconds(Number(child)) : 0;
  } catch {
    return 0;
  }
}

/** Reads the figures the harness needs from the Prometheus text. */
export function parseMetrics(text: string, atMs: number): Scrape {
  const scrape: Scrape = {
    atMs,
    tickTotal: new Map(),
    tickStep: new Map(),
    patchDelivery: new Map(),
    patchWork: new Map(),
    patchesSkipped: 0,
    ticks: 0,
    rssBytes: 0,
    memoryBytes: { rss: 0, heap_used: 0, heap_total: 0, external: 0, array_buffers: 0 },
    cpuSeconds: 0,
    threadCpuSeconds: 0,
    fanoutCpuSeconds: 0,
    threadWaitSeconds: 0,
    childWaitSeconds: 0,
    eventLogDepth: 0,
    rateLimited: 0,
    connected: 0,
  };
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    const series = line.slice(0, space);
    const value = Number(line.slice(space + 1));
    const bucket = /^openclawworld_tick_duration_seconds_bucket\{le="([^"]+)",phase="(step|total)"\}$/.exec(
      series,
    );
    const patch =
      /^openclawworld_patch_duration_seconds_bucket\{le="([^"]+)",phase="(delivery|work)"\}$/.exec(series);
    if (bucket) {
      const le = bucket[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(bucket[1]);
      (bucket[2] === "total" ? scrape.tickTotal : scrape.tickStep).set(le, value);
    } else if (patch) {
      const le = patch[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(patch[1]);
      (patch[2] === "delivery" ? scrape.patchDelivery : scrape.patchWork).set(le, value);
    } else if (series === "openclawworld_patches_skipped_total") scrape.patchesSkipped = value;
    else if (series === "openclawworld_ticks_total") scrape.ticks = value;
    else if (series.startsWith("openclawworld_process_memory_bytes{")) {
      const type = /type="([a-z_]+)"/.exec(series)?.[1] as MemoryType | undefined;
      if (type && MEMORY_TYPES.includes(type)) scrape.memoryBytes[type] = value;
      if (type === "rss") scrape.rssBytes = value;
    } else if (series.startsWith("openclawworld_process_cpu_seconds_total")) scrape.cpuSeconds += value;
    else if (series.startsWith("openclawworld_gateway_thread_cpu_seconds_total"))
      scrape.threadCpuSeconds += value;
    else if (series.startsWith("openclawworld_fanout_cpu_seconds_total")) scrape.fanoutCpuSeconds += value;
    else if (series.startsWith("openclawworld_event_log_depth")) scrape.eventLogDepth += value;
    else if (series.startsWith("openclawworld_rate_limited_total")) scrape.rateLimited += value;
    else if (series === 'openclawworld_ws_connections{state="connected"}') scrape.connected = value;
  }
  return scrape;
}

// ---- the participants ----------------------------------------------------------------------------

const ROOM = "lobby";
const DEFAULT_BOX = { tx0: 16, ty0: 11, tx1: 28, ty1: 20 };
/** A mover counts as standing still once its own view showed no step for this long. */
const STILL_MS = 300;
/** A move nobody saw within this is counted as lost (not as a latency). */
const PENDING_MS = 3000;
/** How long a human may wait for its welcome, and how often a refused join is tried again. */
const WELCOME_TIMEOUT_MS = 60_000;
const JOIN_ATTEMPTS = 5;

interface PendingMove {
  t0: number;
  kind: MoverKind;
  seenBy: Set<number>;
  /** The watchers that had the mover in view when it moved: only their sightings are latency samples
   * (a browser is streamed its nearest web.maxVisible actors, so a watcher may first meet the mover
   * later, when it walks into view; that is not how long the move took to arrive). */
  inView: Set<number>;
}

interface Human {
  index: number;
  ws: WebSocket;
  entityId?: string;
  bytes: number;
  frames: number;
  nextActAt: number;
  nextChatAt: number;
  closedByUs: boolean;
}

interface AgentState {
  agentId: string;
  token: string;
  entityId?: string;
  cursor?: string;
  lastSeq: number;
  seen: Set<number>;
  chatIds: Set<string>;
}

interface Shared {
  pending: Map<string, PendingMove>;
  latency: LatencyHistogram;
  byMover: Record<MoverKind, LatencyHistogram>;
  window: LatencyHistogram;
  lost: number;
  measuring: boolean;
  rateLimitedAnswers: number;
  /** Every cursor error counted; the first 10,000 kept as text (samples). */
  cursorErrorCount: number;
  cursorExpired: number;
  cursorErrors: string[];
  /** Global chats acknowledged while measuring: id -> ack time. */
  chats: Map<string, number>;
  /** When any human last saw each entity step (its own human included): a mover moves again only
   * from rest, so the first step an observer sees after t0 is caused by that input. */
  lastMoveSeen: Map<string, number>;
  /** Each watcher's decoder: who it has in view now. */
  watcherViews: Map<number, DeltaDecoder>;
}

function atRest(shared: Shared, entityId: string, now: number): boolean {
  return now - (shared.lastMoveSeen.get(entityId) ?? 0) > STILL_MS && !shared.pending.has(entityId);
}

function rand(min: number, max: number): number {
  return min + Math.random() * (max - min);
}

/** Records that `entityId` was told to move now, with the watchers that have it in view. */
function startMove(shared: Shared, entityId: string, kind: MoverKind): void {
  const inView = new Set<number>();
  for (const [index, view] of shared.watcherViews) if (view.has(entityId)) inView.add(index);
  shared.pending.set(entityId, { t0: performance.now(), kind, seenBy: new Set(), inView });
}

function noteCursorError(shared: Shared, what: string): void {
  shared.cursorErrorCount += 1;
  if (/cursor.expired/.test(what)) shared.cursorExpired += 1;
  if (shared.cursorErrors.length < 10_000) shared.cursorErrors.push(what);
}

function noteMove(shared: Shared, observer: number, entityId: string, now: number): void {
  const move = shared.pending.get(entityId);
  if (!move || move.seenBy.has(observer) || !move.inView.has(observer)) return;
  move.seenBy.add(observer);
  if (shared.measuring) {
    shared.latency.add(now - move.t0);
    shared.window.add(now - move.t0);
    shared.byMover[move.kind].add(now - move.t0);
  }
}

type Update = { id: string; x?: number; y?: number };

function connectHuman(
  baseUrl: string,
  index: number,
  shared: Shared,
  onDrop: (reason: string) => void,
  watcher: boolean,
) {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/world/ws`, { perMessageDeflate: false });
  const human: Human = {
    index,
    ws,
    bytes: 0,
    frames: 0,
    nextActAt: performance.now() + rand(500, 2500),
    nextChatAt: performance.now() + rand(3000, 12_000),
    closedByUs: false,
  };
  let refused: (error: Error) => void = () => {};
  const welcomed = new Promise<void>((resolve, reject) => {
    refused = reject;
    ws.once("error", reject);
    // A socket the server refuses (admission caps, load shedding: close 1013) or that never gets
    // its welcome must not park the join loop forever.
    const timer = setTimeout(() => {
      reject(new Error(`human ${index}: no welcome within ${WELCOME_TIMEOUT_MS} ms`));
      ws.terminate();
    }, WELCOME_TIMEOUT_MS);
    timer.unref();
    ws.once("close", () => clearTimeout(timer));
    ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: `Load ${index}` })));
    const reader = new ServerFrameReader();
    if (watcher) shared.watcherViews.set(index, reader.deltas);
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      const now = performance.now();
      if (shared.measuring) {
        human.bytes += data.length;
        human.frames += 1;
      }
      // Deltas are the binary frames: a human that is not a watcher only counts them (its decoder
      // keeps no state it needs; every snapshot is a text frame that resets it).
      if (isBinary && !watcher) return;
      const msg = reader.read(isBinary ? data : data.toString()) as {
        type: string;
        entityId?: string;
        update?: Update[];
        for?: string;
        code?: string;
        data?: { result?: string; chatMessageId?: string };
      };
      if (msg.type === "welcome") {
        human.entityId = msg.entityId;
        clearTimeout(timer);
        resolve();
      } else if (msg.type === "delta") {
        // Updates only: an entity entering this view (add) says nothing about when it moved.
        for (const u of msg.update ?? []) {
          if (u.x === undefined && u.y === undefined) continue;
          shared.lastMoveSeen.set(u.id, now);
          if (u.id !== human.entityId) noteMove(shared, index, u.id, now);
        }
      } else if (msg.type === "result" && msg.for === "act" && msg.data?.result !== "accepted") {
        if (human.entityId) shared.pending.delete(human.entityId);
      } else if (msg.type === "result" && msg.for === "chat_send" && msg.data?.chatMessageId) {
        if (shared.measuring) shared.chats.set(msg.data.chatMessageId, now);
      } else if (msg.type === "error") {
        if (msg.code === "rate_limited") shared.rateLimitedAnswers += 1;
        if (msg.for === "act" && human.entityId) shared.pending.delete(human.entityId);
      }
    });
  });
  ws.on("close", (code, reason) => {
    const why = `human ${index}: closed ${code} ${reason.toString()}`.trim();
    if (!human.entityId) refused(new Error(`${why} before its welcome`));
    else if (!human.closedByUs) onDrop(why);
  });
  ws.on("error", () => {});
  return { human, welcomed };
}

function humanStep(human: Human, shared: Shared, box: typeof DEFAULT_BOX, now: number, chat: boolean): void {
  if (!human.entityId || human.ws.readyState !== WebSocket.OPEN) return;
  if (now >= human.nextActAt && atRest(shared, human.entityId, now)) {
    human.nextActAt = now + rand(1500, 2500);
    startMove(shared, human.entityId, "human");
    human.ws.send(
      JSON.stringify({
        type: "act",
        action: {
          kind: "moveTo",
          dest: { tx: Math.floor(rand(box.tx0, box.tx1 + 1)), ty: Math.floor(rand(box.ty0, box.ty1 + 1)) },
        },
      }),
    );
  }
  if (chat && now >= human.nextChatAt) {
    human.nextChatAt = now + rand(8000, 12_000);
    human.ws.send(
      JSON.stringify({ type: "chat_send", channel: "global", message: `hello from ${human.index}` }),
    );
  }
}

// ---- agents over AIC HTTP ------------------------------------------------------------------------

interface AicAnswer {
  status: "ok" | "error";
  data?: Record<string, unknown>;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

function seqOf(cursor: string): number {
  const bytes = Buffer.from(cursor, "base64url");
  return bytes.length >= 9 ? Number(bytes.readBigUInt64BE(1)) : 0;
}

async function runAgent(
  baseUrl: string,
  agent: AgentState,
  shared: Shared,
  box: typeof DEFAULT_BOX,
  counters: Counters,
  stopActingAt: () => number,
  stopped: () => boolean,
): Promise<void> {
  const call = async (endpoint: string, body: Record<string, unknown>): Promise<AicAnswer> => {
    counters.requests += 1;
    try {
      const reply = await postJson(
        `${baseUrl}/aic/v0.1/${endpoint}`,
        { authorization: `Bearer ${agent.token}` },
        JSON.stringify({ agentId: agent.agentId, roomId: ROOM, ...body }),
        30_000,
      );
      const answer = reply.body as AicAnswer;
      if (answer.status === "error") {
        countError(counters, answer.error?.code ?? "unknown");
        if (answer.error?.code === "rate_limited") shared.rateLimitedAnswers += 1;
      }
      return answer;
    } catch (error) {
      countError(counters, "transport");
      return { status: "error", error: { code: "transport", message: (error as Error).message } };
    }
  };
  const bad = (what: string) => {
    noteCursorError(shared, `${agent.agentId}: ${what}`);
  };

  const poll = async () => {
    while (!stopped()) {
      const sinceCursor = agent.cursor!;
      const answer = await call("pollEvents", { sinceCursor, limit: 200, waitMs: 1000 });
      if (answer.status !== "ok") {
        if (answer.error?.code === "conflict") {
          bad(`cursor_expired: ${answer.error.message}`);
          agent.cursor = String(answer.error.details?.nextCursor ?? sinceCursor);
        } else await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const page = answer.data as {
        events: { cursor: string; type: string; payload: Record<string, unknown> }[];
        nextCursor: string;
      };
      const from = seqOf(sinceCursor);
      for (const event of page.events) {
        const seq = seqOf(event.cursor);
        if (agent.seen.has(seq)) bad(`duplicate seq ${seq}`);
        else if (seq <= agent.lastSeq) bad(`seq ${seq} after ${agent.lastSeq}`);
        if (seq <= from) bad(`seq ${seq} not after the page's cursor ${from}`);
        agent.seen.add(seq);
        agent.lastSeq = Math.max(agent.lastSeq, seq);
        if (event.type === "chat.message" && event.payload.channel === "global") {
          const id = String(event.payload.messageId);
          if (agent.chatIds.has(id)) bad(`chat ${id} delivered twice`);
          agent.chatIds.add(id);
        }
      }
      const next = seqOf(page.nextCursor);
      const last = page.events.length ? seqOf(page.events.at(-1)!.cursor) : from;
      if (next < last) bad(`nextCursor ${next} behind the last event ${last}`);
      agent.cursor = page.nextCursor;
    }
  };

  const act = async () => {
    let n = 0;
    let nextChatAt = performance.now() + rand(3000, 12_000);
    let nextObserveAt = performance.now() + rand(500, 3000);
    while (performance.now() < stopActingAt() && !stopped()) {
      const now = performance.now();
      const entityId = agent.entityId!;
      if (atRest(shared, entityId, now)) {
        startMove(shared, entityId, "http");
        const moved = await call("moveTo", {
          txId: `tx_${agent.agentId}_${n++}_${randomToken(4)}`,
          dest: {
            tx: Math.floor(rand(box.tx0, box.tx1 + 1)),
            ty: Math.floor(rand(box.ty0, box.ty1 + 1)),
          },
        });
        if (moved.status !== "ok" || moved.data?.result !== "accepted") shared.pending.delete(entityId);
      }
      if (now >= nextObserveAt) {
        nextObserveAt = now + rand(2000, 4000);
        await call("observe", { radius: 400, detail: "lite" });
      }
      if (now >= nextChatAt) {
        nextChatAt = now + rand(8000, 12_000);
        const sent = await call("chatSend", {
          txId: `tx_${agent.agentId}_chat_${n++}_${randomToken(4)}`,
          channel: "global",
          message: `agent ${agent.agentId} says hi`,
        });
        const id = sent.status === "ok" ? String(sent.data?.chatMessageId ?? "") : "";
        if (id && shared.measuring) shared.chats.set(id, performance.now());
      }
      await new Promise((r) => setTimeout(r, rand(1500, 2500)));
    }
  };
  await Promise.all([poll(), act()]);
}

// ---- agents through the plugin's tools (in the gateway) --------------------------------------------

interface ToolAgent {
  /** The OpenClaw agent id; the tools act as the world agent of the same id. */
  agentId: string;
  entityId: string;
  lastSeq: number;
  seen: Set<number>;
}

interface ToolAnswer {
  ok?: boolean;
  result?: { details?: Record<string, unknown> };
  error?: { type?: string; message?: string };
}

/** A tool agent: what an OpenClaw agent's model would call, at the pace of the HTTP agents. Its own
 * event reads (ocw_poll_events, the tools' remembered cursor) are checked for order and repeats. */
async function runToolAgent(
  baseUrl: string,
  gatewayToken: string,
  agent: ToolAgent,
  shared: Shared,
  box: typeof DEFAULT_BOX,
  counters: { requests: number; errors: number },
  stopActingAt: () => number,
  stopped: () => boolean,
): Promise<void> {
  const bad = (what: string) => {
    noteCursorError(shared, `${agent.agentId} (tools): ${what}`);
  };
  let nextPollAt = performance.now() + rand(500, 1500);
  let nextMoveAt = performance.now() + rand(0, 2000);
  let nextObserveAt = performance.now() + rand(500, 3000);
  let nextChatAt = performance.now() + rand(3000, 12_000);
  while (performance.now() < stopActingAt() && !stopped()) {
    const now = performance.now();
    if (now >= nextMoveAt && atRest(shared, agent.entityId, now)) {
      nextMoveAt = now + rand(1500, 2500);
      startMove(shared, agent.entityId, "tool");
      const moved = await invokeTool(baseUrl, gatewayToken, agent.agentId, "ocw_move_to", {
        tx: Math.floor(rand(box.tx0, box.tx1 + 1)),
        ty: Math.floor(rand(box.ty0, box.ty1 + 1)),
      });
      counters.requests += 1;
      if (!moved.ok) counters.errors += 1;
      if (!moved.ok || moved.result?.details?.result !== "accepted") shared.pending.delete(agent.entityId);
    }
    if (now >= nextObserveAt) {
      nextObserveAt = now + rand(2000, 4000);
      counters.requests += 1;
      if (!(await invokeTool(baseUrl, gatewayToken, agent.agentId, "ocw_observe", { radius: 400 })).ok)
        counters.errors += 1;
    }
    if (now >= nextChatAt) {
      nextChatAt = now + rand(8000, 12_000);
      counters.requests += 1;
      const sent = await invokeTool(baseUrl, gatewayToken, agent.agentId, "ocw_chat_send", {
        channel: "global",
        message: `tool agent ${agent.agentId} says hi`,
      });
      if (!sent.ok) counters.errors += 1;
      const id = sent.ok ? String(sent.result?.details?.chatMessageId ?? "") : "";
      if (id && shared.measuring) shared.chats.set(id, performance.now());
    }
    if (now >= nextPollAt) {
      nextPollAt = now + rand(800, 1200);
      counters.requests += 1;
      const page = await invokeTool(baseUrl, gatewayToken, agent.agentId, "ocw_poll_events", { limit: 200 });
      if (!page.ok) counters.errors += 1;
      const events = (page.result?.details?.events ?? []) as { cursor: string }[];
      if (page.result?.details?.droppedCount)
        bad(`cursor expired (${page.result.details.droppedCount} dropped)`);
      for (const event of events) {
        const seq = seqOf(event.cursor);
        if (agent.seen.has(seq)) bad(`duplicate seq ${seq}`);
        else if (seq <= agent.lastSeq) bad(`seq ${seq} after ${agent.lastSeq}`);
        agent.seen.add(seq);
        agent.lastSeq = Math.max(agent.lastSeq, seq);
      }
    }
    await new Promise((r) => setTimeout(r, rand(400, 600)));
  }
}

async function invokeTool(
  baseUrl: string,
  gatewayToken: string,
  agentId: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  try {
    const reply = await postJson(
      `${baseUrl}/tools/invoke`,
      { authorization: `Bearer ${gatewayToken}` },
      JSON.stringify({ tool, args, agentId }),
      30_000,
    );
    return reply.body as ToolAnswer;
  } catch (error) {
    return { ok: false, error: { type: "transport", message: (error as Error).message } };
  }
}

// ---- the run -------------------------------------------------------------------------------------

function fmt(v: number | null, digits = 1): string {
  return v === null ? "-" : v.toFixed(digits);
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.onProgress ?? ((line: string) => console.log(line));
  const box = options.walkBox ?? DEFAULT_BOX;
  const everySec = options.reportEverySec ?? 5;
  const toolShare = options.toolShare ?? 0.2;
  if (!(toolShare >= 0 && toolShare <= 1)) throw new RangeError("toolShare must be within 0..1");
  const toolAgentCount = Math.round(options.agents * toolShare);
  const agentIds = Array.from({ length: options.agents - toolAgentCount }, (_, i) => `load_${i}`);
  const toolAgentIds = Array.from({ length: toolAgentCount }, (_, i) => `loadtool_${i}`);
  const watchers = Math.max(1, options.watchers ?? 64);
  const tokens = Object.fromEntries(agentIds.map((id) => [id, randomToken()]));
  const generous = Object.fromEntries(
    Object.keys(DEFAULT_RATE_CLASSES).map((name) => [name, { perSec: 1000, burst: 1000 }]),
  );
  const stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-load-"));
  let gateway: LaunchedGateway | undefined;
  const shared: Shared = {
    pending: new Map(),
    latency: new LatencyHistogram(),
    byMover: { human: new LatencyHistogram(), http: new LatencyHistogram(), tool: new LatencyHistogram() },
    window: new LatencyHistogram(),
    lost: 0,
    measuring: false,
    rateLimitedAnswers: 0,
    cursorErrors: [],
    cursorErrorCount: 0,
    cursorExpired: 0,
    chats: new Map(),
    lastMoveSeen: new Map(),
    watcherViews: new Map(),
  };
  const humans: Human[] = [];
  const dropReasons: string[] = [];
  const joinFailures: string[] = [];
  let stopping = false;
  const timers: ReturnType<typeof setInterval>[] = [];
  try {
    log(
      `load: starting a gateway (${options.humans} humans, ${options.agents} agents of which ${toolAgentCount} through tools, ${options.seconds} s)`,
    );
    gateway = await launchGateway({
      stateRoot,
      pluginConfig: {
        agents: Object.fromEntries(agentIds.map((id) => [id, { token: tokens[id], name: `Load ${id}` }])),
        rateLimits: { classes: generous },
        // The tool agents move and chat: those tools are optional, so they are enabled for the run.
        tools: { enabled: ["ocw_move_to", "ocw_chat_send"] },
        // Every human connects from 127.0.0.1: the admission caps are raised to fit the run.
        web: {
          maxConnections: options.humans + 50,
          maxConnectionsPerAddress: options.humans + 50,
          maxHumans: options.humans + 50,
          maxHumansPerAddress: options.humans + 50,
          ...(options.patchRate ? { patchRate: options.patchRate } : {}),
          ...(options.fanout ? { fanout: options.fanout } : {}),
        },
      },
      gatewayConfig: {
        agents: { entries: Object.fromEntries(["main", ...toolAgentIds].map((id) => [id, {}])) },
      },
      ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
      ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
      ...(options.gatewayNodeFlags?.length ? { nodeFlags: options.gatewayNodeFlags } : {}),
    });
    const baseUrl = gateway.baseUrl;
    const gatewayPid = gateway.pid;
    log(`load: gateway ready at ${baseUrl} in ${gateway.startupMs} ms`);
    // A gateway at its limit answers slowly: a scrape is tried 3 times (30 s each) before the run
    // gives up, and a progress point whose scrape failed is skipped rather than ending the run.
    const scrapeOnce = async (): Promise<Scrape> => {
      const res = await fetch(`${baseUrl}/world/metrics`, { signal: AbortSignal.timeout(30_000) });
      if (!res.ok) throw new Error(`metrics answered ${res.status}`);
      const scrape = parseMetrics(await res.text(), performance.now());
      scrape.threadWaitSeconds = threadWaitSeconds(gatewayPid);
      scrape.childWaitSeconds = childWaitSeconds(gatewayPid);
      return scrape;
    };
    const scrape = async (): Promise<Scrape> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await scrapeOnce();
        } catch (error) {
          if (attempt >= 3) throw error;
          log(`load: metrics scrape failed (${(error as Error).message}); trying again`);
        }
      }
    };

    // Everyone joins first (in small batches, so joining is not what is measured). A refused join
    // (the gateway sheds new sockets while its tick is near the deadline) is tried again a few times
    // with a pause; one that never gets in is reported, not waited for.
    const joinHuman = async (index: number): Promise<Human | undefined> => {
      for (let attempt = 1; attempt <= JOIN_ATTEMPTS; attempt++) {
        const { human, welcomed } = connectHuman(
          baseUrl,
          index,
          shared,
          (reason) => {
            if (!stopping) dropReasons.push(reason);
          },
          index < watchers,
        );
        try {
          await welcomed;
          return human;
        } catch (error) {
          if (attempt === JOIN_ATTEMPTS) joinFailures.push((error as Error).message);
          else await new Promise((r) => setTimeout(r, 2000 * attempt));
        }
      }
      return undefined;
    };
    for (let i = 0; i < options.humans; i += 20) {
      const batch = Array.from({ length: Math.min(20, options.humans - i) }, (_, k) => joinHuman(i + k));
      for (const human of await Promise.all(batch)) if (human) humans.push(human);
    }
    if (joinFailures.length)
      log(
        `load: ${joinFailures.length} humans could not join (e.g. ${joinFailures[0]}); going on without them`,
      );
    const agents: AgentState[] = [];
    for (const agentId of agentIds) {
      const reply = await postJson(
        `${baseUrl}/aic/v0.1/join`,
        { authorization: `Bearer ${tokens[agentId]}` },
        JSON.stringify({ agentId, roomId: ROOM }),
        30_000,
      );
      const answer = reply.body as AicAnswer;
      if (answer.status !== "ok")
        throw new Error(`agent ${agentId} could not join: ${JSON.stringify(answer)}`);
      const data = answer.data as { entityId: string; cursor: string };
      agents.push({
        agentId,
        token: tokens[agentId]!,
        entityId: data.entityId,
        cursor: data.cursor,
        lastSeq: seqOf(data.cursor),
        seen: new Set(),
        chatIds: new Set(),
      });
    }
    // Tool agents join with their first tool call (the tools join the default room); the first
    // poll sets where their event checks start.
    const toolAgents: ToolAgent[] = [];
    for (const agentId of toolAgentIds) {
      const observed = await invokeTool(baseUrl, gateway.gatewayToken, agentId, "ocw_observe", {
        radius: 10,
      });
      const self = observed.result?.details?.self as { id?: string } | undefined;
      if (!observed.ok || !self?.id)
        throw new Error(`tool agent ${agentId} could not join: ${JSON.stringify(observed)}`);
      const page = await invokeTool(baseUrl, gateway.gatewayToken, agentId, "ocw_poll_events", {
        limit: 200,
      });
      const events = (page.result?.details?.events ?? []) as { cursor: string }[];
      toolAgents.push({
        agentId,
        entityId: self.id,
        lastSeq: events.length ? seqOf(events.at(-1)!.cursor) : 0,
        seen: new Set(),
      });
    }
    log(
      `load: ${humans.length} humans, ${agents.length} HTTP agents and ${toolAgents.length} tool agents joined; measuring`,
    );

    const first = await scrape();
    let previous = first;
    let maxRss = first.rssBytes;
    const started = performance.now();
    const harnessCpuStart = process.cpuUsage();
    let harnessCpuPrevious = harnessCpuStart;
    const endAt = started + options.seconds * 1000;
    shared.measuring = true;
    const series: SeriesPoint[] = [];
    let windowBytes = 0;
    const bytesSoFar = () => humans.reduce((n, h) => n + h.bytes, 0);

    // Humans act on a 100 ms scheduler; a pending move that no watcher with it in view saw expires as lost.
    timers.push(
      setInterval(() => {
        const now = performance.now();
        for (const h of humans) humanStep(h, shared, box, now, now < endAt);
        for (const [id, move] of shared.pending) {
          if (now - move.t0 > PENDING_MS) {
            if (move.inView.size > 0 && move.seenBy.size === 0 && shared.measuring) shared.lost += 1;
            shared.pending.delete(id);
          }
        }
      }, 100),
    );
    const counters: Counters = { requests: 0, errors: 0, errorsByCode: {} };
    const toolCounters = { requests: 0, errors: 0 };
    const gatewayToken = gateway.gatewayToken;
    const agentRuns = [
      ...agents.map((a) =>
        runAgent(
          baseUrl,
          a,
          shared,
          box,
          counters,
          () => endAt,
          () => stopping,
        ),
      ),
      ...toolAgents.map((a) =>
        runToolAgent(
          baseUrl,
          gatewayToken,
          a,
          shared,
          box,
          toolCounters,
          () => endAt,
          () => stopping,
        ),
      ),
    ];

    // Progress lines and the time series, until the end (a bounded loop: one iteration per period).
    const periods = Math.max(1, Math.ceil(options.seconds / everySec));
    for (let p = 1; p <= periods; p++) {
      await new Promise((r) =>
        setTimeout(r, Math.max(0, Math.min(started + p * everySec * 1000, endAt) - performance.now())),
      );
      let now: Scrape;
      try {
        now = await scrapeOnce();
      } catch (error) {
        log(`load: no metrics for this period (${(error as Error).message})`);
        continue;
      }
      maxRss = Math.max(maxRss, now.rssBytes);
      const dtSec = (now.atMs - previous.atMs) / 1000;
      const bytes = bytesSoFar();
      const harnessCpu = process.cpuUsage(harnessCpuPrevious);
      harnessCpuPrevious = process.cpuUsage();
      const point: SeriesPoint = {
        tSec: Math.round((now.atMs - started) / 100) / 10,
        latencyP50Ms: shared.window.quantile(0.5),
        latencyP95Ms: shared.window.quantile(0.95),
        tickP50Ms: bucketQuantileMs(now.tickTotal, previous.tickTotal, 0.5),
        tickP99Ms: bucketQuantileMs(now.tickTotal, previous.tickTotal, 0.99),
        patchDeliveryP99Ms: bucketQuantileMs(now.patchDelivery, previous.patchDelivery, 0.99),
        rssMiB: mib(now.rssBytes),
        heapUsedMiB: mib(now.memoryBytes.heap_used),
        heapTotalMiB: mib(now.memoryBytes.heap_total),
        externalMiB: mib(now.memoryBytes.external),
        arrayBuffersMiB: mib(now.memoryBytes.array_buffers),
        cpuPct: Math.round(((now.cpuSeconds - previous.cpuSeconds) / dtSec) * 1000) / 10,
        bytesPerClientPerSec: humans.length ? Math.round((bytes - windowBytes) / humans.length / dtSec) : 0,
        connected: now.connected,
        harnessCpuPct: Math.round(((harnessCpu.user + harnessCpu.system) / 1e6 / dtSec) * 1000) / 10,
      };
      windowBytes = bytes;
      series.push(point);
      shared.window.reset();
      previous = now;
      log(
        `load t=${point.tSec}s  latency p50 ${fmt(point.latencyP50Ms)} p95 ${fmt(point.latencyP95Ms)} ms | tick p50 ${fmt(point.tickP50Ms, 2)} p99 ${fmt(point.tickP99Ms, 2)} ms (${((now.ticks - first.ticks) / ((now.atMs - first.atMs) / 1000)).toFixed(1)} Hz), patch delivery p99 ${fmt(point.patchDeliveryP99Ms, 1)} ms | rss ${point.rssMiB} MiB (heap ${point.heapUsedMiB} of ${point.heapTotalMiB}, external ${point.externalMiB}, of it buffers ${point.arrayBuffersMiB}) cpu ${point.cpuPct}% (harness ${point.harnessCpuPct}%) | ${point.bytesPerClientPerSec} B/s/client | ws ${now.connected} | dropped ${dropReasons.length} | cursor errors ${shared.cursorErrorCount} (${shared.cursorExpired} expired)`,
      );
    }
    shared.measuring = false;
    const elapsedSec = (performance.now() - started) / 1000;
    const harnessCpu = process.cpuUsage(harnessCpuStart);
    // A gateway past its limit may not answer the last scrape at all: the report then ends at the
    // last period that had metrics instead of being lost.
    const last = await scrape().catch((error: unknown) => {
      log(
        `load: no final metrics (${(error as Error).message}); the report ends at t=${series.at(-1)?.tSec ?? 0}s`,
      );
      return previous;
    });
    // Let the agents' long-polls drain every chat acknowledged in time, then stop them.
    await new Promise((r) => setTimeout(r, 3000));
    stopping = true;
    await Promise.all(agentRuns);
    const chatIds = [...shared.chats.keys()];
    for (const agent of agents) {
      const missing = chatIds.filter((id) => !agent.chatIds.has(id));
      if (missing.length)
        noteCursorError(
          shared,
          `${agent.agentId}: ${missing.length} global chats never delivered (e.g. ${missing[0]})`,
        );
    }
    const totalBytes = humans.reduce((n, h) => n + h.bytes, 0);
    const totalFrames = humans.reduce((n, h) => n + h.frames, 0);
    const q = (v: number | null) => Math.round((v ?? Number.NaN) * 100) / 100;
    const traffic = (
      n: number,
      c: { requests: number; errors: number; errorsByCode?: Counters["errorsByCode"] },
    ): AgentTraffic => ({
      agents: n,
      requests: c.requests,
      requestsPerAgentPerSec: n ? Math.round((c.requests / n / elapsedSec) * 10) / 10 : 0,
      errors: c.errors,
      ...(c.errorsByCode ? { errorsByCode: c.errorsByCode } : {}),
    });
    return {
      humans: options.humans,
      agents: options.agents,
      seconds: Math.round(elapsedSec * 10) / 10,
      latency: {
        samples: shared.latency.count,
        p50Ms: q(shared.latency.quantile(0.5)),
        p95Ms: q(shared.latency.quantile(0.95)),
        p99Ms: q(shared.latency.quantile(0.99)),
        maxMs: q(shared.latency.max),
        lost: shared.lost,
      },
      latencyByMover: Object.fromEntries(
        MOVER_KINDS.map((kind) => [
          kind,
          {
            samples: shared.byMover[kind].count,
            p50Ms: q(shared.byMover[kind].quantile(0.5)),
            p95Ms: q(shared.byMover[kind].quantile(0.95)),
          },
        ]),
      ) as LoadReport["latencyByMover"],
      tick: {
        count: last.ticks - first.ticks,
        p50Ms: q(bucketQuantileMs(last.tickTotal, first.tickTotal, 0.5)),
        p99Ms: q(bucketQuantileMs(last.tickTotal, first.tickTotal, 0.99)),
        stepP99Ms: q(bucketQuantileMs(last.tickStep, first.tickStep, 0.99)),
        hz: Math.round(((last.ticks - first.ticks) / ((last.atMs - first.atMs) / 1000)) * 10) / 10,
      },
      patches: {
        deliveryP50Ms: q(bucketQuantileMs(last.patchDelivery, first.patchDelivery, 0.5)),
        deliveryP99Ms: q(bucketQuantileMs(last.patchDelivery, first.patchDelivery, 0.99)),
        workP99Ms: q(bucketQuantileMs(last.patchWork, first.patchWork, 0.99)),
        perSec:
          Math.round(
            (((last.patchDelivery.get(Number.POSITIVE_INFINITY) ?? 0) -
              (first.patchDelivery.get(Number.POSITIVE_INFINITY) ?? 0)) /
              ((last.atMs - first.atMs) / 1000)) *
              10,
          ) / 10,
        skipped: last.patchesSkipped - first.patchesSkipped,
      },
      rssMiB: { start: mib(first.rssBytes), end: mib(last.rssBytes), max: mib(maxRss) },
      memoryMiB: { start: memoryMiB(first), end: memoryMiB(last) },
      cpuPct:
        Math.round(((last.cpuSeconds - first.cpuSeconds) / ((last.atMs - first.atMs) / 1000)) * 1000) / 10,
      gatewayThreadCpuPct:
        Math.round(
          ((last.threadCpuSeconds - first.threadCpuSeconds) / ((last.atMs - first.atMs) / 1000)) * 1000,
        ) / 10,
      // The child's counter restarts with the child: a run with a restart undercounts.
      childCpuPct:
        Math.round(
          (Math.max(0, last.fanoutCpuSeconds - first.fanoutCpuSeconds) / ((last.atMs - first.atMs) / 1000)) *
            1000,
        ) / 10,
      gatewayThreadWaitPct:
        Math.round(
          ((last.threadWaitSeconds - first.threadWaitSeconds) / ((last.atMs - first.atMs) / 1000)) * 1000,
        ) / 10,
      childWaitPct:
        Math.round(
          (Math.max(0, last.childWaitSeconds - first.childWaitSeconds) / ((last.atMs - first.atMs) / 1000)) *
            1000,
        ) / 10,
      fanout: options.fanout ?? DEFAULT_FANOUT,
      eventLogDepth: last.eventLogDepth,
      humansTraffic: {
        framesPerClientPerSec: humans.length
          ? Math.round((totalFrames / humans.length / elapsedSec) * 10) / 10
          : 0,
        bytesPerClientPerSec: humans.length ? Math.round(totalBytes / humans.length / elapsedSec) : 0,
      },
      agentsTraffic: traffic(agents.length + toolAgents.length, {
        requests: counters.requests + toolCounters.requests,
        errors: counters.errors + toolCounters.errors,
      }),
      httpAgentsTraffic: traffic(agents.length, counters),
      toolAgentsTraffic: {
        ...traffic(toolAgents.length, toolCounters),
        latencyP50Ms: q(shared.byMover.tool.quantile(0.5)),
        latencyP95Ms: q(shared.byMover.tool.quantile(0.95)),
      },
      harnessCpuPct: Math.round(((harnessCpu.user + harnessCpu.system) / 1e6 / elapsedSec) * 1000) / 10,
      watchers: Math.min(watchers, humans.length),
      droppedConnections: dropReasons.length,
      humansJoined: humans.length,
      joinFailures: joinFailures.length,
      joinFailureSamples: joinFailures.slice(0, 10),
      dropReasons: dropReasons.slice(0, 20),
      rateLimited: { serverTotal: last.rateLimited, answersSeen: shared.rateLimitedAnswers },
      cursorErrors: shared.cursorErrorCount,
      cursorExpired: shared.cursorExpired,
      cursorErrorSamples: shared.cursorErrors.slice(0, 20),
      chatsChecked: chatIds.length,
      series,
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      gatewayStartupMs: gateway.startupMs,
    };
  } finally {
    stopping = true;
    for (const t of timers) clearInterval(t);
    for (const h of humans) {
      h.closedByUs = true;
      h.ws.close(1000, "load run over");
    }
    await gateway?.stop();
    await rm(stateRoot, { recursive: true, force: true });
  }
}

/** The last line of `npm run load`: the issue's keys. */
export function summaryLine(report: LoadReport): Record<string, number | string> {
  return {
    humans: report.humans,
    agents: report.agents,
    p50Ms: report.latency.p50Ms,
    p95Ms: report.latency.p95Ms,
    tickP99Ms: report.tick.p99Ms,
    tickHz: report.tick.hz,
    patchesPerSec: report.patches.perSec,
    patchDeliveryP99Ms: report.patches.deliveryP99Ms,
    droppedConnections: report.droppedConnections,
    cursorErrors: report.cursorErrors,
    bytesPerClientPerSec: report.humansTraffic.bytesPerClientPerSec,
    rssMiB: report.rssMiB.end,
    cpuPct: report.cpuPct,
    harnessCpuPct: report.harnessCpuPct,
    fanout: report.fanout,
    gatewayThreadCpuPct: report.gatewayThreadCpuPct,
    childCpuPct: report.childCpuPct,
    gatewayThreadWaitPct: report.gatewayThreadWaitPct,
    childWaitPct: report.childWaitPct,
  };
}
