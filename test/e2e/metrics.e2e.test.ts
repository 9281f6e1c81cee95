// /world/metrics through the real gateway: Prometheus text to a loopback caller, refused through a
// proxy (a forwarding header), and its figures move with the world.
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { until } from "../support/wait.ts";
import { gateway } from "./fixtures.ts";

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series}`);
  return Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const res = await fetch(`${gateway().baseUrl}/world/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** Scrapes until `ready` holds (bounded): with the browsers' fan-out in its own process (the default),
 * its connections and patch timings reach the gateway's metrics with the child's next stats report,
 * sent every second, so a scrape right after a join may not count it yet. */
async function scrapeUntil(ready: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
  let text = "";
  // Past the deadline the last scrape is returned: the caller's assertions say what is missing.
  await until(
    "a scrape that is ready",
    async () => {
      text = await scrape();
      return ready(text);
    },
    { timeoutMs, everyMs: 100 },
  ).catch(() => undefined);
  return text;
}

describe("metrics endpoint", () => {
  it("serves the world's metrics to a loopback scraper, and they move with the world", async () => {
    const first = await scrape();
    for (const name of [
      "openclawworld_tick_duration_seconds",
      "openclawworld_room_entities",
      "openclawworld_ws_connections",
      "openclawworld_event_log_depth",
      "openclawworld_rate_limited_total",
      "openclawworld_failed_ticks_total",
      "openclawworld_process_memory_bytes",
      "openclawworld_patch_duration_seconds",
      "openclawworld_patches_skipped_total",
    ]) {
      expect(first).toContain(`# TYPE ${name} `);
    }
    const ws = new WebSocket(`${gateway().baseUrl.replace("http", "ws")}/world/ws`);
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once("error", reject);
        ws.on("message", (data) => {
          if (String(data).includes('"type":"welcome"')) resolve();
        });
        ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: "Metrics Probe" })));
      });
      const connected = (text: string) => sample(text, 'openclawworld_ws_connections{state="connected"}');
      const second = await scrapeUntil((text) => connected(text) >= 1);
      expect(connected(second)).toBeGreaterThanOrEqual(1);
      expect(sample(second, 'openclawworld_room_entities{room="lobby",kind="human"}')).toBeGreaterThanOrEqual(
        1,
      );
      expect(sample(second, "openclawworld_ticks_total")).toBeGreaterThan(
        sample(first, "openclawworld_ticks_total"),
      );
      expect(sample(second, 'openclawworld_tick_duration_seconds_count{phase="total"}')).toBeGreaterThan(0);
      // A browser is connected: patches go out to it, each timed.
      const delivered = (text: string) =>
        sample(text, 'openclawworld_patch_duration_seconds_count{phase="delivery"}');
      const third = await scrapeUntil((text) => delivered(text) > 0);
      expect(delivered(third)).toBeGreaterThan(0);
      expect(sample(second, 'openclawworld_process_memory_bytes{type="rss"}')).toBeGreaterThan(10 * 2 ** 20);
    } finally {
      ws.close();
    }
  });

  it("refuses a request that came through a proxy, and a second scrape still works", async () => {
    const proxied = await fetch(`${gateway().baseUrl}/world/metrics`, {
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(proxied.status).toBe(403);
    expect(await proxied.text()).not.toContain("openclawworld_");
    expect(await scrape()).toContain("openclawworld_ticks_total");
  });
});
