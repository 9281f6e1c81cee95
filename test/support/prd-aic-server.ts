// A small AIC server that is not ours, for testing the conformance suite's verdicts: only the PRD's
// six endpoints (no join, heartbeat, human WebSocket, openapi.json), its own map (one room "atrium",
// 12 x 8 tiles, a wall at the corner, one plaque to read), its agents pre-provisioned in the room
// (PRD section 14), requests checked against the PRD's own request schemas, time counted in
// requests (no clock). `faults` injects one known defect each, so a test can say which cases a
// faulty server must fail, and that no other case does.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { oracleAic } from "../../src/aic/testing/oracle.ts";

export interface PrdServerFaults {
  /** moveTo answers `result: "done"`, a value its schema does not have. */
  wrongField?: boolean;
  /** pollEvents with a limit above 200 is refused without an error code. */
  missingErrorCode?: boolean;
  /** pollEvents' nextCursor stops one event short, so reading on delivers that event again. */
  cursorGoesBack?: boolean;
  /** chatSend replayed with the same txId and payload posts again, with a new message id. */
  replayDiffers?: boolean;
}

export interface PrdServer {
  /** The AIC base URL (…/aic/v0.1). */
  baseUrl: string;
  room: string;
  close(): Promise<void>;
}

const ROOM = "atrium";
const MAP = { id: "atrium-v1", width: 12, height: 8, tile: 32 };
const WALLS = new Set(["0,0"]);
const EPOCH_MS = 1_767_225_600_000;
const PLAQUE = {
  id: "obj_plaque_atrium",
  name: "Plaque",
  tile: { tx: 6, ty: 3 },
  text: "The atrium was opened for conformance tests.",
};

type Result = { status: "ok"; data: unknown } | { status: "error"; error: Record<string, unknown> };

interface Agent {
  id: string;
  tile: { tx: number; ty: number };
}

const STATUS: Record<string, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  agent_not_in_room: 409,
  collision_blocked: 409,
  invalid_destination: 422,
  conflict: 409,
};

const error = (code: string, message: string): Result => ({
  status: "error",
  error: { code, message, retryable: false },
});

const pos = (tile: { tx: number; ty: number }) => ({
  x: tile.tx * MAP.tile + MAP.tile / 2,
  y: tile.ty * MAP.tile + MAP.tile / 2,
});

export async function startPrdServer(
  tokens: Record<string, string>,
  faults: PrdServerFaults = {},
): Promise<PrdServer> {
  const agents = new Map<string, Agent>();
  for (const [i, id] of Object.values(tokens).entries()) agents.set(id, { id, tile: { tx: 2 + i, ty: 2 } });
  const chat: { id: string; from: string; channel: string; message: string; tsMs: number }[] = [];
  const events: { type: string; tsMs: number; payload: Record<string, unknown> }[] = [];
  const txs = new Map<string, { hash: string; answer: Result }>();
  let requests = 0;
  const now = () => EPOCH_MS + requests * 100;

  const entity = (agent: Agent) => ({
    id: `agt_${agent.id}`,
    kind: "agent",
    name: agent.id,
    roomId: ROOM,
    pos: pos(agent.tile),
    tile: agent.tile,
  });
  const distance = (a: { tx: number; ty: number }, b: { tx: number; ty: number }) =>
    Math.hypot((a.tx - b.tx) * MAP.tile, (a.ty - b.ty) * MAP.tile);

  /** An action's answer once per txId: the same payload again is answered the same. */
  const once = (agent: Agent, body: Record<string, unknown>, act: () => Result): Result => {
    const key = `${agent.id}/${body.txId}`;
    const hash = createHash("sha256")
      .update(JSON.stringify({ ...body, txId: undefined }))
      .digest("hex");
    const known = txs.get(key);
    if (known && known.hash !== hash) return error("conflict", "txId reused with another payload");
    if (known && !(faults.replayDiffers && "message" in body)) return known.answer;
    const answer = act();
    if (answer.status === "ok") txs.set(key, { hash, answer });
    return answer;
  };

  const handlers: Record<string, (agent: Agent, body: Record<string, unknown>) => Result> = {
    observe(agent, body) {
      const radius = body.radius as number;
      const plaque = {
        entity: {
          id: PLAQUE.id,
          kind: "object",
          name: PLAQUE.name,
          roomId: ROOM,
          pos: pos(PLAQUE.tile),
          tile: PLAQUE.tile,
        },
        distance: distance(agent.tile, PLAQUE.tile),
        affords: [{ action: "read", label: "Read the plaque" }],
        object: { objectType: "plaque", state: {} },
      };
      const others = [...agents.values()]
        .filter((a) => a !== agent)
        .map((a) => ({ entity: entity(a), distance: distance(agent.tile, a.tile), affords: [] }));
      const nearby = [plaque, ...others]
        .filter((n) => n.distance <= radius)
        .sort((a, b) => a.distance - b.distance);
      return {
        status: "ok",
        data: {
          self: entity(agent),
          nearby,
          serverTsMs: now(),
          room: { roomId: ROOM, mapId: MAP.id, tickRate: 10 },
        },
      };
    },
    moveTo(agent, body) {
      return once(agent, body, () => {
        const dest = body.dest as { tx: number; ty: number };
        if (dest.tx >= MAP.width || dest.ty >= MAP.height)
          return error("invalid_destination", "outside the map");
        if (WALLS.has(`${dest.tx},${dest.ty}`)) return error("collision_blocked", "a wall");
        agent.tile = dest;
        const result = faults.wrongField ? "done" : "accepted";
        return { status: "ok", data: { txId: body.txId, applied: true, serverTsMs: now(), result } };
      });
    },
    interact(agent, body) {
      return once(agent, body, () => {
        if (body.targetId !== PLAQUE.id) return error("not_found", "no such object");
        const outcome =
          distance(agent.tile, PLAQUE.tile) > 2 * MAP.tile
            ? { type: "too_far" }
            : body.action === "read"
              ? { type: "ok", message: PLAQUE.text }
              : { type: "invalid_action" };
        return { status: "ok", data: { txId: body.txId, applied: true, serverTsMs: now(), outcome } };
      });
    },
    chatSend(agent, body) {
      return once(agent, body, () => {
        const id = `msg_atrium${String(chat.length + 1).padStart(6, "0")}`;
        const tsMs = now();
        chat.push({
          id,
          from: agent.id,
          channel: body.channel as string,
          message: body.message as string,
          tsMs,
        });
        events.push({
          type: "chat.message",
          tsMs,
          payload: {
            messageId: id,
            fromEntityId: `agt_${agent.id}`,
            channel: body.channel,
            message: body.message,
            tsMs,
          },
        });
        return {
          status: "ok",
          data: { txId: body.txId, applied: true, serverTsMs: tsMs, chatMessageId: id },
        };
      });
    },
    chatObserve(_agent, body) {
      const since = now() - (body.windowSec as number) * 1000;
      const messages = chat
        .filter((m) => m.tsMs >= since && (!body.channel || body.channel === m.channel))
        .map((m) => ({
          id: m.id,
          roomId: ROOM,
          channel: m.channel,
          fromEntityId: `agt_${m.from}`,
          fromName: m.from,
          message: m.message,
          tsMs: m.tsMs,
        }));
      return { status: "ok", data: { messages, serverTsMs: now() } };
    },
    pollEvents(_agent, body) {
      const limit = (body.limit as number | undefined) ?? 50;
      const since = String(body.sinceCursor);
      const match = /^(?:0|c_0|ev_(\d+))$/.exec(since);
      if (!match) return error("bad_request", "unknown cursor");
      const after = Number(match[1] ?? 0);
      const page = events.slice(after, after + limit).map((e, i) => ({
        cursor: `ev_${after + i + 1}`,
        type: e.type,
        roomId: ROOM,
        tsMs: e.tsMs,
        payload: e.payload,
      }));
      const last = after + page.length;
      const next = faults.cursorGoesBack && page.length > 1 ? last - 1 : last;
      return { status: "ok", data: { events: page, nextCursor: `ev_${next}`, serverTsMs: now() } };
    },
  };

  const answer = (res: ServerResponse, result: Result) => {
    const status = result.status === "ok" ? 200 : (STATUS[result.error.code as string] ?? 500);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(result));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const name = /^\/aic\/v0\.1\/(\w+)$/.exec(req.url ?? "")?.[1];
    const handler = name && Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (!name || !handler || req.method !== "POST") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const agent = token ? agents.get(tokens[token] ?? "") : undefined;
    if (!agent) return answer(res, error("unauthorized", "unknown token"));
    let text = "";
    for await (const chunk of req) text += chunk;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch {
      return answer(res, error("bad_request", "not JSON"));
    }
    const valid = oracleAic(`${name.charAt(0).toUpperCase()}${name.slice(1)}Request`, body);
    if (!valid.valid) {
      if (faults.missingErrorCode && name === "pollEvents" && (body.limit as number) > 200) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "error", error: { message: valid.errors, retryable: false } }));
        return;
      }
      return answer(res, error("bad_request", valid.errors));
    }
    if (body.agentId !== agent.id) return answer(res, error("forbidden", "another agent's id"));
    if (body.roomId !== ROOM)
      return answer(res, error("agent_not_in_room", `not in room ${String(body.roomId)}`));
    return answer(res, handler(agent, body));
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/aic/v0.1`,
    room: ROOM,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
