// Humans in the browser: the static client at /world/, the world's map files, and the realtime
// WebSocket at /world/ws (upgraded on the gateway's own port). Every action a human takes goes
// through AicService.act — the same handlers, affordance registry and rate limiter as agents.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { type WebSocket, WebSocketServer } from "ws";
import { decodeCursor } from "../../aic/cursor.ts";
import type { AicResult } from "../../aic/errors.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import type { Actor, AicService } from "../../aic/service.ts";
// biome-ignore lint/style/noRestrictedImports: transitional; the surface moves to the contract's read interface next.
import type { TickInfo, WorldRuntime } from "../../runtime/world-runtime.ts";
import type { EntityView, WorldApi } from "../../world/types.ts";
import { diffEntities, isEmptyDelta, toWire } from "./delta.ts";
import { InterestSet } from "./interest.ts";
import {
  type ClientMessageT,
  MAX_FRAME_BYTES,
  parseClientMessage,
  type ServerMessage,
  type WireEntity,
  type WireEvent,
  type WireObject,
  type WireRoom,
  type WireRosterEntry,
} from "./protocol.ts";
import { resolveInside, SECURITY_HEADERS, sendFile } from "./static-files.ts";

export const DEFAULT_WEB_DIST = fileURLToPath(new URL("../../../web/dist", import.meta.url));

/** A durable key-value space (the plugin passes the runtime's store): resume tokens kept there let a
 * human resume after a gateway restart. Writes are durable when they return. */
export interface SessionStore {
  list(): { key: string; value: unknown }[];
  put(key: string, value: unknown): void;
  delete(key: string): void;
}

export interface WebSurfaceDeps {
  runtime: WorldRuntime;
  service: AicService;
  worldDir: string;
  logger: { info(m: string): void; warn(m: string): void; error(m: string): void };
  webDistDir?: string;
  joinCode?: string;
  resumeGraceMs?: number;
  /** Durable space for resume tokens, so a human resumes after a gateway restart (within the grace). */
  sessions?: SessionStore;
  /** Interest radius in tiles (actors within it are streamed; kept until 1.25x further). */
  interestRadiusTiles?: number;
}

interface HumanSession {
  sessionId: string;
  resumeToken: string;
  actor: Actor;
  ws: WebSocket | undefined;
  roomId: string | undefined;
  lastSeq: number;
  sent: Map<string, WireEntity>;
  interest: InterestSet;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
}

interface Connection {
  id: string;
  session: HumanSession | undefined;
  droppedFrames: number;
}

const BACKPRESSURE_BYTES = 1 << 20;
const WS_FRAME_CLASS = "wsFrame";

export interface WebSurfaceHandle {
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
  /** For status and tests. */
  stats(): { sessions: number; connected: number };
}

const token = (bytes: number) => randomBytes(bytes).toString("base64url");

export function createWebSurface(deps: WebSurfaceDeps): WebSurfaceHandle {
  const { runtime, service, logger } = deps;
  const webDist = deps.webDistDir ?? DEFAULT_WEB_DIST;
  const graceMs = deps.resumeGraceMs ?? 30_000;
  const world = (): WorldApi => runtime.world;
  const tileSize = () => Object.values(world().definition.rooms)[0]?.tileSize ?? 32;
  const interestTiles = deps.interestRadiusTiles ?? 16;
  // One limiter implementation (src/aic): here it bounds raw frames per connection; the actions those
  // frames ask for are limited again, per session, inside AicService.act.
  const frameLimiter = new RateLimiter({ classes: { [WS_FRAME_CLASS]: { perSec: 30, burst: 60 } } });
  const sessions = new Map<string, HumanSession>();
  const byResumeToken = new Map<string, HumanSession>();
  const connections = new Map<WebSocket, Connection>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let wss: WebSocketServer | undefined;
  let closed = false;

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

  // Sessions saved before a restart come back detached: their resume token works for one grace
  // period from now (the restart itself dropped every connection).
  for (const { key, value } of deps.sessions?.list() ?? []) {
    const saved = value as { sessionId?: string; name?: string; entityId?: string };
    const self = saved.entityId ? world().getEntity(saved.entityId) : undefined;
    if (self?.kind !== "human" || !saved.sessionId || !saved.name) {
      deps.sessions?.delete(key);
      continue;
    }
    const s: HumanSession = {
      sessionId: saved.sessionId,
      resumeToken: key,
      actor: { entityId: self.id, kind: "human", name: saved.name, rateKey: `human:${saved.sessionId}` },
      ws: undefined,
      roomId: undefined,
      lastSeq: 0,
      sent: new Map(),
      interest: new InterestSet(interestTiles * tileSize(), interestTiles * tileSize() * 1.25),
      graceTimer: undefined,
    };
    sessions.set(s.sessionId, s);
    byResumeToken.set(key, s);
    detach(s);
  }

  // Humans without a session (none saved, or persistence off) leave after the grace period, like
  // any disconnected human.
  for (const roomId of Object.keys(world().definition.rooms)) {
    for (const ghost of world()
      .actorsInRoom(roomId)
      .filter((a) => a.kind === "human")) {
      later(async () => {
        if ([...sessions.values()].some((s) => s.actor.entityId === ghost.id)) return;
        await service.act(
          { entityId: ghost.id, kind: "human", name: ghost.name, rateKey: `ghost:${ghost.id}` },
          { kind: "leave" },
        );
      }, graceMs);
    }
  }

  function send(ws: WebSocket | undefined, message: ServerMessage): void {
    if (!ws || ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify(message), (error) => {
      if (error) logger.warn(`openclawworld web: send failed: ${error.message}`);
    });
  }

  function sendError(ws: WebSocket, code: string, message: string, retryable: boolean, forType?: string) {
    send(ws, { type: "error", code, message, retryable, ...(forType ? { for: forType } : {}) });
  }

  function roomInfo(roomId: string): WireRoom {
    const room = world().definition.rooms[roomId]!;
    return {
      roomId,
      name: room.name,
      mapUrl: `/world/${room.mapFile.split(path.sep).join("/")}`,
      widthTiles: room.widthTiles,
      heightTiles: room.heightTiles,
      tileSize: room.tileSize,
      tickRate: world().definition.tickRate,
    };
  }

  function roomObjects(roomId: string): WireObject[] {
    return world().definition.rooms[roomId]!.objects.flatMap((o) => {
      const view = world().objectView(o.id);
      return view
        ? [
            {
              id: o.id,
              objectType: view.objectType,
              name: o.name,
              tx: o.tile.tx,
              ty: o.tile.ty,
              state: view.state,
              version: view.version,
              affords: view.affords,
            },
          ]
        : [];
    });
  }

  /** The actors this session should see now (interest with hysteresis), as wire entities. */
  function visibleActors(s: HumanSession, self: EntityView): WireEntity[] {
    const hits = world()
      .queryRadius(self.roomId, self.pos, s.interest.exitRadius)
      .filter((h) => h.entity.kind !== "object");
    const ids = s.interest.update(
      hits.map((h) => ({ id: h.entity.id, distance: h.distance })),
      s.actor.entityId,
    );
    return hits.filter((h) => ids.has(h.entity.id)).map((h) => toWire(h.entity));
  }

  function wireEvent(e: {
    type: string;
    seq: number;
    tsMs: number;
    payload: Record<string, unknown>;
  }): WireEvent {
    if (e.type !== "chat.message") return { type: e.type, seq: e.seq, tsMs: e.tsMs, payload: e.payload };
    const from = world().getEntity(String(e.payload.fromEntityId));
    return {
      type: e.type,
      seq: e.seq,
      tsMs: e.tsMs,
      payload: { ...e.payload, fromName: from?.name ?? String(e.payload.fromEntityId) },
    };
  }

  /** Everyone in the room by name (no positions): the presence list; positions stream by interest. */
  function roster(roomId: string): WireRosterEntry[] {
    return world()
      .actorsInRoom(roomId)
      .map((a) => ({
        id: a.id,
        name: a.name,
        kind: a.kind === "agent" ? ("agent" as const) : ("human" as const),
      }));
  }

  function enterRoom(
    s: HumanSession,
    self: EntityView,
    afterSeq: number,
  ): { entities: WireEntity[]; objects: WireObject[]; roster: WireRosterEntry[] } {
    s.roomId = self.roomId;
    s.lastSeq = afterSeq;
    s.sent.clear();
    s.interest.clear();
    const entities = visibleActors(s, self);
    for (const e of entities) s.sent.set(e.id, e);
    return { entities, objects: roomObjects(self.roomId), roster: roster(self.roomId) };
  }

  function pushTick(info: TickInfo): void {
    for (const s of sessions.values()) {
      if (!s.ws || !s.roomId) continue;
      try {
        pushTo(s, info);
      } catch (error) {
        logger.warn(`openclawworld web: update for ${s.actor.entityId} failed: ${(error as Error).message}`);
      }
    }
  }

  function pushTo(s: HumanSession, info: TickInfo): void {
    const ws = s.ws!;
    // A slow client skips ticks; its `sent` map still describes what it has, so the next delta heals it.
    if (ws.bufferedAmount > BACKPRESSURE_BYTES) return;
    const self = world().getEntity(s.actor.entityId);
    if (!self) return;
    if (self.roomId !== s.roomId) {
      const firstSeqHere = info.events.find((e) => e.roomId === self.roomId)?.seq;
      const afterSeq = firstSeqHere !== undefined ? firstSeqHere - 1 : world().latestSeq(self.roomId);
      send(ws, {
        type: "room",
        room: roomInfo(self.roomId),
        ...enterRoom(s, self, afterSeq),
        tick: info.tick,
      });
    } else {
      const delta = diffEntities(s.sent, visibleActors(s, self));
      if (!isEmptyDelta(delta))
        send(ws, { type: "delta", tick: info.tick, serverTsMs: info.serverTsMs, ...delta });
    }
    const page = world().eventsFor(s.actor.entityId, self.roomId, s.lastSeq, 200);
    if (page.events.length) send(ws, { type: "events", events: page.events.map(wireEvent) });
    s.lastSeq = page.nextSeq;
  }

  const unsubscribe = runtime.onTick(pushTick);

  function detach(s: HumanSession): void {
    s.ws = undefined;
    if (s.graceTimer) clearTimeout(s.graceTimer);
    s.graceTimer = later(async () => {
      if (s.ws) return;
      sessions.delete(s.sessionId);
      byResumeToken.delete(s.resumeToken);
      deps.sessions?.delete(s.resumeToken);
      await service.act(s.actor, { kind: "leave" });
    }, graceMs);
  }

  function report(ws: WebSocket, result: AicResult<unknown>, forType: ClientMessageT["type"]): void {
    if (result.status === "error") {
      sendError(ws, result.error.code, result.error.message, result.error.retryable, forType);
    } else if (forType === "interact" || forType === "chat_send" || forType === "click_to_move") {
      send(ws, { type: "result", for: forType, data: result.data as Record<string, unknown> });
    }
  }

  async function join(
    ws: WebSocket,
    conn: Connection,
    msg: Extract<ClientMessageT, { type: "join" }>,
  ): Promise<void> {
    if (conn.session) return sendError(ws, "conflict", "this connection has already joined", false, "join");
    if (deps.joinCode !== undefined && msg.joinCode !== deps.joinCode) {
      sendError(ws, "forbidden", "this world is private: a valid join code is required", false, "join");
      ws.close(4003, "join code required");
      return;
    }
    const resumable = msg.resumeToken ? byResumeToken.get(msg.resumeToken) : undefined;
    if (resumable && world().getEntity(resumable.actor.entityId)) {
      if (resumable.ws && resumable.ws !== ws) resumable.ws.close(4000, "resumed elsewhere");
      if (resumable.graceTimer) clearTimeout(resumable.graceTimer);
      resumable.graceTimer = undefined;
      resumable.ws = ws;
      conn.session = resumable;
      const self = world().getEntity(resumable.actor.entityId)!;
      send(ws, {
        type: "welcome",
        sessionId: resumable.sessionId,
        resumeToken: resumable.resumeToken,
        entityId: self.id,
        resumed: true,
        room: roomInfo(self.roomId),
        ...enterRoom(resumable, self, world().latestSeq(self.roomId)),
        tick: world().tick,
        serverTsMs: world().serverTsMs,
      });
      return;
    }
    const sessionId = token(12);
    const session: HumanSession = {
      sessionId,
      resumeToken: token(24),
      actor: {
        entityId: `hum_${token(9).replace(/[^A-Za-z0-9]/g, "x")}`,
        kind: "human",
        name: msg.name,
        rateKey: `human:${sessionId}`,
      },
      ws,
      roomId: undefined,
      lastSeq: 0,
      sent: new Map(),
      interest: new InterestSet(interestTiles * tileSize(), interestTiles * tileSize() * 1.25),
      graceTimer: undefined,
    };
    conn.session = session;
    const joined = await service.act(session.actor, { kind: "join" });
    if (joined.status === "error") {
      conn.session = undefined;
      return sendError(ws, joined.error.code, joined.error.message, joined.error.retryable, "join");
    }
    const data = joined.data as { roomId: string; cursor: string };
    sessions.set(sessionId, session);
    byResumeToken.set(session.resumeToken, session);
    const { entityId, name } = session.actor;
    deps.sessions?.put(session.resumeToken, { sessionId, entityId, name });
    if (ws.readyState !== ws.OPEN) return detach(session);
    const self = world().getEntity(session.actor.entityId);
    if (!self) return sendError(ws, "internal", "joined but not present", true, "join");
    const cursor = decodeCursor(data.cursor, data.roomId);
    send(ws, {
      type: "welcome",
      sessionId,
      resumeToken: session.resumeToken,
      entityId: self.id,
      resumed: false,
      room: roomInfo(self.roomId),
      ...enterRoom(session, self, cursor.ok ? cursor.position.afterSeq : world().latestSeq(self.roomId)),
      tick: world().tick,
      serverTsMs: world().serverTsMs,
    });
  }

  async function handleMessage(ws: WebSocket, conn: Connection, msg: ClientMessageT): Promise<void> {
    if (msg.type === "ping")
      return send(ws, {
        type: "pong",
        ...(msg.t !== undefined ? { t: msg.t } : {}),
        serverTsMs: world().serverTsMs,
      });
    if (msg.type === "join") return join(ws, conn, msg);
    const s = conn.session;
    if (!s) return sendError(ws, "agent_not_in_room", "send join first", false, msg.type);
    const actor = s.actor;
    switch (msg.type) {
      case "move_intent":
        return report(ws, await service.act(actor, { kind: "moveDir", dx: msg.dx, dy: msg.dy }), msg.type);
      case "click_to_move":
        return report(
          ws,
          await service.act(actor, { kind: "moveTo", dest: { tx: msg.destTx, ty: msg.destTy } }),
          msg.type,
        );
      case "chat_send":
        return report(
          ws,
          await service.act(actor, { kind: "chat", channel: msg.channel, message: msg.message }),
          msg.type,
        );
      case "interact":
        return report(
          ws,
          await service.act(actor, { kind: "interact", targetId: msg.targetId, action: msg.action }),
          msg.type,
        );
    }
  }

  function onConnection(ws: WebSocket): void {
    const conn: Connection = { id: token(8), session: undefined, droppedFrames: 0 };
    connections.set(ws, conn);
    ws.on("message", (data, isBinary) => {
      const decision = frameLimiter.take(`conn:${conn.id}`, WS_FRAME_CLASS);
      if (!decision.allowed) {
        conn.droppedFrames += 1;
        if (conn.droppedFrames === 1 || conn.droppedFrames % 50 === 0) {
          sendError(ws, "rate_limited", `too many messages; retry in ${decision.retryAfterMs} ms`, true);
        }
        if (conn.droppedFrames > 2000) ws.close(1008, "flood");
        return;
      }
      conn.droppedFrames = 0;
      const size = Array.isArray(data)
        ? data.reduce((n, b) => n + b.length, 0)
        : (data as Buffer | ArrayBuffer).byteLength;
      if (isBinary || size > MAX_FRAME_BYTES) {
        return sendError(
          ws,
          "bad_request",
          isBinary ? "binary frames are not accepted" : `frame larger than ${MAX_FRAME_BYTES} bytes`,
          false,
        );
      }
      const parsed = parseClientMessage(data.toString());
      if (!parsed.ok) return sendError(ws, parsed.code, parsed.message, false);
      handleMessage(ws, conn, parsed.message).catch((error: unknown) => {
        logger.error(`openclawworld web: ${parsed.message.type} failed: ${(error as Error).message}`);
        sendError(ws, "internal", "internal error", true, parsed.message.type);
      });
    });
    ws.on("close", () => {
      connections.delete(ws);
      if (conn.session?.ws === ws) detach(conn.session);
    });
    ws.on("error", (error) => logger.warn(`openclawworld web: socket error: ${error.message}`));
  }

  function sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (!origin) return true; // not a browser: nothing to hijack
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }

  return {
    async handleHttp(req, res) {
      const url = new URL(req.url ?? "/", "http://localhost");
      const p = url.pathname;
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405, { ...SECURITY_HEADERS, allow: "GET, HEAD", "content-type": "text/plain" });
        res.end("method not allowed");
        return true;
      }
      if (p === "/world") {
        res.writeHead(301, { location: "/world/" });
        res.end();
        return true;
      }
      if (p === "/world/ws") {
        res.writeHead(426, { ...SECURITY_HEADERS, upgrade: "websocket", "content-type": "text/plain" });
        res.end("this endpoint speaks WebSocket");
        return true;
      }
      if (p === "/world/" || p === "/world/index.html") {
        if (await sendFile(req, res, path.join(webDist, "index.html"), 0)) return true;
        res.writeHead(503, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
        res.end("The web client is not built yet: run `npm run build:web` and reload.");
        return true;
      }
      if (p === "/world/tiles.png") return sendFile(req, res, path.join(deps.worldDir, "tiles.png"), 0);
      if (p.startsWith("/world/maps/")) {
        const file = resolveInside(path.join(deps.worldDir, "maps"), p.slice("/world/maps/".length));
        return file?.endsWith(".json") ? sendFile(req, res, file, 0) : false;
      }
      if (p.startsWith("/world/assets/")) {
        const file = resolveInside(path.join(webDist, "assets"), p.slice("/world/assets/".length));
        return file ? sendFile(req, res, file, 300) : false;
      }
      return false;
    },

    handleUpgrade(req, socket, head) {
      const p = new URL(req.url ?? "/", "http://localhost").pathname;
      if (closed || p !== "/world/ws" || !sameOrigin(req)) {
        socket.end(
          `HTTP/1.1 ${closed ? "503 Service Unavailable" : p !== "/world/ws" ? "404 Not Found" : "403 Forbidden"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
        return;
      }
      wss ??= new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
    },

    async close() {
      closed = true;
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const ws of connections.keys()) ws.close(1001, "world stopping");
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

    stats() {
      return { sessions: sessions.size, connected: [...sessions.values()].filter((s) => s.ws).length };
    },
  };
}
