// The world's Prometheus metrics (served at /world/metrics to loopback callers only, see
// src/http/routes.ts): one registry per hosted world, not prom-client's global one, so a reload or a
// second world in a test never double-registers. Everything except the tick histogram is read when
// scraped (collect), so the tick loop pays one histogram observation per tick and nothing else.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RateLimiter } from "../aic/rate-limit.ts";
import type { WorldRuntime } from "../runtime/world-runtime.ts";
import type { FanoutStats } from "./fanout/ipc-protocol.ts";

export interface MetricsSources {
  runtime: WorldRuntime;
  /** The one AIC rate limiter (agents and humans' actions). */
  limiter: RateLimiter;
  /** Humans' WebSocket sessions: all of them, and those with a socket open now. */
  web?: () => { sessions: number; connected: number };
  /** Subscribes to each patch's fan-out to the browsers (returns the unsubscribe). */
  onPatchDelivered?: (
    listener: (patch: { deliveryMs: number; workMs: number; skipped: number }) => void,
  ) => () => void;
  /** The browsers' fan-out process (web.fanout: "process"): whether it serves, its restarts and its
   * last report (its connections are in the web source already). */
  fanout?: () => { up: boolean; restarts: number; child: FanoutStats | undefined };
}

export interface WorldMetrics {
  readonly contentType: string;
  /** The Prometheus text exposition of every metric now. */
  render(): Promise<string>;
  close(): void;
}

/** Seconds; a 20 Hz tick has 50 ms, the goal is p99 <= 10 ms. */
const TICK_BUCKETS = [
  0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 1,
];

export function createWorldMetrics(sources: MetricsSources): WorldMetrics {
  const { runtime, limiter } = sources;
  const registry = new Registry();
  const world = () => runtime.world;
  const rooms = () => Object.keys(world().definition.rooms);

  const tickSeconds = new Histogram({
    name: "openclawworld_tick_duration_seconds",
    help: "Wall-clock time of each applied tick; phase=step is the world's step, phase=total adds the durable commit, the answers and every listener (the browsers' view sync)",
    labelNames: ["phase"] as const,
    buckets: TICK_BUCKETS,
    registers: [registry],
  });
  const unsubscribe = runtime.onTickTiming(({ stepMs, totalMs }) => {
    tickSeconds.observe({ phase: "step" }, stepMs / 1000);
    tickSeconds.observe({ phase: "total" }, totalMs / 1000);
  });
  const patchSeconds = new Histogram({
    name: "openclawworld_patch_duration_seconds",
    help: "Each patch's fan-out to the browsers, after its tick: phase=delivery from the tick to the last browser served (slices with the event loop's I/O between them), phase=work the time spent building and writing it",
    labelNames: ["phase"] as const,
    buckets: TICK_BUCKETS,
    registers: [registry],
  });
  const patchesSkipped = new Counter({
    name: "openclawworld_patches_skipped_total",
    help: "Patches that fell due while the previous one was still going out to the browsers (the patch rate adapting to the load; the next patch carries their changes)",
    registers: [registry],
  });
  const unsubscribePatches = sources.onPatchDelivered?.(({ deliveryMs, workMs, skipped }) => {
    patchSeconds.observe({ phase: "delivery" }, deliveryMs / 1000);
    patchSeconds.observe({ phase: "work" }, workMs / 1000);
    if (skipped) patchesSkipped.inc(skipped);
  });

  new Gauge({
    name: "openclawworld_room_entities",
    help: "Actors present per room, by kind (human, agent)",
    labelNames: ["room", "kind"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const roomId of rooms()) {
        const counts = { human: 0, agent: 0 };
        for (const actor of world().actorsInRoom(roomId)) {
          if (actor.kind === "human" || actor.kind === "agent") counts[actor.kind] += 1;
        }
        this.set({ room: roomId, kind: "human" }, counts.human);
        this.set({ room: roomId, kind: "agent" }, counts.agent);
      }
    },
  });
  new Gauge({
    name: "openclawworld_event_log_depth",
    help: "Events each room's log retains now (bounded by the world's event retention)",
    labelNames: ["room"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const roomId of rooms()) this.set({ room: roomId }, world().retainedEventCount(roomId));
    },
  });
  new Gauge({
    name: "openclawworld_ws_connections",
    help: "Humans' WebSocket sessions: state=connected has a socket open, state=session includes those within the resume grace period",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const stats = sources.web?.() ?? { sessions: 0, connected: 0 };
      this.set({ state: "connected" }, stats.connected);
      this.set({ state: "session" }, stats.sessions);
    },
  });
  new Gauge({
    name: "openclawworld_tick_queue_depth",
    help: "Inputs queued for the next tick",
    registers: [registry],
    collect() {
      this.set(runtime.health().queueDepth);
    },
  });
  new Counter({
    name: "openclawworld_rate_limited_total",
    help: "Requests and actions refused by the rate limiter, by rate class",
    labelNames: ["class"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [rateClass, count] of limiter.deniedCounts()) this.inc({ class: rateClass }, count);
    },
  });
  const healthCounter = (
    name: string,
    help: string,
    read: (h: ReturnType<WorldRuntime["health"]>) => number,
  ) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(runtime.health()));
      },
    });
  healthCounter("openclawworld_ticks_total", "Ticks applied since the world started", (h) => h.ticks);
  healthCounter(
    "openclawworld_failed_ticks_total",
    "Ticks whose step threw (their inputs were answered with an error)",
    (h) => h.failedTicks,
  );
  healthCounter(
    "openclawworld_failed_commits_total",
    "Ticks that could not be written durably (answered with a retryable error and rolled back)",
    (h) => h.failedCommits,
  );
  healthCounter(
    "openclawworld_inputs_refused_total",
    "Inputs refused because the tick's input queue was full (answered rate_limited, retryable)",
    (h) => h.refusedInputs,
  );
  const fanout = sources.fanout;
  if (fanout) {
    new Gauge({
      name: "openclawworld_fanout_up",
      help: "Whether the browsers' fan-out process is serving (1) or starting again (0)",
      registers: [registry],
      collect() {
        this.set(fanout().up ? 1 : 0);
      },
    });
    new Counter({
      name: "openclawworld_fanout_restarts_total",
      help: "Times the browsers' fan-out process ended and was started again",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(fanout().restarts);
      },
    });
    new Counter({
      name: "openclawworld_fanout_cpu_seconds_total",
      help: "CPU time of the browsers' fan-out process since it started (mode: user, system)",
      labelNames: ["mode"] as const,
      registers: [registry],
      collect() {
        const child = fanout().child;
        this.reset();
        this.inc({ mode: "user" }, (child?.cpuUserUs ?? 0) / 1e6);
        this.inc({ mode: "system" }, (child?.cpuSystemUs ?? 0) / 1e6);
      },
    });
    new Gauge({
      name: "openclawworld_fanout_ipc_lag_seconds",
      help: "Largest delay of a tick's update from the gateway to the fan-out process over the last second",
      registers: [registry],
      collect() {
        this.set((fanout().child?.ipcLagMaxMs ?? 0) / 1000);
      },
    });
    new Gauge({
      name: "openclawworld_fanout_memory_bytes",
      help: "Memory of the browsers' fan-out process as it last reported it (type: rss, heap_used)",
      labelNames: ["type"] as const,
      registers: [registry],
      collect() {
        const child = fanout().child;
        this.reset();
        if (!child) return;
        this.set({ type: "rss" }, child.rssBytes);
        this.set({ type: "heap_used" }, child.heapUsedBytes);
      },
    });
  }
  new Gauge({
    name: "openclawworld_process_memory_bytes",
    help: "Memory of the gateway process (type: rss, heap_used, heap_total, external, array_buffers)",
    labelNames: ["type"] as const,
    registers: [registry],
    collect() {
      const m = process.memoryUsage();
      this.set({ type: "rss" }, m.rss);
      this.set({ type: "heap_used" }, m.heapUsed);
      this.set({ type: "heap_total" }, m.heapTotal);
      this.set({ type: "external" }, m.external);
      this.set({ type: "array_buffers" }, m.arrayBuffers);
    },
  });
  new Counter({
    name: "openclawworld_gateway_thread_cpu_seconds_total",
    help: "CPU time of the gateway's main thread alone (the one that runs the world, the plugin and the gateway's own HTTP), without its other threads or the fan-out process (mode: user, system)",
    labelNames: ["mode"] as const,
    registers: [registry],
    collect() {
      // Scrapes are answered on the main thread, so this is that thread's own time.
      const cpu = process.threadCpuUsage();
      this.reset();
      this.inc({ mode: "user" }, cpu.user / 1e6);
      this.inc({ mode: "system" }, cpu.system / 1e6);
    },
  });
  new Counter({
    name: "openclawworld_process_cpu_seconds_total",
    help: "CPU time of the gateway process (mode: user, system)",
    labelNames: ["mode"] as const,
    registers: [registry],
    collect() {
      const cpu = process.cpuUsage();
      this.reset();
      this.inc({ mode: "user" }, cpu.user / 1e6);
      this.inc({ mode: "system" }, cpu.system / 1e6);
    },
  });

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      unsubscribe();
      unsubscribePatches?.();
      registry.clear();
    },
  };
}
