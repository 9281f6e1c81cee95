// Humans in the browser: the static client at /world/, the world's map files, and the realtime
// WebSocket at /world/ws (upgraded on the gateway's own port). The parts, by lifecycle:
//   connection.ts   one socket: frame bounds, one parse, hand-off to the hooks or to AicService.act
//   room-hooks.ts   onJoin / onReconnect / onDrop / onLeave of a human's character
//   view-sync.ts    what each browser is shown, per patch (fanned out after the tick), read through the contract (WorldReads)
//   static-routes.ts the client's files, tileset and maps
// Every action a human takes goes through AicService.act — the same path, affordance registry and
// rate limiter as agents.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { AicService } from "../../aic/service.ts";
import { ClaimBook } from "./claims.ts";
import { createConnectionHandler } from "./connection.ts";
import { type AdmissionLimits, createAdmission, DEFAULT_ADMISSION_LIMITS } from "./connection-admission.ts";
import { PreparedText } from "./prepared-text.ts";
import { PresenceState } from "./presence-state.ts";
import type { ServerMessage } from "./protocol.ts";
import { createRoomHooks } from "./room-hooks.ts";
import { type DurableSessions, randomHumanId, SessionStore } from "./session.ts";
import { createStaticRoutes, DEFAULT_WEB_DIST } from "./static-routes.ts";
import { createViewSync, type PatchDelivery } from "./view-sync.ts";

export interface WebSurfaceDeps {
  /** The action door and the reads; in the fan-out process, acts travel to the gateway over IPC and
   * the reads are of its replica world (src/plugin/fanout). */
  service: Pick<AicService, "act" | "reads">;
  worldDir: string;
  logger: { info(m: string): void; warn(m: string): void; error(m: string): void };
  webDistDir?: string;
  joinCode?: string;
  resumeGraceMs?: number;
  /** The grace after a page went away on purpose (a closed tab, a reload); room-hooks.ts. */
  pageLeftGraceMs?: number;
  /** Where resume tokens are kept durably (the plugin passes the runtime's store), so a human resumes
   * after a gateway restart within the grace period. */
  savedSessions?: DurableSessions;
  /** Interest radius in tiles (actors within it are streamed; kept until 1.25x further). */
  interestRadiusTiles?: number;
  /** Actors a browser is streamed at most, its own included (interest.ts; default 64). */
  maxVisible?: number;
  /** Where a new human's entity id comes from: random by default; a deterministic replay (the
   * in-process conformance run) passes a counter. */
  humanIds?: () => string;
  /** Patches to browsers every this many ticks (the patch rate is separate from the tick rate). */
  patchEveryTicks?: number;
  /** Connection and session caps, allowed origins (admission.ts). */
  admission?: AdmissionLimits;
  /** Avatar looks fixed by configuration, by entity id (residents). */
  looks?: Readonly<Record<string, number>>;
  /** Whether this surface takes over the humans already in the world (their saved sessions, and the
   * leave of those without one). False for a second surface beside the one that does (TLS browsers
   * kept in the gateway while the fan-out process serves the rest). Default true. */
  adoptHumans?: boolean;
  /** How long a travel link not known yet is waited for (room-hooks.ts ARRIVAL_WAIT_MS). */
  arrivalWaitMs?: number;
}

export interface WebSurfaceHandle {
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
  /** For status and tests. */
  stats(): { sessions: number; connected: number; connections: number };
  /** Called as each patch finishes reaching the browsers (metrics); returns the unsubscribe. */
  onPatchDelivered(listener: (patch: PatchDelivery) => void): () => void;
  /** Travellers between gateways (claims.ts, docs/cluster.md): room-hooks.ts. */
  travel(entityId: string, url: string): void;
  expectArrival(claimHash: string, entityId: string): void;
}

/** Close code 1012 "Service Restart" (RFC 6455 registry): the world is stopping (a plugin reload, a
 * restart) and the client should reconnect in a moment, as the web client does; 1001 "going away"
 * read as a server leaving for good. */
export const CLOSE_SERVICE_RESTART = 1012;
export const WORLD_RESTARTING = "world restarting; reconnect in a moment";

export function createWebSurface(deps: WebSurfaceDeps): WebSurfaceHandle {
  const { service, logger } = deps;
  const reads = service.reads;
  const sessions = new SessionStore(deps.savedSessions);
  const sockets = new Set<WebSocket>();
  /** Each WebSocket's TCP socket, corked while a patch writes its messages: one syscall per
   * browser per patch instead of one per message. */
  const rawSockets = new WeakMap<WebSocket, Duplex>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const interestTiles = deps.interestRadiusTiles ?? 16;
  const tileSize = () => Object.values(reads.definition.rooms)[0]?.tileSize ?? 32;
  let wss: WebSocketServer | undefined;
  let closed = false;
  const admission = createAdmission(deps.admission ?? DEFAULT_ADMISSION_LIMITS, () => reads.load());

  const later = (fn: () => Promise<void> | void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      // A closed surface's world is gone; its sessions belong to the next one (restart, reload).
      if (closed) return;
      Promise.resolve()
        .then(fn)
        .catch((error: unknown) =>
          logger.error(`openclawworld web: timer failed: ${(error as Error).message}`),
        );
    }, ms);
    timer.unref();
    timers.add(timer);
    return timer;
  };

  /** A JSON message as a text frame (one serialized once for many sockets as its bytes), or a binary
   * delta frame (wire-delta.ts) as it is. */
  function send(ws: WebSocket | undefined, message: ServerMessage | PreparedText | Uint8Array): void {
    if (!ws || ws.readyState !== ws.OPEN) return;
    const done = (error?: Error) => {
      if (error) logger.warn(`openclawworld web: send failed: ${error.message}`);
    };
    if (message instanceof PreparedText) ws.send(message.bytes, { binary: false }, done);
    else ws.send(message instanceof Uint8Array ? message : JSON.stringify(message), done);
  }

  function sendError(ws: WebSocket, code: string, message: string, retryable: boolean, forType?: string) {
    send(ws, { type: "error", code, message, retryable, ...(forType ? { for: forType } : {}) });
  }

  const presence = new PresenceState(deps.looks);
  const deliveryListeners = new Set<(patch: PatchDelivery) => void>();
  const view = createViewSync(reads, (s, message) => send(s.ws, message), logger.warn, presence, {
    together: (s, write) => {
      const socket = s.ws ? rawSockets.get(s.ws) : undefined;
      socket?.cork();
      try {
        write();
      } finally {
        socket?.uncork();
      }
    },
    onPatchDelivered: (patch) => {
      for (const listener of deliveryListeners) listener(patch);
    },
    ...(deps.patchEveryTicks ? { patchEveryTicks: deps.patchEveryTicks } : {}),
  });
  const hooks = createRoomHooks({
    presence,
    service,
    reads,
    sessions,
    view,
    send,
    sendError,
    later,
    graceMs: deps.resumeGraceMs ?? 30_000,
    ...(deps.pageLeftGraceMs !== undefined ? { pageLeftGraceMs: deps.pageLeftGraceMs } : {}),
    joinCode: deps.joinCode,
    interestRadius: () => interestTiles * tileSize(),
    ...(deps.maxVisible ? { maxVisible: deps.maxVisible } : {}),
    humanId: deps.humanIds ?? randomHumanId,
    admitJoin: (address, joining) => admission.join(address, [...sessions.values(), ...joining]),
    claims: new ClaimBook(),
    ...(deps.arrivalWaitMs !== undefined ? { arrivalWaitMs: deps.arrivalWaitMs } : {}),
  });
  const onSocket = createConnectionHandler({ service, reads, hooks, send, sendError, logger });
  const staticRoutes = createStaticRoutes(deps.worldDir, deps.webDistDir ?? DEFAULT_WEB_DIST);

  if (deps.adoptHumans !== false) {
    hooks.resumeSaved();
    hooks.leaveGhosts();
  }
  const unsubscribe = reads.onTick((info) => view.pushTick(sessions.values(), info));

  return {
    handleHttp: staticRoutes,

    handleUpgrade(req, socket, head) {
      const p = new URL(req.url ?? "/", "http://localhost").pathname;
      if (closed || p !== "/world/ws" || !admission.originAllowed(req)) {
        socket.end(
          `HTTP/1.1 ${closed ? "503 Service Unavailable\r\nRetry-After: 1" : p !== "/world/ws" ? "404 Not Found" : "403 Forbidden"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
        return;
      }
      // Pings are answered by connection.ts under the frame limit (ws's own auto-pong drops a socket
      // without a close frame after a burst of 60).
      wss ??= new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, autoPong: false });
      wss.handleUpgrade(req, socket, head, (ws) => {
        const slot = admission.connect(req);
        if (!slot.ok) {
          ws.close(slot.refusal.code, slot.refusal.reason);
          return;
        }
        ws.once("close", () => slot.release());
        sockets.add(ws);
        rawSockets.set(ws, socket);
        ws.on("close", () => sockets.delete(ws));
        onSocket(ws, req.socket.remoteAddress ?? "unknown");
      });
    },

    async close() {
      closed = true;
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const ws of sockets) ws.close(CLOSE_SERVICE_RESTART, WORLD_RESTARTING);
      const server = wss;
      wss = undefined;
      if (server) {
        // Sockets that ignore the close handshake are cut after a moment so shutdown never hangs.
        const cut = setTimeout(() => {
          for (const ws of server.clients) ws.terminate();
        }, 1000);
        await Promise.race([
          new Promise<void>((resolve) => server.close(() => resolve())),
          new Promise<void>((resolve) => setTimeout(resolve, 2000).unref()),
        ]);
        clearTimeout(cut);
      }
    },

    onPatchDelivered(listener) {
      deliveryListeners.add(listener);
      return () => deliveryListeners.delete(listener);
    },

    travel(entityId, url) {
      if (!hooks.travel(entityId, url))
        logger.info(
          `openclawworld web: ${entityId} went to another gateway with no browser connected here to send on`,
        );
    },

    expectArrival: (hash, entityId) => hooks.expectArrival(hash, entityId),

    stats() {
      const all = [...sessions.values()];
      return {
        sessions: all.length,
        connected: all.filter((s) => s.ws).length,
        connections: admission.stats().connections,
      };
    },
  };
}
