import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.ts";

function limiterAt(start = 0) {
  const clock = { now: start };
  return { clock, limiter: new RateLimiter({ now: () => clock.now }) };
}

describe("RateLimiter (token bucket)", () => {
  it("allows the burst, then refuses with retryAfterMs, then refills at perSec", () => {
    const { clock, limiter } = limiterAt();
    for (let i = 0; i < 5; i++) expect(limiter.take("agent:a", "observe").allowed).toBe(true);
    const refused = limiter.take("agent:a", "observe");
    expect(refused).toEqual({ allowed: false, retryAfterMs: 500 });
    clock.now += 499;
    expect(limiter.take("agent:a", "observe").allowed).toBe(false);
    clock.now += 1;
    expect(limiter.take("agent:a", "observe").allowed).toBe(true);
    expect(limiter.take("agent:a", "observe").allowed).toBe(false);
  });

  it("keys and classes are independent; moveTo and interact share the action class", () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 3; i++) expect(limiter.take("agent:a", "chatSend").allowed).toBe(true);
    expect(limiter.take("agent:a", "chatSend").allowed).toBe(false);
    expect(limiter.take("agent:b", "chatSend").allowed).toBe(true);
    expect(limiter.take("agent:a", "observe").allowed).toBe(true);
    for (let i = 0; i < 10; i++) expect(limiter.take("agent:a", "action").allowed).toBe(true);
    expect(limiter.take("agent:a", "action").allowed).toBe(false);
  });

  it("PRD 12 defaults: pollEvents 4/s burst 10, chatSend 1/s burst 3", () => {
    const { limiter } = limiterAt();
    expect(limiter.classFor("pollEvents")).toEqual({ perSec: 4, burst: 10 });
    expect(limiter.classFor("chatSend")).toEqual({ perSec: 1, burst: 3 });
    expect(limiter.classFor("observe")).toEqual({ perSec: 2, burst: 5 });
    expect(limiter.classFor("action")).toEqual({ perSec: 5, burst: 10 });
  });

  it("config overrides classes and can disable limiting", () => {
    const limiter = new RateLimiter({ classes: { observe: { perSec: 1, burst: 1 } }, now: () => 0 });
    expect(limiter.take("k", "observe").allowed).toBe(true);
    expect(limiter.take("k", "observe")).toEqual({ allowed: false, retryAfterMs: 1000 });
    const off = new RateLimiter({ disabled: true });
    for (let i = 0; i < 100; i++) expect(off.take("k", "chatSend").allowed).toBe(true);
    expect(() => new RateLimiter({ classes: { observe: { perSec: 0, burst: 1 } } })).toThrow(/perSec/);
    expect(() => limiter.take("k", "nope")).toThrow(/unknown rate class/);
  });

  it("memory is bounded: idle buckets are swept and the LRU cap holds", () => {
    const { clock, limiter } = limiterAt();
    for (let i = 0; i < 500; i++) limiter.take(`agent:${i}`, "observe");
    expect(limiter.size).toBe(500);
    clock.now += 10_000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
    const capped = new RateLimiter({ maxBuckets: 100, now: () => 0 });
    for (let i = 0; i < 5000; i++) capped.take(`agent:${i}`, "observe");
    expect(capped.size).toBeLessThanOrEqual(100);
  });

  it("at the cap, refilled buckets go before a long class's empty one is forgotten (issue #30)", () => {
    const clock = { now: 0 };
    const limiter = new RateLimiter({
      maxBuckets: 16,
      now: () => clock.now,
      classes: { reflect: { perSec: 1 / 3600, burst: 1 } },
    });
    expect(limiter.take("agent:slow", "reflect").allowed).toBe(true);
    for (let i = 0; i < 15; i++) limiter.take(`agent:${i}`, "observe");
    clock.now += 10_000; // the observe buckets have refilled; the hourly one has not
    for (let i = 15; i < 25; i++) limiter.take(`agent:${i}`, "observe");
    expect(limiter.size).toBeLessThanOrEqual(16);
    expect(limiter.take("agent:slow", "reflect")).toMatchObject({ allowed: false });
  });

  it("counts on the wall clock by default, so a stored bucket means the same in the next process", () => {
    const limiter = new RateLimiter({ classes: { observe: { perSec: 1, burst: 1 } } });
    const before = Date.now();
    expect(limiter.take("k", "observe").allowed).toBe(true);
    const [bucket] = limiter.allBuckets();
    expect(bucket!.bucket!.updatedMs).toBeGreaterThanOrEqual(before);
    expect(bucket!.bucket!.updatedMs).toBeLessThanOrEqual(Date.now());
  });
});

describe("RateLimiter persistence", () => {
  it("records only the buckets that changed, and only once persisting", async () => {
    const { clock, limiter } = limiterAt(1_000);
    limiter.take("agent:a", "chatSend");
    expect(limiter.pendingChanges()).toEqual([]); // not persisting: nothing recorded
    let settled = 0;
    limiter.persist(() => settled++);
    limiter.take("agent:a", "chatSend");
    limiter.take("agent:b", "observe");
    expect(limiter.pendingChanges()).toEqual([
      { className: "chatSend", key: "agent:a", bucket: { tokens: 1, updatedMs: 1_000 } },
      { className: "observe", key: "agent:b", bucket: { tokens: 4, updatedMs: 1_000 } },
    ]);
    await limiter.settled();
    expect(settled).toBe(1);
    limiter.written();
    expect(limiter.pendingChanges()).toEqual([]);
    await limiter.settled();
    expect(settled).toBe(1); // nothing to settle
    // A swept (refilled) bucket is a deletion: the store must not keep it.
    clock.now += 60_000;
    limiter.sweep();
    expect(limiter.pendingChanges().map((c) => [c.key, c.bucket])).toEqual([
      ["agent:a", undefined],
      ["agent:b", undefined],
    ]);
  });

  it("the callers of one event-loop turn share one write; a failed write fails them all, the next turn writes again", async () => {
    const { limiter } = limiterAt(0);
    const log: string[] = [];
    let fail = false;
    limiter.persist(() => {
      log.push(`write ${limiter.pendingChanges().length}`);
      if (fail) throw new Error("disk full");
      limiter.written();
    });
    const waitFor = (key: string) => {
      limiter.take(`agent:${key}`, "observe");
      return limiter.settled().then(() => log.push(`answer ${key}`));
    };
    await Promise.all(["a", "b", "c"].map(waitFor));
    expect(log).toEqual(["write 3", "answer a", "answer b", "answer c"]);
    log.length = 0;
    await limiter.settled(); // nothing pending: no write
    expect(log).toEqual([]);

    fail = true;
    const failed = await Promise.allSettled(["a", "b"].map(waitFor));
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect(log).toEqual(["write 2"]);
    fail = false;
    await waitFor("d"); // the rows of the failed write are still pending: written with this turn's
    expect(log).toEqual(["write 2", "write 3", "answer d"]);
  });

  it("a refusal changes nothing that would have to be saved", () => {
    const { clock, limiter } = limiterAt(0);
    limiter.persist(() => {});
    for (let i = 0; i < 3; i++) limiter.take("agent:a", "chatSend");
    limiter.written();
    const before = limiter.allBuckets();
    clock.now += 300;
    expect(limiter.take("agent:a", "chatSend")).toEqual({ allowed: false, retryAfterMs: 700 });
    expect(limiter.pendingChanges()).toEqual([]);
    expect(limiter.allBuckets()).toEqual(before);
    // ...and the refill still counts from the last grant: 1 s after it a token is back.
    clock.now += 700;
    expect(limiter.take("agent:a", "chatSend").allowed).toBe(true);
  });

  it("a loaded limiter decides exactly as the one it was saved from", () => {
    const { clock, limiter } = limiterAt(5_000);
    limiter.persist(() => {});
    for (let i = 0; i < 4; i++) limiter.take("agent:a", "chatSend");
    const restarted = new RateLimiter({ now: () => clock.now });
    restarted.load(limiter.pendingChanges());
    expect(restarted.allBuckets()).toEqual(limiter.allBuckets());
    for (const advance of [0, 400, 600, 1_000]) {
      clock.now += advance;
      expect(restarted.take("agent:a", "chatSend")).toEqual(limiter.take("agent:a", "chatSend"));
    }
  });

  it("load drops unknown classes, caps tokens at the burst, and does not trust a future clock", () => {
    const { clock, limiter } = limiterAt(10_000);
    limiter.load([
      { className: "gone", key: "k", bucket: { tokens: 1, updatedMs: 0 } },
      { className: "chatSend", key: "rich", bucket: { tokens: 99, updatedMs: 9_000 } },
      { className: "chatSend", key: "future", bucket: { tokens: 0, updatedMs: 3_600_000 } },
    ]);
    expect(limiter.allBuckets()).toEqual([
      { className: "chatSend", key: "rich", bucket: { tokens: 3, updatedMs: 9_000 } },
      { className: "chatSend", key: "future", bucket: { tokens: 0, updatedMs: 10_000 } },
    ]);
    // A bucket stamped an hour ahead refills from now, not from an hour later.
    clock.now += 1_000;
    expect(limiter.take("future", "chatSend").allowed).toBe(true);
  });

  it("a wall clock that steps back neither freezes a bucket nor hands out tokens", () => {
    const { clock, limiter } = limiterAt(100_000);
    limiter.persist(() => {});
    for (let i = 0; i < 3; i++) limiter.take("agent:a", "chatSend");
    clock.now -= 50_000; // NTP step back
    expect(limiter.take("agent:a", "chatSend").allowed).toBe(false);
    clock.now += 1_000;
    expect(limiter.take("agent:a", "chatSend").allowed).toBe(true);
  });
});
