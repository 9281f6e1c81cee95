// Wake delivery with a hand clock and a scripted transport: retries with back-off and jitter on 5xx
// and timeouts, none on 4xx or 3xx, coalescing, the bounded queue, the circuit, and that `wake`
// never waits on the target.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../aic/testing/local-world.ts";
import {
  type WakeDeliveries as Deliveries,
  DeliveryFailed,
  type DeliveryOptions,
  WakeDeliveries,
} from "./delivery.ts";

const OPTIONS: DeliveryOptions = {
  timeoutMs: 1000,
  maxAttempts: 3,
  retryBaseMs: 100,
  queuePerTarget: 2,
  breakerFailures: 3,
  breakerCooldownMs: 10_000,
};

type Reply = number | "hang" | Error;

/** A transport answering each request with the next scripted reply (200 once the script ends). */
function scripted(replies: Reply[]) {
  const sent: { url: string; body: string; at: number }[] = [];
  const clock = new ManualClock();
  const transport = ({ url, body, signal }: { url: string; body: string; signal: AbortSignal }) => {
    sent.push({ url, body, at: clock.now });
    const reply = replies.shift() ?? 200;
    if (reply === "hang")
      return new Promise<number>((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason)),
      );
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  };
  const deliveries = new WakeDeliveries({
    transport,
    clock: {
      now: () => clock.now,
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
      clearTimeout: (h) => clock.clearTimeout(h),
    },
    options: OPTIONS,
    random: () => 0.5,
  });
  return { sent, clock, deliveries };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function order(agentId: string, url = "https://hooks.example/wake", reason = "spoken_nearby") {
  return {
    agentId,
    reasons: [reason],
    url,
    build: (deliveryId: string, nowMs: number) => ({
      url,
      headers: {},
      body: JSON.stringify({ deliveryId, agentId, nowMs }),
    }),
  };
}

async function outcome(p: Promise<unknown>) {
  return p.then(
    () => "delivered",
    (e: unknown) => (e instanceof DeliveryFailed ? `failed: ${e.record.error}` : String(e)),
  );
}

describe("wake delivery", () => {
  it("retries a 5xx with back-off and jitter, then delivers", async () => {
    const { sent, clock, deliveries } = scripted([503, 502]);
    const p = outcome(deliveries.wake(order("a")));
    await flush();
    expect(sent).toHaveLength(1);
    clock.advance(74); // first retry: 100 ms back-off, half fixed + half jittered (0.5) = 75 ms
    await flush();
    expect(sent).toHaveLength(1);
    clock.advance(1);
    await flush();
    expect(sent).toHaveLength(2);
    clock.advance(150); // second: 200 ms back-off -> 150 ms
    await flush();
    expect(await p).toBe("delivered");
    expect(sent.map((s) => s.at)).toEqual([0, 75, 225]);
    const [record] = deliveries.status().recent;
    expect(record).toMatchObject({ agentId: "a", outcome: "delivered", attempts: 3, lastStatus: 200 });
    // One delivery id across its retries: a receiver that got an earlier attempt knows it again.
    expect(new Set(sent.map((s) => JSON.parse(s.body).deliveryId)).size).toBe(1);
  });

  it("does not retry a 4xx, nor follow a 3xx", async () => {
    const { sent, clock, deliveries } = scripted([401, 302]);
    expect(await outcome(deliveries.wake(order("a")))).toBe("failed: refused with HTTP 401");
    expect(await outcome(deliveries.wake(order("b")))).toBe("failed: refused with HTTP 302");
    clock.advance(60_000);
    await flush();
    expect(sent).toHaveLength(2);
    expect(deliveries.status().targets[0]).toMatchObject({ circuit: "closed", consecutiveFailures: 0 });
  });

  it("times a hanging target out and retries it; gives up after maxAttempts", async () => {
    const { sent, clock, deliveries } = scripted(["hang", "hang", "hang"]);
    const p = outcome(deliveries.wake(order("a")));
    for (let i = 0; i < 10; i++) {
      clock.advance(500);
      await flush();
    }
    expect(await p).toBe("failed: no answer within 1000 ms; circuit opened");
    expect(sent).toHaveLength(3);
  });

  it("coalesces a wake for an agent whose wake still waits, and bounds the queue", async () => {
    const { sent, clock, deliveries } = scripted(["hang"]);
    const first = outcome(deliveries.wake(order("a")));
    const b1 = outcome(deliveries.wake(order("b")));
    const b2 = outcome(deliveries.wake(order("b", undefined, "name_said")));
    const c = outcome(deliveries.wake(order("c")));
    const d = outcome(deliveries.wake(order("d")));
    expect(await d).toBe("failed: queue full");
    await flush();
    clock.advance(1000); // a times out; b is sent next, once, for both of its wakes
    await flush();
    clock.advance(100);
    await flush();
    expect(await b1).toBe("delivered");
    expect(await b2).toBe("delivered");
    expect(await c).toBe("delivered");
    expect(await first).toBe("delivered");
    const b = deliveries.status().recent.find((r) => r.agentId === "b");
    expect(b).toMatchObject({ coalesced: 1, reasons: ["spoken_nearby", "name_said"], attempts: 1 });
    expect(sent.filter((s) => JSON.parse(s.body).agentId === "b")).toHaveLength(1);
    expect(deliveries.status().targets[0]).toMatchObject({ coalesced: 1 });
  });

  it("opens the circuit after repeated failures, refuses while open, and closes after a good probe", async () => {
    const { sent, clock, deliveries } = scripted([500, 500, 500]);
    const p = outcome(deliveries.wake(order("a")));
    for (let i = 0; i < 5; i++) {
      clock.advance(200);
      await flush();
    }
    expect(await p).toBe("failed: HTTP 500; circuit opened");
    expect(deliveries.status().targets[0]).toMatchObject({ circuit: "open", consecutiveFailures: 3 });
    expect(await outcome(deliveries.wake(order("b")))).toBe(
      "failed: circuit open: the target failed repeatedly",
    );
    expect(sent).toHaveLength(3);
    clock.advance(10_000);
    expect(deliveries.status().targets[0]!.circuit).toBe("half_open");
    expect(await outcome(deliveries.wake(order("b")))).toBe("delivered");
    expect(deliveries.status().targets[0]).toMatchObject({
      circuit: "closed",
      consecutiveFailures: 0,
      refusedWhileOpen: 1,
    });
  });

  it("keeps targets apart: one failing target does not hold another's wakes", async () => {
    const { deliveries } = scripted(["hang"]);
    const slow = outcome(deliveries.wake(order("a", "https://slow.example/w")));
    expect(await outcome(deliveries.wake(order("b", "https://fast.example/w")))).toBe("delivered");
    deliveries.stop();
    void slow;
  });

  it("returns from wake at once: the caller never waits on the target", () => {
    const { deliveries } = scripted(["hang"]);
    for (let i = 0; i < 100; i++)
      void deliveries.wake(order(`a${i}`, `https://t${i}.example/w`)).catch(() => {});
    // Synchronously after the calls: every wake is queued or sending, none has an answer yet.
    expect(deliveries.status().targets).toHaveLength(100);
    expect(deliveries.status().recent.every((r) => r.outcome === "sending")).toBe(true);
    deliveries.stop();
  });

  it("records answered and unanswered wakes for status", async () => {
    const { deliveries } = scripted([]);
    const one: Deliveries = deliveries;
    const record = await one.wake(order("a"));
    one.settle(record.deliveryId, "answered");
    expect(one.status().recent[0]).toMatchObject({ outcome: "answered" });
  });

  it("stop cuts a wake in flight, and one stuck checking its address, at once: nothing outlives a stopping world", async () => {
    const { sent, deliveries } = scripted(["hang"]);
    const hanging = outcome(deliveries.wake(order("a")));
    const checking = outcome(
      deliveries.wake({
        ...order("b", "https://other.example/wake"),
        check: () => new Promise<void>(() => {}),
      }),
    );
    await flush();
    expect(sent).toHaveLength(1);
    deliveries.stop();
    // The hand clock never reaches the time limit: only stop can end them.
    for (let i = 0; i < 10 && deliveries.status().targets.some((t) => t.sending); i++) await flush();
    expect(await hanging).toBe("failed: the world is stopping");
    expect(await checking).toBe("failed: the world is stopping");
  });
});
