// Another team's AIC server, for the conformance suite's verdicts: this project's AIC over a ticking
// in-process world (src/aic/testing) behind a proxy that makes it someone else's. Only the PRD's six
// endpoints pass, and their answers carry what the PRD does not have (PLANTED: fields of its own,
// an entity of a kind the PRD has not, an event type of its own); it serves a /heartbeat of another
// shape, which refuses an empty body as bad_request like ours would, and an openapi.json of its own
// listing it. Nothing else: no join (its agents are in the lobby already, as PRD section 14 has
// them), no /world/ws.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PRD_ENDPOINTS } from "../../conformance/capabilities.ts";
import { createTestEnv, silentLogger } from "../../src/aic/testing/local-world.ts";
import { createAicHttpHandler } from "../../src/http/aic/aic-app.ts";

/** What the proxy adds beyond the PRD, each a deviation the suite must report once. */
export const PLANTED = {
  observeFields: ["facilities", "mapMetadata"],
  npc: { id: "npc_guard_01", kind: "npc" },
  chatSendField: "deliveredTo",
  eventType: "npc.moved",
} as const;

export interface OtherServer {
  baseUrl: string;
  room: string;
  close(): Promise<void>;
}

type Answer = { status: string; data?: Record<string, unknown> & { [key: string]: unknown } };

/** The answer of a PRD endpoint as the other server sends it. */
function theirs(endpoint: string, request: { radius?: number }, answer: Answer): Answer {
  const data = answer.data;
  if (answer.status !== "ok" || !data) return answer;
  if (endpoint === "observe") {
    const self = data.self as {
      roomId: string;
      pos: { x: number; y: number };
      tile: { tx: number; ty: number };
    };
    const npc = {
      entity: {
        id: PLANTED.npc.id,
        kind: PLANTED.npc.kind,
        name: "Guard",
        roomId: self.roomId,
        pos: { x: self.pos.x + 48, y: self.pos.y },
        tile: { tx: self.tile.tx + 1, ty: self.tile.ty },
      },
      distance: 48,
      affords: [],
    };
    // Out of a small radius's reach, as an entity of the room would be.
    const nearby = data.nearby as unknown[];
    return {
      ...answer,
      data: {
        ...data,
        nearby: (request.radius ?? 0) >= npc.distance ? [...nearby, npc] : nearby,
        facilities: [{ id: "fountain", tile: { tx: 3, ty: 3 } }],
        mapMetadata: { name: "their lobby", version: 3 },
      },
    };
  }
  if (endpoint === "chatSend") return { ...answer, data: { ...data, [PLANTED.chatSendField]: 1 } };
  if (endpoint === "pollEvents") {
    const events = data.events as { cursor: string; roomId: string; tsMs: number }[];
    const [first, ...rest] = events;
    if (!first) return answer;
    const wandered = {
      cursor: `${first.cursor}npc`,
      type: PLANTED.eventType,
      roomId: first.roomId,
      tsMs: first.tsMs,
      payload: { npcId: PLANTED.npc.id, to: { tx: 4, ty: 4 } },
    };
    return { ...answer, data: { ...data, events: [first, wandered, ...rest] } };
  }
  return answer;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Its own heartbeat: "still there?" answered with its own shape. */
function heartbeat(text: string): { status: number; body: unknown } {
  let body: { agentId?: unknown; roomId?: unknown } | undefined;
  try {
    body = JSON.parse(text);
  } catch {}
  if (typeof body?.agentId !== "string" || typeof body.roomId !== "string")
    return {
      status: 400,
      body: {
        status: "error",
        error: { code: "bad_request", message: "agentId and roomId are required", retryable: false },
      },
    };
  return { status: 200, body: { status: "ok", data: { alive: true, agentId: body.agentId, uptimeSec: 42 } } };
}

export async function startOtherServer(tokens: Record<string, string>): Promise<OtherServer> {
  const env = await createTestEnv({ agents: (id) => ({ name: id }) });
  await env.join(...Object.values(tokens));
  const aic = createAicHttpHandler({ service: env.service, tokens: (t) => tokens[t], logger: silentLogger });
  const inner = createServer((req, res) => void aic.handle(req, res));
  await new Promise<void>((r) => inner.listen(0, "127.0.0.1", r));
  const innerBase = `http://127.0.0.1:${(inner.address() as AddressInfo).port}/aic/v0.1`;
  env.runtime.start();

  const prd = new Set<string>(PRD_ENDPOINTS);
  const proxy = createServer((req, res) => {
    void (async () => {
      const name = /^\/aic\/v0\.1\/([\w.]+)$/.exec(new URL(req.url ?? "/", "http://x").pathname)?.[1];
      if (req.method === "GET" && name === "openapi.json") {
        const paths = Object.fromEntries([...prd, "heartbeat"].map((p) => [`/${p}`, { post: {} }]));
        return send(res, 200, { openapi: "3.1.0", info: { title: "Their world", version: "1" }, paths });
      }
      if (req.method === "POST" && name === "heartbeat") {
        const { status, body } = heartbeat(await bodyOf(req));
        return send(res, status, body);
      }
      if (req.method !== "POST" || !name || !prd.has(name)) {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("not found");
        return;
      }
      const text = await bodyOf(req);
      const forwarded = await fetch(`${innerBase}/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: req.headers.authorization ?? "" },
        body: text,
      });
      const retryAfter = forwarded.headers.get("retry-after");
      const answer = (await forwarded.json()) as Answer;
      let request: { radius?: number } = {};
      try {
        request = JSON.parse(text);
      } catch {}
      send(
        res,
        forwarded.status,
        theirs(name, request ?? {}, answer),
        retryAfter ? { "retry-after": retryAfter } : {},
      );
    })().catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/aic/v0.1`,
    room: "lobby",
    async close() {
      env.runtime.stop();
      aic.close();
      for (const server of [proxy, inner]) {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    },
  };
}
