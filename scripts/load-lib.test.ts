// The load harness's own arithmetic: Prometheus parsing, histogram quantiles and the charts.
import { describe, expect, it } from "vitest";
import { bucketQuantileMs, LatencyHistogram, parseMetrics } from "./lib/load.ts";
import { svgChart } from "./lib/plot.ts";

const TEXT = `# HELP openclawworld_tick_duration_seconds x
# TYPE openclawworld_tick_duration_seconds histogram
openclawworld_tick_duration_seconds_bucket{le="0.001",phase="step"} 90
openclawworld_tick_duration_seconds_bucket{le="0.01",phase="step"} 100
openclawworld_tick_duration_seconds_bucket{le="+Inf",phase="step"} 100
openclawworld_tick_duration_seconds_bucket{le="0.001",phase="total"} 50
openclawworld_tick_duration_seconds_bucket{le="0.01",phase="total"} 98
openclawworld_tick_duration_seconds_bucket{le="+Inf",phase="total"} 100
openclawworld_ticks_total 100
openclawworld_process_memory_bytes{type="rss"} 104857600
openclawworld_process_memory_bytes{type="heap_used"} 31457280
openclawworld_process_memory_bytes{type="heap_total"} 41943040
openclawworld_process_memory_bytes{type="external"} 5242880
openclawworld_process_memory_bytes{type="array_buffers"} 2097152
openclawworld_process_cpu_seconds_total{mode="user"} 1.5
openclawworld_process_cpu_seconds_total{mode="system"} 0.5
openclawworld_event_log_depth{room="lobby"} 40
openclawworld_event_log_depth{room="cafe"} 2
openclawworld_rate_limited_total{class="chatSend"} 3
openclawworld_ws_connections{state="connected"} 5
openclawworld_ws_connections{state="session"} 6
`;

describe("load harness figures", () => {
  it("reads the metrics it needs from the Prometheus text", () => {
    const s = parseMetrics(TEXT, 1000);
    expect(s.ticks).toBe(100);
    expect(s.rssBytes).toBe(100 * 2 ** 20);
    expect(s.memoryBytes).toEqual({
      rss: 100 * 2 ** 20,
      heap_used: 30 * 2 ** 20,
      heap_total: 40 * 2 ** 20,
      external: 5 * 2 ** 20,
      array_buffers: 2 * 2 ** 20,
    });
    expect(s.cpuSeconds).toBe(2);
    expect(s.eventLogDepth).toBe(42);
    expect(s.rateLimited).toBe(3);
    expect(s.connected).toBe(5);
    expect(s.tickTotal.get(0.01)).toBe(98);
    expect(s.tickStep.get(Number.POSITIVE_INFINITY)).toBe(100);
  });

  it("takes quantiles from bucket differences, interpolated inside a bucket", () => {
    const now = parseMetrics(TEXT, 0).tickTotal;
    // 50 of 100 below 1 ms: the median is the top of the first bucket.
    expect(bucketQuantileMs(now, undefined, 0.5)).toBeCloseTo(1, 6);
    // p90: 40 of the 48 in (1 ms, 10 ms] -> 1 + 9 * 40/48 ms.
    expect(bucketQuantileMs(now, undefined, 0.9)).toBeCloseTo(1 + (9 * 40) / 48, 6);
    // Only what happened between two scrapes counts.
    const before = new Map([
      [0.001, 50],
      [0.01, 50],
      [Number.POSITIVE_INFINITY, 50],
    ]);
    expect(bucketQuantileMs(now, before, 0.5)).toBeGreaterThan(1);
    expect(bucketQuantileMs(before, before, 0.5)).toBeNull();
  });

  it("keeps latency quantiles in bounded bins", () => {
    const h = new LatencyHistogram();
    expect(h.quantile(0.5)).toBeNull();
    for (let i = 1; i <= 100; i++) h.add(i);
    expect(h.quantile(0.5)).toBe(50);
    expect(h.quantile(0.95)).toBe(95);
    h.add(1e9);
    expect(h.max).toBe(1e9);
    expect(h.quantile(1)).toBe(10_000);
    h.reset();
    expect(h.count).toBe(0);
  });

  it("draws a chart with its lines, gaps and limit", () => {
    const svg = svgChart({
      title: "Tick <time>",
      xLabel: "s",
      yLabel: "ms",
      lines: [
        {
          name: "p99",
          color: "#d00",
          points: [
            [0, 1],
            [5, null],
            [10, 3],
            [15, 4],
          ],
        },
      ],
      limit: { value: 10, label: "goal" },
    });
    expect(svg).toContain("Tick &lt;time>");
    expect(svg.match(/<polyline/g)?.length).toBe(2); // split at the null
    expect(svg).toContain("stroke-dasharray");
  });
});
