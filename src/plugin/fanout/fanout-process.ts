// The browsers' fan-out process, owned by the world service: forked when the world's adapters are
// attached, stopped with them, forked again when it dies. Browsers still come through the gateway's
// own port: the upgrade is checked here (path, origin) and the socket handed to the child
// (handoff.ts); the child serves it from its replica of the world (child-main.ts). After every
// committed tick the child gets that tick's inputs, and its browsers' actions come back here into
// AicService.act, the same door as every other. TLS browsers stay in this process (inline surface).

import { type ChildProcess, fork } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { type AicResult, aicError } from "../../aic/errors.ts";
import type { ActData, AicService } from "../../aic/service.ts";
import { createAdmission } from "../../http/humans/connection-admission.ts";
import type { DurableSessions } from "../../http/humans/session.ts";
import { createStaticRoutes, DEFAULT_WEB_DIST } from "../../http/humans/static-routes.ts";
import type { PatchDelivery } from "../../http/humans/view-sync.ts";
import type { WebSurfaceHandle } from "../../http/humans/web-surface.ts";
import {
  describe,
  type RuntimeLogger,
  type TickInfo,
  type WorldRuntime,
} from "../../runtime/world-runtime.ts";
import { definitionToWire } from "../../world/definition-wire.ts";
import { batchAfterTurn } from "./after-turn.ts";
import {
  epochMs,
  type FanoutStats,
  type FanoutWebOptions,
  type ToChild,
  type ToParent,
} from "./ipc-protocol.ts";
import { canHandOff, handOff } from "./socket-handoff.ts";

/** The child's module: the built one beside the bundle (dist/fanout-child.js, see
 * scripts/build-plugin.ts), or the source beside this file when running from source. Read through
 * a plain object: the bundler rewrites the literal `import.meta` URL to this source file's place.
 * Each is a literal `new URL("./name", ...)`: the gateway runs the plugin from a copy of the files it
 * references (its plugin source capture), and that is how it sees that the bundle needs the child. */
function childModulePath(): string {
  const meta = import.meta;
  const here = meta.url;
  return fileURLToPath(
    here.endsWith(".ts") ? new URL("./child-main.ts", here) : new URL("./fanout-child.js", here),
  );
}

export interface FanoutDeps {
  runtime: WorldRuntime;
  aic: AicService;
  options: FanoutWebOptions;
  sessions: DurableSessions | undefined;
  logger: RuntimeLogger;
  /** The surface for sockets that cannot leave the process (TLS), made on first need. */
  inlineSurface: () => WebSurfaceHandle;
  /** Restart back-off: first wait and cap, ms. */
  restartMs?: { first: number; max: number };
}

export interface FanoutHandle extends WebSurfaceHandle {
  /** The child's pid while it runs (tests kill it). */
  childPid(): number | undefined;
  fanoutStats(): { up: boolean; restarts: number; child: FanoutStats | undefined };
}

const UNAVAILABLE = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/** How long a closing surface waits for its child to exit, and when the child is killed if it has not. */
const CHILD_EXIT_WAIT_MS = 1000;
const CHILD_EXIT_GRACE_MS = 3000;

export function createFanoutProcess(deps: FanoutDeps): FanoutHandle {
  const { runtime, aic, options, logger } = deps;
  const restartMs = deps.restartMs ?? { first: 250, max: 5000 };
  const staticRoutes = createStaticRoutes(options.worldDir, options.webDistDir ?? DEFAULT_WEB_DIST);
  const origins = createAdmission(options.admission, () => runtime.health().load);
  const deliveryListeners = new Set<(patch: PatchDelivery) => void>();
  let inline: WebSurfaceHandle | undefined;
  let child: ChildProcess | undefined;
  let ready = false;
  let closed = false;
  let restarts = 0;
  let failedStarts = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let sendWorld = true;
  let epoch = runtime.worldEpoch;
  let childStats: FanoutStats | undefined;

  function post(message: ToChild): void {
    if (!child?.connected) return;
    try {
      child.send(message, (error) => {
        if (error) logger.warn(`openclawworld fanout: send ${message.type} failed: ${error.message}`);
      });
    } catch (error) {
      logger.warn(`openclawworld fanout: send ${message.type} failed: ${describe(error)}`);
    }
  }

  /** What a tick tells the child, written once the tick's turn of the event loop is over. Writing to
   * the child wakes it, and on a machine short of cores the kernel may give it the gateway's core at
   * once: inside the tick, the child's replica step and fan-out ran in the tick's time (~10 ms of
   * its p99 at 100 browsers + 30 agents, docs/performance.md). Deferred, the tick's answers reach
   * their callers first. Kept in order: a whole world and the ticks after it. */
  const outbox = batchAfterTurn<ToChild>((messages) => {
    for (const message of messages) post(message);
  });
  const postAfterTick = (message: ToChild) => outbox.push(message);

  const results = batchAfterTurn<{ id: number; result: AicResult<ActData> }>((batch) =>
    post({ type: "results", results: batch }),
  );
  const answer = (id: number, result: AicResult<ActData>) => results.push({ id, result });

  /** Writes a browser's session record and tells the child once it is durable (it hands out the
   * resume token only then). */
  function store(id: number, key: string, value: unknown): void {
    const failed = (error: unknown) => {
      logger.error(`openclawworld fanout: a browser's session was not saved: ${describe(error)}`);
      post({ type: "stored", id, error: describe(error) });
    };
    try {
      // Written now, not in a later microtask: a delete of the same key may be the next message.
      Promise.resolve(deps.sessions?.put(key, value)).then(() => post({ type: "stored", id }), failed);
    } catch (error) {
      failed(error);
    }
  }

  function onMessage(message: ToParent): void {
    switch (message.type) {
      case "ready":
        ready = true;
        failedStarts = 0;
        return;
      case "acts":
        for (const { id, actor, action, txId } of message.acts) {
          aic.act(actor, action, txId ? { txId } : undefined).then(
            (result) => answer(id, result),
            (error: unknown) => {
              logger.error(`openclawworld fanout: ${action.kind} failed: ${describe(error)}`);
              answer(id, aicError("internal", "internal error"));
            },
          );
        }
        return;
      case "session":
        if (message.op === "put") store(message.id, message.key, message.value);
        else deps.sessions?.delete(message.key);
        return;
      case "resync":
        logger.warn(`openclawworld fanout: replica resynced: ${message.reason}`);
        sendWorld = true;
        return;
      case "stats":
        childStats = message.stats;
        for (const patch of message.patches) for (const listener of deliveryListeners) listener(patch);
        return;
      case "log":
        logger[message.level](message.message);
        return;
    }
  }

  function wholeWorld(): Extract<ToChild, { type: "world" }> {
    const world = runtime.world;
    return { type: "world", snapshot: world.snapshot(), definition: definitionToWire(world.definition) };
  }

  function onTick(info: TickInfo): void {
    if (!child) return;
    if (sendWorld || runtime.worldEpoch !== epoch) {
      // The whole world as it is after this tick: an operator restore, a fresh child or a replica
      // that lost step (its resync) starts again from here.
      sendWorld = false;
      epoch = runtime.worldEpoch;
      postAfterTick(wholeWorld());
      return;
    }
    postAfterTick({
      type: "tick",
      tick: info.tick,
      inputs: info.inputs,
      eventCount: info.events.length,
      load: runtime.health().load,
      sentAtMs: epochMs(),
    });
  }

  function start(): void {
    restartTimer = undefined;
    if (closed) return;
    const forked = fork(childModulePath(), [], {
      serialization: "advanced",
      // Not the gateway's own flags, except a CPU profile asked of it (the load harness's
      // --cpu-prof): the child writes one beside the gateway's.
      execArgv: process.execArgv.filter((flag) => flag.startsWith("--cpu-prof")),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = forked;
    ready = false;
    // Ticks meant for the child that died: the new one starts from the world as it is now.
    outbox.drop();
    forked.on("message", (message: ToParent) => {
      try {
        onMessage(message);
      } catch (error) {
        logger.error(`openclawworld fanout: ${message.type} failed: ${describe(error)}`);
      }
    });
    forked.on("error", (error) => logger.error(`openclawworld fanout: child process: ${error.message}`));
    forked.on("exit", (code, signal) => {
      if (child !== forked) return;
      child = undefined;
      ready = false;
      if (closed) return;
      restarts += 1;
      failedStarts += 1;
      const wait = Math.min(restartMs.max, restartMs.first * 2 ** Math.min(failedStarts - 1, 10));
      logger.error(
        `openclawworld fanout: the browsers' process ended (${signal ?? `code ${code}`}); starting it again in ${wait} ms`,
      );
      restartTimer = setTimeout(start, wait);
      restartTimer.unref();
    });
    const saved = (deps.sessions?.list() ?? []).flatMap(({ key, value }) => {
      const v = (value ?? {}) as Record<string, unknown>;
      return typeof v.sessionId === "string" && typeof v.entityId === "string" && typeof v.name === "string"
        ? [{ resumeToken: key, sessionId: v.sessionId, entityId: v.entityId, name: v.name, left: v.left }]
        : [];
    });
    post({ type: "init", options, saved });
    post(wholeWorld());
    sendWorld = false;
    epoch = runtime.worldEpoch;
  }

  const unsubscribe = runtime.onTick(onTick);
  start();

  return {
    handleHttp: (req: IncomingMessage, res: ServerResponse) => staticRoutes(req, res),

    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (closed || path !== "/world/ws" || !origins.originAllowed(req)) {
        socket.end(
          `HTTP/1.1 ${closed ? "503 Service Unavailable" : path !== "/world/ws" ? "404 Not Found" : "403 Forbidden"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
        return;
      }
      if (!canHandOff(socket)) {
        inline ??= deps.inlineSurface();
        inline.handleUpgrade(req, socket, head);
        return;
      }
      const target = child;
      if (!target?.connected || !ready) {
        socket.end(UNAVAILABLE);
        return;
      }
      handOff(
        (message, handle: Socket, done) => target.send(message, handle, done),
        req,
        socket,
        head,
        (error) => logger.warn(`openclawworld fanout: socket handoff failed: ${error.message}`),
      );
    },

    async close() {
      closed = true;
      unsubscribe();
      if (restartTimer) clearTimeout(restartTimer);
      results.drop();
      outbox.drop();
      const running = child;
      await inline?.close();
      if (!running) return;
      const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
      post({ type: "close" });
      const kill = setTimeout(() => running.kill("SIGKILL"), CHILD_EXIT_GRACE_MS);
      kill.unref();
      void exited.then(() => clearTimeout(kill));
      // Waited for only briefly: openclaw gives a stopping plugin 5 s in all (its host cleanup timeout)
      // and retires a plugin that takes longer, its tools "not available" until a restart. On a busy
      // machine a reload under traffic went past it while the child was exiting. The child ends on
      // its own or is killed meanwhile; a new one serves no socket of the old one's.
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, CHILD_EXIT_WAIT_MS).unref())]);
      child = undefined;
    },

    stats() {
      const mine = inline?.stats() ?? { sessions: 0, connected: 0, connections: 0 };
      return {
        sessions: mine.sessions + (childStats?.sessions ?? 0),
        connected: mine.connected + (childStats?.connected ?? 0),
        connections: mine.connections + (childStats?.connections ?? 0),
      };
    },

    onPatchDelivered(listener) {
      deliveryListeners.add(listener);
      const off = inline?.onPatchDelivered(listener);
      return () => {
        deliveryListeners.delete(listener);
        off?.();
      };
    },

    // The child holds the browsers (the inline surface only TLS ones, which it tells too); an
    // arrival's claim is kept by the child alone, so it is used once. Sent after the tick's own
    // messages: the child's replica has the arrived character before its claim.
    travel(entityId, url) {
      postAfterTick({ type: "travel", entityId, url });
      inline?.travel(entityId, url);
    },

    expectArrival(claimHash, entityId) {
      postAfterTick({ type: "arrival", claimHash, entityId });
    },

    childPid: () => child?.pid,

    fanoutStats: () => ({ up: ready, restarts, child: childStats }),
  };
}
