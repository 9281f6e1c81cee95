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
});
