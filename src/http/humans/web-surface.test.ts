// The WebSocket surface over a real socket on 127.0.0.1, with the real lobby world ticking.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { RawWebSocket } from "../../../test/support/raw-socket.ts";
import { holdsFor, until } from "../../../test/support/wait.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import { AicService } from "../../aic/service.ts";
import { BUNDLED_WORLD_DIR } from "../../config/config.ts";
import { loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import { type LoopbackServer, serveOnLoopback } from "./testing/serve-loopback.ts";
import { createWebSurface, type WebSurfaceHandle } from "./web-surface.ts";
import { ServerFrameReader } from "./wire-delta.ts";

// biome-ignore lint/suspicious/noExplicitAny: frames from our own server, read loosely in tests
type Msg = { type: string; [k: string]: any };

interface Env {
  url: string;
  runtime: WorldRuntime;
  surface: WebSurfaceHandle;
  server: LoopbackServer;
}
const envs: Env[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const env of envs.splice(0)) {
    await env.server.close();
    env.runtime.stop();
  }
});

async function setup(opts: { joinCode?: string; resumeGraceMs?: number } = {}): Promise<Env> {
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), {
    info() {},
    warn() {},
    error() {},
  });
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const surface = createWebSurface({
    service,
    worldDir: BUNDLED_WORLD_DIR,
    logger: { info() {}, warn() {}, error() {} },
    ...opts,
  });
  const server = await serveOnLoopback(surface);
  runtime.start();
  const env = {
    url: server.wsUrl,
    runtime,
    surface,
    server,
  };
  envs.push(env);
  return env;
}

class Client {
  readonly ws: WebSocket;
  readonly received: Msg[] = [];
  closed: { code: number } | undefined;
  constructor(url: string) {
    this.ws = new WebSocket(url);
    sockets.push(this.ws);
    const reader = new ServerFrameReader();
    this.ws.on("message", (data, isBinary) =>
      this.received.push(reader.read(isBinary ? (data as Buffer) : String(data)) as Msg),
    );
    this.ws.on("close", (code) => {
      this.closed = { code };
    });
  }
  async open(): Promise<this> {
    if (this.ws.readyState !== WebSocket.OPEN) await new Promise((r) => this.ws.once("open", r));
    return this;
  }
  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }
  async next(pred: (m: Msg) => boolean, timeoutMs = 5000): Promise<Msg> {
    return until(`a matching frame (${pred})`, () => this.received.find(pred), timeoutMs).catch(() => {
      throw new Error(`no matching frame; got ${JSON.stringify(this.received.map((m) => m.type))}`);
    });
  }
}

async function joined(
  env: Env,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ client: Client; welcome: Msg }> {
  const client = await new Client(env.url).open();
  client.send({ type: "join", name, ...extra });
  return { client, welcome: await client.next((m) => m.type === "welcome") };
}

describe("web surface WebSocket", () => {
  it("a join gets a welcome snapshot with the room, nearby actors and objects", async () => {
    const env = await setup();
    const { welcome } = await joined(env, "Ada");
    expect(welcome.entityId).toMatch(/^hum_/);
    expect(welcome.room).toMatchObject({ roomId: "lobby", mapUrl: "/world/maps/lobby.json", tileSize: 32 });
    expect(welcome.entities.map((e: Msg) => e.id)).toContain(welcome.entityId);
    expect(
      welcome.objects.some((o: Msg) => o.id === "obj_sign_welcome" && o.affords[0].action === "read"),
    ).toBe(true);
    expect(welcome.roster.map((r: Msg) => r.name)).toContain("Ada");
    expect(env.runtime.world.getEntity(welcome.entityId)?.name).toBe("Ada");
  });

  it("bad messages get typed error frames and affect neither the world nor other clients", async () => {
    const env = await setup();
    const { client: bad } = await joined(env, "Mallory");
    const { client: good, welcome } = await joined(env, "Grace");
    bad.send("{not json");
    bad.send({ type: "move_intent", dx: 5, dy: 0 });
    bad.send({ type: "interact", targetId: "obj_nope", action: "read" });
    const errors = () => bad.received.filter((m) => m.type === "error");
    await bad.next(() => errors().length >= 3);
    expect(errors().map((e) => e.code)).toEqual(["bad_request", "bad_request", "not_found"]);
    expect(bad.closed).toBeUndefined();
    good.send({ type: "chat_send", channel: "global", message: "still fine" });
    await good.next(
      (m) => m.type === "events" && m.events.some((e: Msg) => e.payload.message === "still fine"),
    );
    expect(env.runtime.world.getEntity(welcome.entityId)).toBeDefined();
  });

  it("a flood is rate-limited without disturbing the world", async () => {
    const env = await setup();
    const { client } = await joined(env, "Flo");
    const ticks = env.runtime.health().ticks;
    for (let i = 0; i < 300; i++) client.send({ type: "ping", t: i });
    const limited = await client.next((m) => m.type === "error" && m.code === "rate_limited");
    expect(limited.retryable).toBe(true);
    const pongs = () => client.received.filter((m) => m.type === "pong").length;
    await client.next(() => pongs() >= 50);
    expect(pongs()).toBeLessThan(300);
    await until("the world goes on ticking", () => env.runtime.health().ticks > ticks);
    expect(env.runtime.health().failedTicks).toBe(0);
    // The frame limiter refills (30 a second): a ping is answered again.
    await until(
      "a ping answered after the flood",
      () =>
        client.received.some((m) => m.type === "pong" && m.t === -1) || client.send({ type: "ping", t: -1 }),
      { everyMs: 100 },
    );
    // Chat actions hit the shared AIC limiter for humans too (1/s, burst 3): sent one at a time, within
    // the frame limit, the fourth or so is refused by it.
    const answers = () => client.received.filter((m) => m.for === "chat_send");
    const refused = () => answers().some((m) => m.type === "error" && m.code === "rate_limited");
    for (let i = 0; i < 8 && !refused(); i++) {
      const answered = answers().length;
      client.send({ type: "chat_send", channel: "global", message: `m${i}` });
      await until(`chat ${i} answered`, () => answers().length > answered);
    }
    expect(refused()).toBe(true);
  });

  it("a burst of 100 protocol pings is answered within the frame limit and the socket stays open", async () => {
    const env = await setup();
    const raw = await RawWebSocket.open(Number(new URL(env.url).port));
    raw.send(0x9, "", 100);
    const pongs = () => raw.frames().filter((f) => f.opcode === 0xa).length;
    await raw.until(() => pongs() >= 60, 5000);
    await holdsFor("the socket stays open", () => !raw.ended, 300);
    raw.send(0x1, JSON.stringify({ type: "ping", t: 7 }));
    await raw.until(() => raw.frames().some((f) => f.opcode === 0x1 && f.payload.includes('"pong"')), 5000);
    raw.destroy();
  });

  it("a flood of protocol pings is closed 1008 with a close frame", async () => {
    const env = await setup();
    const raw = await RawWebSocket.open(Number(new URL(env.url).port));
    raw.send(0x9, "", 2500);
    await raw.until(() => raw.closeCode() !== undefined || raw.ended, 15_000);
    expect(raw.closeCode()).toBe(1008);
    raw.destroy();
  });

  it("a reconnect within the grace period gets the same entity back; after it, the entity leaves", async () => {
    const env = await setup({ resumeGraceMs: 400 });
    const { client, welcome } = await joined(env, "Ren");
    const { client: watcher } = await joined(env, "Wat");
    client.ws.close();
    await until("the server sees Ren's socket closed", () => env.surface.stats().connected === 1);
    const { welcome: again } = await joined(env, "Ren", { resumeToken: welcome.resumeToken });
    expect(again.resumed).toBe(true);
    expect(again.entityId).toBe(welcome.entityId);
    sockets.at(-1)!.close();
    await watcher.next(
      (m) =>
        m.type === "events" &&
        m.events.some((e: Msg) => e.type === "presence.leave" && e.payload.entityId === welcome.entityId),
      3000,
    );
    expect(env.runtime.world.getEntity(welcome.entityId)).toBeUndefined();
  });

  it("a private world needs its join code", async () => {
    const env = await setup({ joinCode: "open-sesame" });
    const denied = await new Client(env.url).open();
    denied.send({ type: "join", name: "Eve", joinCode: "wrong" });
    expect(await denied.next((m) => m.type === "error")).toMatchObject({ code: "forbidden" });
    await denied.next(() => denied.closed !== undefined).catch(() => {});
    expect(denied.closed?.code).toBe(4003);
    const { welcome } = await joined(env, "Ali", { joinCode: "open-sesame" });
    expect(welcome.entityId).toMatch(/^hum_/);
  });

  it("streams only nearby actors and their moves as deltas", async () => {
    const env = await setup();
    const { client, welcome } = await joined(env, "Vi");
    const agentJoin = env.runtime.submit({
      kind: "join",
      entityId: "agt_far",
      actorKind: "agent",
      name: "Far",
      joinRoomId: "lobby",
    });
    await agentJoin;
    const added = await client.next((m) => m.type === "delta" && m.add?.some((e: Msg) => e.id === "agt_far"));
    expect(added.tick).toBeGreaterThan(welcome.tick);
    const world = env.runtime.world;
    const self = world.getEntity(welcome.entityId)!;
    const near = [1, -1, 2, -2]
      .map((d) => ({ tx: self.tile.tx + d, ty: self.tile.ty }))
      .find((t) => !world.isBlocked("lobby", t))!;
    const moved = await env.runtime.submit({ kind: "moveTo", entityId: "agt_far", dest: near });
    expect(moved.ok).toBe(true);
    await client.next((m) => m.type === "delta" && m.update?.some((u: Msg) => u.id === "agt_far"));
    // Walk the agent to the far side of the lobby: it leaves the human's interest and is removed.
    const room = world.definition.rooms.lobby!;
    let far: { tx: number; ty: number } | undefined;
    for (let tx = room.widthTiles - 2; tx > 0 && !far; tx--) {
      for (const ty of [1, 2, 3, room.heightTiles - 2, room.heightTiles - 3]) {
        const t = { tx, ty };
        const dist = Math.hypot(tx - self.tile.tx, ty - self.tile.ty);
        if (dist > 22 && !world.isBlocked("lobby", t)) {
          const r = await env.runtime.submit({ kind: "moveTo", entityId: "agt_far", dest: t });
          if (r.ok) {
            far = t;
            break;
          }
        }
      }
    }
    expect(far).toBeDefined();
    await client.next((m) => m.type === "delta" && m.remove?.includes("agt_far"), 15_000);
  });

  it("approach walks to a reachable tile beside a door in a wall; its state change carries new affordances", async () => {
    const env = await setup();
    const { client, welcome } = await joined(env, "Dora");
    const world = env.runtime.world;
    const start = await env.runtime.submit({
      kind: "moveTo",
      entityId: welcome.entityId,
      dest: { tx: 30, ty: 12 },
    });
    expect(start.ok).toBe(true);
    await client.next(
      () =>
        world.getEntity(welcome.entityId)?.tile.tx === 30 &&
        world.getEntity(welcome.entityId)?.tile.ty === 12,
      8000,
    );
    client.send({ type: "approach", targetId: "obj_door_meeting" });
    const result = await client.next((m) => m.type === "result" && m.for === "approach");
    expect(result.data.targetId).toBe("obj_door_meeting");
    const dest = result.data.dest as { tx: number; ty: number };
    expect(world.isBlocked("lobby", dest)).toBe(false);
    expect(Math.hypot(dest.tx - 37, dest.ty - 6)).toBeLessThanOrEqual(world.definition.interactRangeTiles);
    await client.next(() => {
      const e = world.getEntity(welcome.entityId)!;
      return (
        e.tile.tx === dest.tx &&
        e.tile.ty === dest.ty &&
        e.pos.x === (dest.tx + 0.5) * 32 &&
        e.pos.y === (dest.ty + 0.5) * 32
      );
    }, 10_000);
    // Open, then close: each change carries the affordance that is valid after it.
    for (const [action, next] of [
      ["open", "close"],
      ["close", "open"],
    ] as const) {
      client.send({ type: "interact", targetId: "obj_door_meeting", action });
      const r = await client.next(
        (m) =>
          m.type === "result" &&
          m.for === "interact" &&
          !client.received.slice(0, client.received.indexOf(m)).includes(m) &&
          m.data.outcome.message === (action === "open" ? "The door opens." : "The door closes."),
      );
      expect(r.data.outcome.type).toBe("ok");
      const changed = await client.next(
        (m) =>
          m.type === "events" &&
          m.events.some(
            (e: Msg) => e.type === "object.state_changed" && e.payload.affords?.[0]?.action === next,
          ),
      );
      expect(changed).toBeDefined();
    }
    client.send({ type: "approach", targetId: "obj_nope" });
    expect(await client.next((m) => m.type === "error" && m.for === "approach")).toMatchObject({
      code: "not_found",
    });
  });

  it("a dropped human shows as away to others until resumed; names are made unique; room chat is replayed to newcomers", async () => {
    const env = await setup({ resumeGraceMs: 5000 });
    const { client: ada, welcome: aw } = await joined(env, "Ada");
    const { client: twin, welcome: tw } = await joined(env, " ada ", { look: 3 });
    expect(env.runtime.world.getEntity(tw.entityId)?.name).toBe("ada (2)");
    expect(aw.entities.length).toBeGreaterThan(0);
    await ada.next(
      (m) => m.type === "delta" && m.add?.some((e: Msg) => e.id === tw.entityId && e.look === 3),
    );
    twin.send({ type: "chat_send", channel: "global", message: "hello room" });
    twin.send({ type: "chat_send", channel: "proximity", message: "psst" });
    await ada.next((m) => m.type === "events" && m.events.some((e: Msg) => e.payload.message === "psst"));
    twin.ws.terminate();
    const awayMsg = await ada.next((m) => m.type === "presence" && m.id === tw.entityId);
    expect(awayMsg.away).toBe(true);
    const { welcome: late } = await joined(env, "Late");
    expect(late.roster.find((r: Msg) => r.id === tw.entityId)?.away).toBe(true);
    expect(late.history.map((e: Msg) => e.payload.message)).toEqual(["hello room"]);
    expect(late.history[0].payload.fromName).toBe("ada (2)");
    const back = await new Client(env.url).open();
    back.send({ type: "join", name: "ada", resumeToken: tw.resumeToken });
    await back.next((m) => m.type === "welcome");
    await ada.next((m) => m.type === "presence" && m.id === tw.entityId && m.away === false);
  });

  it("the radar tells a viewer about actors beyond its interest range, positions only, ~once a second", async () => {
    const env = await setup();
    const { client } = await joined(env, "Rae");
    await env.runtime.submit({
      kind: "join",
      entityId: "agt_radar",
      actorKind: "agent",
      name: "Radar",
      joinRoomId: "lobby",
    });
    await env.runtime.submit({ kind: "moveTo", entityId: "agt_radar", dest: { tx: 3, ty: 28 } });
    const seenFar = await client.next(
      (m) => m.type === "radar" && m.dots.some((d: Msg) => d[0] === "agt_radar" && d[2] === 3 && d[3] === 28),
      20_000,
    );
    expect(seenFar.dots.find((d: Msg) => d[0] === "agt_radar")).toEqual(["agt_radar", "a", 3, 28]);
  });

  it("a browser's part of a patch (delta and events) leaves in one socket write", async () => {
    const env = await setup();
    // Count the server-side socket writes to each browser: the surface's TCP sockets, as upgraded.
    const writes = new Map<string, number>();
    const upgrade = env.surface.handleUpgrade;
    env.surface.handleUpgrade = (req, socket, head) => {
      const key = String(req.headers["sec-websocket-key"]);
      const raw = socket as unknown as Record<"_write" | "_writev", (...a: unknown[]) => void>;
      for (const method of ["_write", "_writev"] as const) {
        const original = raw[method].bind(socket);
        raw[method] = (...a: unknown[]) => {
          writes.set(key, (writes.get(key) ?? 0) + 1);
          original(...a);
        };
      }
      upgrade(req, socket, head);
    };
    const { client: watcher, welcome } = await joined(env, "Watcher");
    await env.runtime.submit({
      kind: "join",
      entityId: "agt_near",
      actorKind: "agent",
      name: "Near",
      joinRoomId: "lobby",
    });
    await watcher.next((m) => m.type === "delta" && m.add?.some((e: Msg) => e.id === "agt_near"));
    const self = env.runtime.world.getEntity(welcome.entityId)!;
    const dest = [1, -1, 2, -2]
      .map((d) => ({ tx: self.tile.tx + d, ty: self.tile.ty }))
      .find((t) => !env.runtime.world.isBlocked("lobby", t))!;
    const key = [...writes.keys()][0]!;
    const receivedBefore = watcher.received.length;
    const writesBefore = writes.get(key) ?? 0;
    // One tick applies both: the next patch has a delta (the move) and an events message (the chat).
    const moved = env.runtime.submit({ kind: "moveTo", entityId: "agt_near", dest });
    const said = env.runtime.submit({
      kind: "chat",
      entityId: "agt_near",
      channel: "global",
      message: "both at once",
    });
    expect((await moved).ok).toBe(true);
    expect((await said).ok).toBe(true);
    await watcher.next(
      (m) => m.type === "events" && m.events.some((e: Msg) => e.payload.message === "both at once"),
    );
    const patch = watcher.received.slice(receivedBefore);
    expect(patch.some((m) => m.type === "delta" && m.update?.some((u: Msg) => u.id === "agt_near"))).toBe(
      true,
    );
    // Messages sent one write each would make these equal.
    expect(writes.get(key)! - writesBefore).toBeLessThan(patch.length);
  });

  it("close() closes every client, telling it to reconnect (1012 service restart)", async () => {
    const env = await setup();
    const { client } = await joined(env, "Bye");
    await env.surface.close();
    await client.next(() => client.closed !== undefined).catch(() => {});
    expect(client.closed?.code).toBe(1012);
  });
});
