// One WebSocket: raw frames are bounded (rate, size, text only) and parsed once by the protocol
// schema; the parsed message goes on as it is, to the lifecycle hooks (join) or as an action to
// AicService.act with the actor the server built for this session.
import type { WebSocket } from "ws";
import type { AicResult } from "../../aic/errors.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import type { WorldReads } from "../../aic/reads.ts";
import type { ActActionT, AicService } from "../../aic/service.ts";
import { type ClientMessageT, MAX_FRAME_BYTES, parseClientMessage, type ServerMessage } from "./protocol.ts";
import type { RoomHooks } from "./room-hooks.ts";
import { type Connection, randomToken } from "./session.ts";

const WS_FRAME_CLASS = "wsFrame";
/** Close codes of a page that went away on purpose (a tab closed, a reload): 1001 "going away",
 * which browsers send when a document unloads, and 4100, which the client sends itself on pagehide.
 * Anything else (1006: the network) is a drop the person may not know about yet. */
export const PAGE_LEFT_CODES: ReadonlySet<number> = new Set([1001, 4100]);
/** Once this many more frames were dropped by the frame limiter than let through since the last
 * drop-free moment, the socket is closed as a flood. */
const FLOOD_FRAMES = 2000;

export interface ConnectionDeps {
  /** Only its action door: a fan-out process reaches it over IPC (src/plugin/fanout). */
  service: Pick<AicService, "act">;
  reads: WorldReads;
  hooks: RoomHooks;
  send(ws: WebSocket | undefined, message: ServerMessage): void;
  sendError(ws: WebSocket, code: string, message: string, retryable: boolean, forType?: string): void;
  logger: { error(message: string): void; warn(message: string): void };
}

type ActionMessage = Extract<
  ClientMessageT,
  { type: "move_intent" | "click_to_move" | "chat_send" | "interact" | "approach" | "act" }
>;

/** The action kind each of the older messages asks for, its fields named as the action's (the
 * world action file's): the message is the action under another `type`. */
const MESSAGE_KINDS = {
  move_intent: "moveDir",
  chat_send: "chat",
  interact: "interact",
  approach: "approach",
} as const satisfies Partial<Record<ActionMessage["type"], ActActionT["kind"]>>;

/** The action a client message asks for: a field-for-field mapping, no second validation. */
export function actionOf(msg: ActionMessage): ActActionT {
  // Parsed by the action's own fields (HUMAN_DOOR_ACTIONS): it is the action as it is.
  if (msg.type === "act") return msg.action as ActActionT;
  // Deprecated (protocol.ts): an older page's click names the tile as destTx/destTy.
  if (msg.type === "click_to_move") return { kind: "moveTo", dest: { tx: msg.destTx, ty: msg.destTy } };
  const {
    type,
    txId: _txId,
    ...fields
  } = msg as Extract<ActionMessage, { type: keyof typeof MESSAGE_KINDS }> & {
    txId?: string;
  };
  return { kind: MESSAGE_KINDS[type], ...fields } as ActActionT;
}

/** Answers every connection; returns the handler for a newly upgraded socket. */
export function createConnectionHandler(
  deps: ConnectionDeps,
): (ws: WebSocket, address: string) => Connection {
  const { service, reads, hooks, send, sendError, logger } = deps;
  // One limiter implementation (src/aic): here it bounds raw frames per connection; the actions those
  // frames ask for are limited again, per session, inside AicService.
  const frameLimiter = new RateLimiter({ classes: { [WS_FRAME_CLASS]: { perSec: 30, burst: 60 } } });

  function report(ws: WebSocket, result: AicResult<unknown>, msg: ActionMessage): void {
    const forType = msg.type;
    const tx = "txId" in msg && msg.txId !== undefined ? { txId: msg.txId } : {};
    if (result.status === "error") {
      const { code, message, retryable, details } = result.error;
      // A closed place's refusal names it and when it opens: the page says so in the world's words.
      const opensAt = typeof details?.opensAt === "string" ? { opensAt: details.opensAt } : {};
      send(ws, { type: "error", code, message, retryable, for: forType, ...opensAt, ...tx });
    } else if (forType !== "move_intent") {
      send(ws, { type: "result", for: forType, data: result.data as Record<string, unknown>, ...tx });
    }
  }

  async function handleMessage(ws: WebSocket, conn: Connection, msg: ClientMessageT): Promise<void> {
    if (msg.type === "ping")
      return send(ws, {
        type: "pong",
        ...(msg.t !== undefined ? { t: msg.t } : {}),
        serverTsMs: reads.serverTsMs,
      });
    if (msg.type === "join") return hooks.onJoin(ws, conn, msg);
    const session = conn.session;
    if (!session) return sendError(ws, "agent_not_in_room", "send join first", false, msg.type);
    const txId = "txId" in msg ? msg.txId : undefined;
    report(ws, await service.act(session.actor, actionOf(msg), txId ? { txId } : undefined), msg);
  }

  return (ws, address) => {
    const conn: Connection = { id: randomToken(8), address, session: undefined, droppedFrames: 0 };
    /** Whether the frame limiter lets this frame through; a long run of refusals closes the flood. */
    const admitFrame = (): boolean => {
      const decision = frameLimiter.take(`conn:${conn.id}`, WS_FRAME_CLASS);
      if (decision.allowed) {
        // Drops are forgiven one per frame let through, not all at once: a flood the limiter
        // refills into every few milliseconds (a busy gateway reads it slowly) still adds up.
        conn.droppedFrames = Math.max(0, conn.droppedFrames - 1);
        return true;
      }
      conn.droppedFrames += 1;
      if (conn.droppedFrames === 1 || conn.droppedFrames % 50 === 0) {
        sendError(ws, "rate_limited", `too many messages; retry in ${decision.retryAfterMs} ms`, true);
      }
      if (conn.droppedFrames > FLOOD_FRAMES) ws.close(1008, "flood");
      return false;
    };
    // Protocol pings are frames like any other (the server turns ws's auto-pong off, which cut a
    // socket without a close frame after 60 unanswered pongs): a burst within the frame limit is
    // answered, the rest go unanswered, and a flood closes 1008 like a flood of messages.
    ws.on("ping", (data) => {
      if (admitFrame()) ws.pong(data);
    });
    ws.on("message", (data, isBinary) => {
      if (!admitFrame()) return;
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
      if (!parsed.ok) return sendError(ws, parsed.code, parsed.message, false, parsed.forType);
      handleMessage(ws, conn, parsed.message).catch((error: unknown) => {
        logger.error(`openclawworld web: ${parsed.message.type} failed: ${(error as Error).message}`);
        sendError(ws, "internal", "internal error", true, parsed.message.type);
      });
    });
    ws.on("close", (code) => {
      if (conn.session?.ws === ws) hooks.onDrop(conn.session, PAGE_LEFT_CODES.has(code) ? "page" : "network");
    });
    ws.on("error", (error) => logger.warn(`openclawworld web: socket error: ${error.message}`));
    return conn;
  };
}
