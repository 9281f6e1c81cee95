// WebSocket admission (issue #9): the Origin check resists DNS rebinding, connections and human
// sessions are capped with a clear close reason, and new load is shed while the tick is near its
// deadline. Real sockets on 127.0.0.1 with the real lobby world; the pure parts on fake requests.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { until } from "../../../test/support/wait.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import { AicService } from "../../aic/service.ts";
import { BUNDLED_WORLD_DIR, resolveConfig } from "../../config/config.ts";
import { loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import { type AdmissionLimits, createAdmission, DEFAULT_ADMISSION_LIMITS } from "./connection-admission.ts";
import { createWebSurface, type WebSurfaceHandle } from "./web-surface.ts";
import { ServerFrameReader } from "./wire-delta.ts";

const quiet = { info() {}, warn() {}, error() {} };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(admission: Partial<AdmissionLimits> = {}) {
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const surface: WebSurfaceHandle = createWebSurface({
    service,
    worldDir: BUNDLED_WORLD_DIR,
    logger: quiet,
    admission: { ...DEFAULT_ADMISSION_LIMITS, ...admission },
  });
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => surface.handleUpgrade(req, socket, head));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  runtime.start();
  const sockets: WebSocket[] = [];
  cleanups.push(async () => {
    for (const ws of sockets) ws.terminate();
    await surface.close();
    runtime.stop();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    surface,
    open(headers: Record<string, string> = {}, localAddress?: string) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/world/ws`, {
        headers,
        ...(localAddress ? { localAddress } : {}),
      });
      sockets.push(ws);
      return ws;
    },
  };
}

/** How a connection attempt ends: refused at the upgrade (HTTP status), or opened then closed. */
function outcome(ws: WebSocket): Promise<{ status?: number; opened: boolean }> {
  return new Promise((resolve) => {
    ws.once("unexpected-response", (_req, res) => resolve({ status: res.statusCode, opened: false }));
    ws.once("open", () => resolve({ opened: true }));
    ws.once("error", () => resolve({ opened: false }));
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
}

function messages(ws: WebSocket): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) => list.push(reader.read(isBinary ? (data as Buffer) : String(data))));
  return list;
}

describe("Origin check (DNS rebinding)", () => {
  it("refuses a rebinding page whose Host header agrees with its Origin", async () => {
    const s = await serve();
    const evil = `evil.example:${s.port}`;
    expect(await outcome(s.open({ origin: `http://${evil}`, host: evil }))).toEqual({
      status: 403,
      opened: false,
    });
  });

  it("accepts the gateway's own addresses and no Origin; refuses another port or scheme", async () => {
    const s = await serve();
    for (const origin of [`http://127.0.0.1:${s.port}`, `http://localhost:${s.port}`]) {
      expect((await outcome(s.open({ origin }))).opened, origin).toBe(true);
    }
    expect((await outcome(s.open())).opened).toBe(true);
    for (const origin of [`http://127.0.0.1:${s.port + 1}`, "null", `file://127.0.0.1:${s.port}`]) {
      expect(await outcome(s.open({ origin })), origin).toEqual({ status: 403, opened: false });
    }
  });

  it("accepts an origin from the configured allow-list", async () => {
    const s = await serve({ allowedOrigins: ["https://world.example"] });
    expect((await outcome(s.open({ origin: "https://world.example" }))).opened).toBe(true);
    expect((await outcome(s.open({ origin: "https://other.example" }))).status).toBe(403);
  });
});

describe("connection and session caps", () => {
  it("caps connections per address with close 1013 and a reason; a freed slot is reusable", async () => {
    const s = await serve({ maxConnectionsPerAddress: 3 });
    const first = [s.open(), s.open(), s.open()];
    for (const ws of first) expect((await outcome(ws)).opened).toBe(true);
    const extra = s.open();
    const refused = closed(extra);
    expect(await refused).toEqual({
      code: 1013,
      reason: "too many connections from this address (limit 3)",
    });
    first[0]!.close();
    await closed(first[0]!);
    await until(() => s.surface.stats().connections === 2);
    const again = s.open();
    expect((await outcome(again)).opened).toBe(true);
    expect(s.surface.stats().connections).toBe(3);
  });

  it("caps connections in total", async () => {
    const s = await serve({ maxConnections: 2 });
    for (const ws of [s.open(), s.open()]) expect((await outcome(ws)).opened).toBe(true);
    expect(await closed(s.open())).toEqual({ code: 1013, reason: "too many connections (limit 2)" });
  });

  it("caps human sessions: the next join gets a typed error and close 1013", async () => {
    const s = await serve({ maxHumans: 2 });
    for (const name of ["Ann", "Bob"]) {
      const ws = s.open();
      const got = messages(ws);
      await outcome(ws);
      ws.send(JSON.stringify({ type: "join", name }));
      await until(() => got.some((m) => m.type === "welcome"));
    }
    const third = s.open();
    const got = messages(third);
    await outcome(third);
    const end = closed(third);
    third.send(JSON.stringify({ type: "join", name: "Cy" }));
    expect(await end).toEqual({ code: 1013, reason: "the world is full (limit 2 humans)" });
    expect(got).toContainEqual(
      expect.objectContaining({ type: "error", code: "rate_limited", retryable: true, for: "join" }),
    );
    expect(s.surface.stats().sessions).toBe(2);
  });
});

describe("seats held by dropped sessions (issue #30)", () => {
  it("one address churning join + disconnect cannot keep a visitor from another address out", async () => {
    const s = await serve({ maxHumans: 4, maxHumansPerAddress: 3 });
    const joinFrom = async (name: string, localAddress: string) => {
      const ws = s.open({}, localAddress);
      const got = messages(ws);
      await outcome(ws);
      const end = closed(ws);
      ws.send(JSON.stringify({ type: "join", name }));
      await until(() => got.some((m) => m.type === "welcome" || m.type === "error"));
      return { ws, welcomed: got.some((m) => m.type === "welcome"), end };
    };
    for (let i = 0; i < 10; i++) {
      const churn = await joinFrom(`Churn${i}`, "127.0.0.1");
      expect(churn.welcomed).toBe(true);
      churn.ws.terminate(); // a network drop: the session keeps its seat for the grace period
      await churn.end;
    }
    await until(() => s.surface.stats().connected === 0);
    expect(s.surface.stats().sessions).toBe(3);
    const visitor = await joinFrom("Visitor", "127.0.0.2");
    expect(visitor.welcomed).toBe(true);
    expect(s.surface.stats().sessions).toBe(4);
  });
});

describe("joins on their way in hold their seats", () => {
  it("eight joins at once into three seats: three get in, five are refused", async () => {
    const s = await serve({ maxHumans: 3, maxHumansPerAddress: 10 });
    const sockets = Array.from({ length: 8 }, () => s.open());
    const inboxes = sockets.map((ws) => messages(ws));
    await Promise.all(sockets.map((ws) => outcome(ws)));
    for (const [i, ws] of sockets.entries()) ws.send(JSON.stringify({ type: "join", name: `Rush ${i}` }));
    const answered = () =>
      inboxes.filter((got) => got.some((m) => m.type === "welcome" || m.type === "error"));
    await until(() => answered().length === 8);
    expect(inboxes.filter((got) => got.some((m) => m.type === "welcome")).length).toBe(3);
    expect(s.surface.stats().sessions).toBe(3);
  });
});

describe("admission logic", () => {
  const req = (origin: string | undefined, localAddress = "127.0.0.1", remoteAddress = "127.0.0.1") =>
    ({
      headers: origin === undefined ? {} : { origin },
      socket: { localPort: 18789, localAddress, remoteAddress },
    }) as unknown as IncomingMessage;

  it("matches the address the connection arrived on (LAN bind, IPv6, mapped IPv4)", () => {
    const a = createAdmission(DEFAULT_ADMISSION_LIMITS, () => 0);
    expect(a.originAllowed(req("http://192.168.1.5:18789", "192.168.1.5"))).toBe(true);
    expect(a.originAllowed(req("http://192.168.1.5:18789", "::ffff:192.168.1.5"))).toBe(true);
    expect(a.originAllowed(req("http://[::1]:18789", "::1"))).toBe(true);
    expect(a.originAllowed(req("http://192.168.1.6:18789", "192.168.1.5"))).toBe(false);
    expect(a.originAllowed(req("http://evil.example:18789", "192.168.1.5"))).toBe(false);
    expect(a.originAllowed(req("not a url"))).toBe(false);
  });

  it("sheds new connections and joins while the tick is near its deadline", () => {
    let load = 0.9;
    const a = createAdmission(DEFAULT_ADMISSION_LIMITS, () => load);
    const refused = a.connect(req(undefined));
    expect(refused).toMatchObject({
      ok: false,
      refusal: { code: 1013, reason: expect.stringMatching(/busy/) },
    });
    expect(a.join("127.0.0.1", [])).toMatchObject({
      ok: false,
      refusal: { reason: expect.stringMatching(/busy/) },
    });
    load = 0.3;
    const admitted = a.connect(req(undefined));
    expect(admitted.ok).toBe(true);
    expect(a.join("127.0.0.1", [])).toEqual({ ok: true, reclaim: [] });
    expect(a.stats()).toEqual({ connections: 1, addresses: 1 });
    if (admitted.ok) {
      admitted.release();
      admitted.release(); // idempotent
    }
    expect(a.stats()).toEqual({ connections: 0, addresses: 0 });
  });

  it("seats: an address at its share reclaims its own oldest dropped seat, or is refused if all are connected", () => {
    const a = createAdmission({ ...DEFAULT_ADMISSION_LIMITS, maxHumansPerAddress: 3 }, () => 0);
    const seat = (address: string, droppedOrder?: number) => ({ address, droppedOrder });
    const churned = [seat("10.0.0.1", 5), seat("10.0.0.1", 2), seat("10.0.0.1", 9)];
    expect(a.join("10.0.0.1", churned)).toEqual({ ok: true, reclaim: [churned[1]] });
    const live = [seat("10.0.0.1"), seat("10.0.0.1"), seat("10.0.0.1")];
    expect(a.join("10.0.0.1", live)).toMatchObject({
      ok: false,
      refusal: { code: 1013, reason: "too many people from this address (limit 3)" },
    });
    expect(a.join("10.0.0.2", live)).toEqual({ ok: true, reclaim: [] });
  });

  it("seats: a full world reclaims a dropped seat of the address holding the most before refusing anyone", () => {
    const a = createAdmission({ ...DEFAULT_ADMISSION_LIMITS, maxHumans: 4, maxHumansPerAddress: 3 }, () => 0);
    const seat = (address: string, droppedOrder?: number) => ({ address, droppedOrder });
    const full = [seat("10.0.0.1", 7), seat("10.0.0.1", 4), seat("10.0.0.1"), seat("10.0.0.9", 1)];
    expect(a.join("10.0.0.2", full)).toEqual({ ok: true, reclaim: [full[1]] });
    const connected = [seat("10.0.0.1"), seat("10.0.0.1"), seat("10.0.0.3"), seat("10.0.0.9")];
    expect(a.join("10.0.0.2", connected)).toMatchObject({
      ok: false,
      refusal: { reason: "the world is full (limit 4 humans)" },
    });
  });

  it("seats, any crowd: never reclaims a connected seat; refuses only an address whose share is all connected, or a world full of connected people", () => {
    const seatArb = fc.record({
      address: fc.constantFrom("a", "b", "c", ""),
      droppedOrder: fc.option(fc.nat(1000), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(seatArb, { maxLength: 12 }),
        fc.constantFrom("a", "b", "d"),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        (seats, address, maxHumans, maxHumansPerAddress) => {
          const a = createAdmission({ ...DEFAULT_ADMISSION_LIMITS, maxHumans, maxHumansPerAddress }, () => 0);
          const decision = a.join(address, seats);
          const mine = seats.filter((s) => s.address === address);
          if (decision.ok) {
            expect(decision.reclaim.every((s) => s.droppedOrder !== undefined)).toBe(true);
            expect(seats.length - decision.reclaim.length).toBeLessThan(maxHumans);
            const left = mine.filter((s) => !decision.reclaim.includes(s));
            expect(left.length).toBeLessThan(maxHumansPerAddress);
          } else {
            // Refused only when what is dropped cannot make room: the address's share all connected,
            // or the world full of connected people once the address's own drops are counted out.
            const dropped = (list: typeof seats) => list.filter((s) => s.droppedOrder !== undefined).length;
            const shareLive = mine.length - dropped(mine) >= maxHumansPerAddress;
            const fullLive = seats.length - dropped(seats) >= maxHumans;
            expect(shareLive || fullLive).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("config: caps are configurable and origins must be real origins", () => {
    const config = resolveConfig({
      web: {
        maxConnections: 5,
        maxConnectionsPerAddress: 2,
        maxHumans: 3,
        allowedOrigins: ["https://a.example"],
      },
    });
    expect(config.web).toMatchObject({
      maxConnections: 5,
      maxConnectionsPerAddress: 2,
      maxHumans: 3,
      allowedOrigins: ["https://a.example"],
    });
    expect(() => resolveConfig({ web: { allowedOrigins: ["*"] } })).toThrow(/allowedOrigins\.0/);
    expect(() => resolveConfig({ web: { allowedOrigins: ["https://a.example/path"] } })).toThrow();
  });
});
