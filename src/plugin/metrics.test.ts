import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { createHostRule } from "../http/host-rule.ts";
import { isLocalCaller, worldRouteHandler } from "../http/routes.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../runtime/load-world-dir.ts";
import { WorldRuntime } from "../runtime/world-runtime.ts";
import { World } from "../world/world.ts";
import { createWorldMetrics, type WorldMetrics } from "./metrics.ts";

const quiet = { info() {}, warn() {}, error() {} };
const open: { runtime: WorldRuntime; metrics: WorldMetrics }[] = [];
afterEach(() => {
  for (const { runtime, metrics } of open.splice(0)) {
    metrics.close();
    runtime.stop();
  }
});

async function setup() {
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
  const limiter = new RateLimiter({ classes: { chatSend: { perSec: 1, burst: 1 } } });
  const patchListeners = new Set<(p: { deliveryMs: number; workMs: number; skipped: number }) => void>();
  const metrics = createWorldMetrics({
    runtime,
    limiter,
    web: () => ({ sessions: 3, connected: 2 }),
    onPatchDelivered: (listener) => {
      patchListeners.add(listener);
      return () => patchListeners.delete(listener);
    },
  });
  open.push({ runtime, metrics });
  const deliver = (p: { deliveryMs: number; workMs: number; skipped: number }) => {
    for (const listener of patchListeners) listener(p);
  };
  return { runtime, limiter, metrics, deliver, patchListeners };
}

/** The value of one sample line, e.g. `name{a="b"} 3`. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

describe("world metrics", () => {
  it("reports ticks, actors per room, event log depth, connections, refusals and memory", async () => {
    const { runtime, limiter, metrics } = await setup();
    const joins = ["agt_a", "agt_b"].map((id) =>
      runtime.submit({ kind: "join", entityId: id, actorKind: "agent", name: id }),
    );
    runtime.stepNow();
    await Promise.all(joins);
    runtime.stepNow();
    runtime.stepNow();
    limiter.take("agt_a", "chatSend");
    limiter.take("agt_a", "chatSend");
    limiter.take("agt_a", "chatSend");

    const text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'openclawworld_tick_duration_seconds_count{phase="step"}')).toBe(3);
    expect(sample(text, 'openclawworld_tick_duration_seconds_count{phase="total"}')).toBe(3);
    expect(sample(text, 'openclawworld_tick_duration_seconds_bucket{le="+Inf",phase="total"}')).toBe(3);
    expect(sample(text, "openclawworld_ticks_total")).toBe(3);
    expect(sample(text, "openclawworld_failed_ticks_total")).toBe(0);
    expect(sample(text, 'openclawworld_room_entities{room="lobby",kind="agent"}')).toBe(2);
    expect(sample(text, 'openclawworld_room_entities{room="lobby",kind="human"}')).toBe(0);
    expect(sample(text, 'openclawworld_event_log_depth{room="lobby"}')).toBe(
      runtime.world.retainedEventCount("lobby"),
    );
    expect(runtime.world.retainedEventCount("lobby")).toBeGreaterThanOrEqual(2); // two presence.join
    expect(sample(text, 'openclawworld_ws_connections{state="connected"}')).toBe(2);
    expect(sample(text, 'openclawworld_ws_connections{state="session"}')).toBe(3);
    expect(sample(text, 'openclawworld_rate_limited_total{class="chatSend"}')).toBe(2);
    expect(sample(text, 'openclawworld_process_memory_bytes{type="rss"}')).toBeGreaterThan(1e6);
  });

  it("counts a failed tick, and a second scrape reports totals, not increments", async () => {
    const { runtime, metrics } = await setup();
    vi.spyOn(runtime.world, "step").mockImplementationOnce(() => {
      throw new Error("boom");
    });
    runtime.stepNow();
    runtime.stepNow();
    await metrics.render();
    const text = await metrics.render();
    expect(sample(text, "openclawworld_failed_ticks_total")).toBe(1);
    expect(sample(text, "openclawworld_ticks_total")).toBe(1);
    // A failed tick is not timed as an applied one.
    expect(sample(text, 'openclawworld_tick_duration_seconds_count{phase="step"}')).toBe(1);
  });

  it("times each patch's fan-out to the browsers and counts the patches skipped meanwhile", async () => {
    const { metrics, deliver } = await setup();
    deliver({ deliveryMs: 12, workMs: 4, skipped: 0 });
    deliver({ deliveryMs: 80, workMs: 30, skipped: 2 });
    const text = await metrics.render();
    expect(sample(text, 'openclawworld_patch_duration_seconds_count{phase="delivery"}')).toBe(2);
    expect(sample(text, 'openclawworld_patch_duration_seconds_bucket{le="0.015",phase="delivery"}')).toBe(1);
    expect(sample(text, 'openclawworld_patch_duration_seconds_bucket{le="0.005",phase="work"}')).toBe(1);
    expect(sample(text, "openclawworld_patches_skipped_total")).toBe(2);
  });

  it("stops observing ticks and patches once closed", async () => {
    const { runtime, metrics, patchListeners } = await setup();
    metrics.close();
    runtime.stepNow();
    expect(patchListeners.size).toBe(0);
    expect(await metrics.render()).toBe("\n");
  });
});

function fakeRequest(
  remoteAddress: string,
  headers: Record<string, string> = {},
  method = "GET",
  url = "/world/metrics",
) {
  return { method, url, headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

function fakeResponse() {
  const out = { status: 0, headers: {} as Record<string, unknown>, body: "" };
  const res = {
    headersSent: false,
    sendDate: true,
    writeHead(status: number, headers: Record<string, unknown>) {
      out.status = status;
      out.headers = headers;
      return res;
    },
    end(body?: string) {
      out.body = body ?? "";
    },
  };
  return { res: res as unknown as ServerResponse, out };
}

describe("/world/metrics access", () => {
  it("is local only: loopback without forwarding headers", () => {
    expect(isLocalCaller(fakeRequest("127.0.0.1"))).toBe(true);
    expect(isLocalCaller(fakeRequest("::1"))).toBe(true);
    expect(isLocalCaller(fakeRequest("::ffff:127.0.0.1"))).toBe(true);
    expect(isLocalCaller(fakeRequest("10.0.0.7"))).toBe(false);
    expect(isLocalCaller(fakeRequest("::ffff:192.168.1.2"))).toBe(false);
    expect(isLocalCaller(fakeRequest("127.0.0.1", { "x-forwarded-for": "203.0.113.9" }))).toBe(false);
    expect(isLocalCaller(fakeRequest("127.0.0.1", { forwarded: "for=203.0.113.9" }))).toBe(false);
  });

  it("is not local to a page that rebound its name to loopback: the Host must be a loopback name", () => {
    expect(isLocalCaller(fakeRequest("127.0.0.1", { host: "evil.example:9000" }))).toBe(false);
    expect(isLocalCaller(fakeRequest("127.0.0.1", { host: "127.0.0.1:9000" }))).toBe(true);
    expect(isLocalCaller(fakeRequest("::1", { host: "localhost" }))).toBe(true);
  });

  it("answers 403 to a Host the gateway does not answer to, with no Date header", async () => {
    const { metrics } = await setup();
    const handler = worldRouteHandler(
      () => ({ metrics }),
      () => ({ status: "fine" }),
      quiet,
      createHostRule([]),
    );
    for (const url of ["/world/metrics", "/world/api/status", "/world/"]) {
      const rebound = fakeResponse();
      await handler(fakeRequest("127.0.0.1", { host: "evil.example" }, "GET", url), rebound.res);
      expect(rebound.out.status).toBe(403);
      expect(JSON.parse(rebound.out.body).error.code).toBe("forbidden");
      expect(rebound.res.sendDate).toBe(false);
    }
    const own = fakeResponse();
    await handler(fakeRequest("127.0.0.1", { host: "localhost:9000" }, "GET", "/world/api/status"), own.res);
    expect(own.out.status).toBe(200);
    expect(own.res.sendDate).toBe(false);
  });

  it("answers 403 to a remote caller, 405 to a POST and the text format to a local GET", async () => {
    const { metrics } = await setup();
    const handler = worldRouteHandler(
      () => ({ metrics }),
      () => ({}),
      quiet,
      createHostRule([]),
    );
    const remote = fakeResponse();
    await handler(fakeRequest("192.0.2.1"), remote.res);
    expect(remote.out.status).toBe(403);
    expect(remote.out.body).not.toContain("openclawworld_");
    const post = fakeResponse();
    await handler(fakeRequest("127.0.0.1", {}, "POST"), post.res);
    expect(post.out.status).toBe(405);
    const local = fakeResponse();
    await handler(fakeRequest("127.0.0.1"), local.res);
    expect(local.out.status).toBe(200);
    expect(local.out.headers["content-type"]).toBe(metrics.contentType);
    expect(local.out.body).toContain("# TYPE openclawworld_tick_duration_seconds histogram");
  });

  it("answers 503 while the world is not running", async () => {
    const handler = worldRouteHandler(
      () => undefined,
      () => ({}),
      quiet,
      createHostRule([]),
    );
    const { res, out } = fakeResponse();
    await handler(fakeRequest("127.0.0.1"), res);
    expect(out.status).toBe(503);
  });
});
