// The browsers' fan-out process (forked by fanout-process.ts): it takes the browsers' sockets handed
// over by the gateway, keeps a replica of the world stepped with each committed tick's inputs (the
// world is deterministic), and runs the same web surface as the gateway would inline: interest,
// radar, wire encoding and socket writes. Every action a browser asks for goes back to the gateway
// in short batches and enters the world through AicService.act there; nothing here writes the world.

import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { AicResult } from "../../aic/errors.ts";
import { worldReads } from "../../aic/reads.ts";
import type { ActActionT, ActData, ActOptions, Actor } from "../../aic/service.ts";
import type { DurableSessions } from "../../http/humans/session.ts";
import type { PatchDelivery } from "../../http/humans/view-sync.ts";
import { createWebSurface, type WebSurfaceHandle } from "../../http/humans/web-surface.ts";
import { loadWorldDir } from "../../runtime/load-world-dir.ts";
import { describe, WorldRuntime } from "../../runtime/world-runtime.ts";
import { definitionFromWire } from "../../world/definition-wire.ts";
import type { WorldDefinition } from "../../world/types.ts";
import { World } from "../../world/world.ts";
import {
  type ActRequest,
  epochMs,
  type FanoutStats,
  type FanoutWebOptions,
  type ToChild,
  type ToParent,
} from "./ipc-protocol.ts";

const STATS_EVERY_MS = 1000;

function send(message: ToParent): void {
  if (process.connected) process.send?.(message);
}

const logger = {
  info: (message: string) => send({ type: "log", level: "info", message }),
  warn: (message: string) => send({ type: "log", level: "warn", message }),
  error: (message: string) => send({ type: "log", level: "error", message }),
};

let definition: WorldDefinition | undefined;
let runtime: WorldRuntime | undefined;
let surface: WebSurfaceHandle | undefined;
let options: FanoutWebOptions | undefined;
let parentLoad = 0;
let resyncAsked = false;
let ipcLagMaxMs = 0;
let savedSessions: Map<string, unknown> = new Map();
const waitingWorld: ToChild[] = [];
const patches: PatchDelivery[] = [];

let nextActId = 1;
const pendingActs = new Map<number, (result: AicResult<ActData>) => void>();
let outgoingActs: ActRequest[] = [];
let actsScheduled = false;

function act(actor: Actor, action: ActActionT, opts?: ActOptions): Promise<AicResult<ActData>> {
  return new Promise((resolve) => {
    const id = nextActId++;
    pendingActs.set(id, resolve);
    outgoingActs.push({ id, actor, action, ...(opts?.txId ? { txId: opts.txId } : {}) });
    // The actions read in this turn of the event loop travel together, as soon as it ends: the
    // fixed 10 ms wait this replaced held an action back up to that long on its way to the tick.
    if (!actsScheduled) {
      actsScheduled = true;
      setImmediate(flushActs);
    }
  });
}

function flushActs(): void {
  actsScheduled = false;
  const acts = outgoingActs;
  outgoingActs = [];
  if (acts.length > 0) send({ type: "acts", acts });
}

let nextStoreId = 1;
const pendingStores = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

/** The durable space lives in the gateway (the world's store): writes go there, reads are the copy
 * the gateway sent at start, kept current here. A put is durable when the gateway says it stored it. */
const durable: DurableSessions = {
  list: () => [...savedSessions].map(([key, value]) => ({ key, value })),
  put(key, value) {
    savedSessions.set(key, value);
    const id = nextStoreId++;
    return new Promise<void>((resolve, reject) => {
      pendingStores.set(id, { resolve, reject });
      send({ type: "session", op: "put", id, key, value });
    });
  },
  delete(key) {
    savedSessions.delete(key);
    send({ type: "session", op: "delete", key });
  },
};

async function init(message: Extract<ToChild, { type: "init" }>): Promise<void> {
  options = message.options;
  savedSessions = new Map(message.saved.map((s) => [s.resumeToken, s]));
  const loaded = await loadWorldDir(options.worldDir);
  definition = options.tickRate ? { ...loaded, tickRate: options.tickRate } : loaded;
  for (const queued of waitingWorld.splice(0)) handle(queued, undefined);
}

function replaceWorld(message: Extract<ToChild, { type: "world" }>): void {
  if (!definition || !options) return;
  if (message.snapshot.sceneHash !== definition.sceneHash) {
    // A live reload replaced the definition the child loaded at init.
    const sent = definitionFromWire(message.definition);
    if (typeof sent === "string") throw new Error(`the world's definition does not read: ${sent}`);
    definition = sent;
  }
  const world = World.restore(definition, message.snapshot);
  resyncAsked = false;
  if (runtime) {
    runtime.replaceWorld(world);
    return;
  }
  runtime = new WorldRuntime(world, logger);
  const replica = runtime;
  surface = createWebSurface({
    service: { act, reads: worldReads(replica, () => parentLoad) },
    worldDir: options.worldDir,
    logger,
    resumeGraceMs: options.resumeGraceMs,
    looks: options.looks,
    maxVisible: options.maxVisible,
    admission: options.admission,
    ...(options.webDistDir ? { webDistDir: options.webDistDir } : {}),
    ...(options.joinCode ? { joinCode: options.joinCode } : {}),
    ...(options.patchEveryTicks ? { patchEveryTicks: options.patchEveryTicks } : {}),
    ...(options.persistSessions ? { savedSessions: durable } : {}),
  });
  surface.onPatchDelivered((patch) => {
    if (patches.length < 200) patches.push(patch);
  });
  send({ type: "ready" });
}

function applyTick(message: Extract<ToChild, { type: "tick" }>): void {
  parentLoad = message.load;
  ipcLagMaxMs = Math.max(ipcLagMaxMs, epochMs() - message.sentAtMs);
  if (!runtime || resyncAsked) return;
  const replica = runtime;
  if (replica.world.tick + 1 !== message.tick) {
    askResync(`tick ${message.tick} after ${replica.world.tick}`);
    return;
  }
  for (const input of message.inputs) replica.submit(input).catch(() => {});
  const result = replica.stepNow();
  // A host's redefine changed the replica's definition: a resync's snapshot is of that one.
  definition = replica.world.definition;
  if (!result || result.tick !== message.tick || result.events.length !== message.eventCount)
    askResync(`the replica's tick ${message.tick} differs`);
}

function askResync(reason: string): void {
  resyncAsked = true;
  send({ type: "resync", reason });
}

function takeSocket(message: Extract<ToChild, { type: "socket" }>, socket: Socket | undefined): void {
  if (!socket) return;
  if (!surface) {
    socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  // ws reads the method, url, headers and the socket's addresses; the socket is the same one.
  const req = {
    method: message.method,
    url: message.url,
    headers: message.headers,
    socket,
  } as unknown as IncomingMessage;
  surface.handleUpgrade(req, socket, Buffer.from(message.head));
}

async function close(): Promise<void> {
  clearInterval(statsTimer);
  await surface?.close();
  process.exit(0);
}

function handle(message: ToChild, socket: Socket | undefined): void {
  switch (message.type) {
    case "init":
      init(message).catch((error: unknown) => {
        logger.error(`openclawworld fanout: could not start: ${describe(error)}`);
        process.exit(1);
      });
      return;
    case "world":
    case "tick":
      if (!definition) {
        waitingWorld.push(message);
        return;
      }
      if (message.type === "world") replaceWorld(message);
      else applyTick(message);
      return;
    case "socket":
      takeSocket(message, socket);
      return;
    case "results":
      for (const { id, result } of message.results) {
        const resolve = pendingActs.get(id);
        pendingActs.delete(id);
        resolve?.(result);
      }
      return;
    case "stored": {
      const pending = pendingStores.get(message.id);
      pendingStores.delete(message.id);
      if (message.error === undefined) pending?.resolve();
      else pending?.reject(new Error(message.error));
      return;
    }
    case "travel":
      surface?.travel(message.entityId, message.url);
      return;
    case "arrival":
      surface?.expectArrival(message.claimHash, message.entityId);
      return;
    case "close":
      close().catch(() => process.exit(0));
      return;
  }
}

process.on("message", (message: ToChild, socket: Socket | undefined) => {
  try {
    handle(message, socket);
  } catch (error) {
    logger.error(`openclawworld fanout: ${message.type} failed: ${describe(error)}`);
    if (message.type === "world" || message.type === "tick") askResync(describe(error));
  }
});
// The gateway is gone (stopped or killed): its browsers' sockets go with this process.
process.on("disconnect", () => process.exit(0));

const statsTimer = setInterval(() => {
  const web = surface?.stats() ?? { sessions: 0, connected: 0, connections: 0 };
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const stats: FanoutStats = {
    ...web,
    cpuUserUs: cpu.user,
    cpuSystemUs: cpu.system,
    ipcLagMaxMs,
    replicaTick: runtime?.world.tick ?? 0,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
  };
  ipcLagMaxMs = 0;
  send({ type: "stats", stats, patches: patches.splice(0) });
}, STATS_EVERY_MS);
