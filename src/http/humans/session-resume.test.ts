// Humans' resume tokens survive a gateway restart through the runtime's durable session space: a
// second web surface over the same (recovered) world and the same store resumes the same character
// within the grace period; after the grace the human leaves and the token is forgotten.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { RateLimiter } from "../../aic/rate-limit.ts";
import { AicService } from "../../aic/service.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import type { DurableSessions } from "./session.ts";
import { createWebSurface, type WebSurfaceHandle } from "./web-surface.ts";
import { ServerFrameReader } from "./wire-delta.ts";

// biome-ignore lint/suspicious/noExplicitAny: frames from our own server, read loosely in tests
type Msg = { type: string; [k: string]: any };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A session space backed by a Map: what the store keeps across the restart. */
function memorySessions(): DurableSessions & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    list: () => [...data].map(([key, value]) => ({ key, value: JSON.parse(value) as unknown })),
    put: (key, value) => void data.set(key, JSON.stringify(value)),
    delete: (key) => void data.delete(key),
  };
}

async function serve(runtime: WorldRuntime, sessions: DurableSessions, resumeGraceMs: number) {
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const surface: WebSurfaceHandle = createWebSurface({
    service,
    worldDir: BUNDLED_WORLD_DIR,
    logger: { info() {}, warn() {}, error() {} },
    resumeGraceMs,
    savedSessions: sessions,
  });
  const server: Server = createServer((req, res) => {
    void surface.handleHttp(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  server.on("upgrade", (req, socket, head) => surface.handleUpgrade(req, socket, head));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await surface.close();
    await new Promise((r) => server.close(r));
  };
  cleanups.push(stop);
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/world/ws`, stop };
}

async function join(url: string, message: Record<string, unknown>): Promise<{ ws: WebSocket; welcome: Msg }> {
  const ws = new WebSocket(url);
  cleanups.push(async () => ws.terminate());
  const frames: Msg[] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) =>
    frames.push(reader.read(isBinary ? (data as Buffer) : String(data)) as Msg),
  );
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "join", ...message }));
  for (let i = 0; i < 250; i++) {
    const hit = frames.find((m) => m.type === "welcome" || m.type === "error");
    if (hit) return { ws, welcome: hit };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("no welcome");
}

describe("human sessions across a restart", () => {
  it("a resume token from before the restart gets the same character back", async () => {
    const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), {
      info() {},
      warn() {},
      error() {},
    });
    runtime.start();
    cleanups.push(async () => runtime.stop());
    const sessions = memorySessions();
    const first = await serve(runtime, sessions, 100);
    const { welcome } = await join(first.url, { name: "Ren" });
    expect(sessions.data.has(welcome.resumeToken)).toBe(true);
    await first.stop(); // the gateway goes away; the world (recovered from the store) stays
    // The stopped surface's grace timers do not fire: the session belongs to the next surface.
    await new Promise((r) => setTimeout(r, 300));
    expect(sessions.data.has(welcome.resumeToken)).toBe(true);

    const second = await serve(runtime, sessions, 60_000);
    const { welcome: again } = await join(second.url, { name: "Ren", resumeToken: welcome.resumeToken });
    expect(again).toMatchObject({ type: "welcome", resumed: true, entityId: welcome.entityId });
    expect(runtime.world.getEntity(welcome.entityId)?.name).toBe("Ren");
  });

  it("after the grace period the human leaves and the token no longer resumes", async () => {
    const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), {
      info() {},
      warn() {},
      error() {},
    });
    runtime.start();
    cleanups.push(async () => runtime.stop());
    const sessions = memorySessions();
    const first = await serve(runtime, sessions, 300);
    const { welcome } = await join(first.url, { name: "Ike" });
    await first.stop();
    await serve(runtime, sessions, 300);
    for (let i = 0; i < 100 && runtime.world.getEntity(welcome.entityId); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(runtime.world.getEntity(welcome.entityId)).toBeUndefined();
    expect(sessions.data.size).toBe(0);
  });
});
