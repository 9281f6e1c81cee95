// Humans' resume tokens survive a gateway restart through the runtime's durable session space: a
// second web surface over the same (recovered) world and the same store resumes the same character
// within the grace period; after the grace the human leaves, and the token brings the same character
// back where it left (issue #41).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { holdsFor, until } from "../../../test/support/wait.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import { AicService } from "../../aic/service.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import { type DurableSessions, keptLooks } from "./session.ts";
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

async function serve(
  runtime: WorldRuntime,
  sessions: DurableSessions,
  resumeGraceMs: number,
  pageLeftGraceMs?: number,
) {
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const surface: WebSurfaceHandle = createWebSurface({
    service,
    worldDir: BUNDLED_WORLD_DIR,
    logger: { info() {}, warn() {}, error() {} },
    resumeGraceMs,
    ...(pageLeftGraceMs !== undefined ? { pageLeftGraceMs } : {}),
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

/** An open socket and every frame it got, decoded. */
async function connect(url: string): Promise<{ ws: WebSocket; frames: Msg[] }> {
  const ws = new WebSocket(url);
  cleanups.push(async () => ws.terminate());
  const frames: Msg[] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) =>
    frames.push(reader.read(isBinary ? (data as Buffer) : String(data)) as Msg),
  );
  await new Promise((r) => ws.once("open", r));
  return { ws, frames };
}

async function join(
  url: string,
  message: Record<string, unknown>,
): Promise<{ ws: WebSocket; welcome: Msg; frames: Msg[] }> {
  const { ws, frames } = await connect(url);
  ws.send(JSON.stringify({ type: "join", ...message }));
  const welcome = await until(
    "the welcome",
    () => frames.find((m) => m.type === "welcome" || m.type === "error"),
    5_000,
  );
  return { ws, welcome, frames };
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
    const { welcome } = await join(first.url, { name: "Ren", look: 2 });
    expect(sessions.data.has(welcome.resumeToken)).toBe(true);
    await first.stop(); // the gateway goes away; the world (recovered from the store) stays
    // The stopped surface's grace timers do not fire: the session belongs to the next surface.
    await holdsFor("the session is kept", () => sessions.data.has(welcome.resumeToken), 300);

    const second = await serve(runtime, sessions, 60_000);
    // Before Ren's page is back, others see Ren with the look Ren picked.
    const watcher = await join(second.url, { name: "Ula" });
    expect(watcher.welcome.entities.find((e: Msg) => e.id === welcome.entityId)).toMatchObject({ look: 2 });
    const { welcome: again } = await join(second.url, { name: "Ren", resumeToken: welcome.resumeToken });
    expect(again).toMatchObject({ type: "welcome", resumed: true, entityId: welcome.entityId });
    expect(runtime.world.getEntity(welcome.entityId)?.name).toBe("Ren");
  });

  it("after the grace period the human leaves; the token brings the same character back where it was, once", async () => {
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
    await until("Ike leaves after the grace", () => !runtime.world.getEntity(welcome.entityId), 5_000);
    // Kept durably, with where it stood: a third surface (another restart) still knows it.
    expect([...sessions.data.keys()]).toEqual([welcome.resumeToken]);
    const third = await serve(runtime, sessions, 60_000);
    const { welcome: back } = await join(third.url, { name: "Ike", resumeToken: welcome.resumeToken });
    expect(back).toMatchObject({ type: "welcome", resumed: true, entityId: welcome.entityId, name: "Ike" });
    expect(back.room.roomId).toBe(welcome.room.roomId);
    const self = welcome.entities.find((e: Msg) => e.id === welcome.entityId);
    expect(runtime.world.getEntity(welcome.entityId)?.tile).toEqual({ tx: self.tx, ty: self.ty });
    // The old token is spent: the new session's own is the one kept.
    expect([...sessions.data.keys()]).toEqual([back.resumeToken]);
    const { welcome: other } = await join(third.url, { name: "Ike", resumeToken: welcome.resumeToken });
    expect(other.entityId).not.toBe(welcome.entityId);
  });

  it("a departed character comes back in the room it left, not the default room", async () => {
    const runtime = await running();
    const { url } = await serve(runtime, memorySessions(), 60_000, 50);
    const { ws, welcome } = await join(url, { name: "Gus" });
    const id = welcome.entityId;
    const service = new AicService({ runtime, agents: (a) => ({ name: a }), limiter: new RateLimiter() });
    const actor = { entityId: id, kind: "human" as const, name: "Gus", rateKey: "t" };
    const moved = await service.act(actor, { kind: "join", roomId: "garden" });
    expect(moved.status).toBe("ok");
    const tile = runtime.world.getEntity(id)!.tile;
    ws.close(4100, "page closed");
    await until("Gus left", () => !runtime.world.getEntity(id));
    const { welcome: back } = await join(url, { name: "Gus", resumeToken: welcome.resumeToken });
    expect(back).toMatchObject({ entityId: id, resumed: true, room: { roomId: "garden" } });
    expect(runtime.world.getEntity(id)).toMatchObject({ roomId: "garden", tile });
  });
});

async function running(): Promise<WorldRuntime> {
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), {
    info() {},
    warn() {},
    error() {},
  });
  runtime.start();
  cleanups.push(async () => runtime.stop());
  return runtime;
}

describe("coming back as someone else, and going away on purpose (issue #26)", () => {
  it("a resume asking for another name is a new character: the old one leaves at once; twice", async () => {
    const runtime = await running();
    const { url } = await serve(runtime, memorySessions(), 60_000);
    let { ws, welcome } = await join(url, { name: "Ann", look: 1 });
    for (const next of ["Bea", "Cat"]) {
      ws.close(4100, "page closed");
      const again = await join(url, { name: next, look: 4, resumeToken: welcome.resumeToken });
      expect(again.welcome).toMatchObject({ type: "welcome", resumed: false, name: next });
      expect(again.welcome.entityId).not.toBe(welcome.entityId);
      expect(runtime.world.getEntity(welcome.entityId)).toBeUndefined();
      expect(again.welcome.entities.find((e: Msg) => e.id === again.welcome.entityId)).toMatchObject({
        look: 4,
      });
      ({ ws, welcome } = again);
    }
  });

  it("a resume asking only for another look keeps the character and changes its look, for everyone", async () => {
    const runtime = await running();
    const kept = memorySessions();
    const { url } = await serve(runtime, kept, 60_000);
    const first = await join(url, { name: "Dan", look: 1 });
    const watcher = await join(url, { name: "Eve" });
    // Kept with the session (the replay and the follow page draw people with it).
    expect(keptLooks(kept).get(first.welcome.entityId)).toBe(1);
    expect(keptLooks(kept).has(watcher.welcome.entityId)).toBe(false);
    for (const look of [6, 3]) {
      first.ws.close(4100, "page closed");
      const back = await join(url, { name: "Dan", look, resumeToken: first.welcome.resumeToken });
      expect(back.welcome).toMatchObject({ resumed: true, entityId: first.welcome.entityId, name: "Dan" });
      expect(back.welcome.entities.find((e: Msg) => e.id === first.welcome.entityId)).toMatchObject({ look });
      expect(keptLooks(kept).get(first.welcome.entityId)).toBe(look);
      // The watcher's delta frames carry the new look (a binary update: the reader keeps the entity).
      await until("the watcher sees the new look", () =>
        watcher.frames.some(
          (m) =>
            m.type === "delta" &&
            [...(m.update ?? []), ...(m.add ?? [])].some(
              (e: Msg) => e.id === first.welcome.entityId && e.look === look,
            ),
        ),
      );
      first.ws = back.ws;
    }
  });

  it("a closed page leaves after the short grace, never shown away; a network drop is shown away", async () => {
    const runtime = await running();
    const { url } = await serve(runtime, memorySessions(), 60_000, 200);
    const watcher = await join(url, { name: "Gus" });
    const second = await join(url, { name: "Gus" });
    expect(second.welcome.name).toBe("Gus (2)"); // told, so the page can say so
    for (let round = 0; round < 2; round++) {
      const tab = await join(url, { name: `Tab ${round}` });
      tab.ws.close(4100, "page closed");
      await until("the closed tab's character leaves", () => !runtime.world.getEntity(tab.welcome.entityId));
      expect(watcher.frames.some((m) => m.type === "presence" && m.id === tab.welcome.entityId)).toBe(false);
    }
    second.ws.terminate(); // no close frame: the network
    await until("the dropped one is shown away", () =>
      watcher.frames.some(
        (m) => m.type === "presence" && m.id === second.welcome.entityId && m.away === true,
      ),
    );
    // The full grace applies.
    await holdsFor("the dropped one stays", () => runtime.world.getEntity(second.welcome.entityId), 400);
  });
});

describe("a resume token is handed out only once its session is durable", () => {
  it("the welcome waits for a store that answers later; a store that fails gives an error and no character", async () => {
    const runtime = await running();
    const memory = memorySessions();
    let release: (() => void) | undefined;
    let failNext = false;
    const slow: DurableSessions = {
      list: () => memory.list(),
      put(key, value) {
        if (failNext) return Promise.reject(new Error("disk full"));
        return new Promise<void>((resolve) => {
          release = () => {
            memory.put(key, value);
            resolve();
          };
        });
      },
      delete: (key) => memory.delete(key),
    };
    const { url } = await serve(runtime, slow, 60_000);
    const { ws, frames } = await connect(url);
    ws.send(JSON.stringify({ type: "join", name: "Pat" }));
    const put = await until("the store to be asked", () => release);
    // The character is in the world, but no token leaves before the store has it.
    await holdsFor("no welcome yet", () => !frames.some((m) => m.type === "welcome"), 150);
    put();
    const welcome = await until("the welcome", () => frames.find((m) => m.type === "welcome"));
    expect(memory.data.has(welcome.resumeToken)).toBe(true);

    failNext = true;
    const refused = await join(url, { name: "Quin" });
    expect(refused.welcome).toMatchObject({ type: "error", code: "internal", retryable: true });
    expect(memory.data.size).toBe(1);
    await until("the unsaved character to leave", () =>
      Object.keys(runtime.world.definition.rooms).every(
        (roomId) => !runtime.world.actorsInRoom(roomId).some((a) => a.name === "Quin"),
      ),
    );
  });
});
