// The SSE stream's slow-reader rule: a reader whose unsent output stays over the bound is cut, its
// slot freed; one that catches up keeps its stream. A response that never drains stands in for a
// client that never reads (the kernel's socket buffers would otherwise hide megabytes).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ok } from "../../aic/errors.ts";
import type { EventSubscription } from "../../aic/event-feed.ts";
import type { AicService } from "../../aic/service.ts";
import { aicLocals, createAnswer } from "./answer.ts";
import { createEventStream } from "./sse.ts";

const quiet = { info() {}, warn() {}, error() {} };

afterEach(() => {
  vi.useRealTimers();
});

/** A response whose client reads only when told to. */
function stalledResponse() {
  const pending: (() => void)[] = [];
  const res = new Writable({
    highWaterMark: 1024,
    write(_chunk, _encoding, callback) {
      pending.push(callback);
    },
  }) as Writable & { writeHead(): void; headersSent: boolean; writableEnded: boolean };
  res.writeHead = () => {};
  aicLocals(res as unknown as ServerResponse).agentId = "agent_slow";
  return {
    res,
    readAll() {
      for (const callback of pending.splice(0)) callback();
    },
  };
}

function subscription(closed: { count: number }): EventSubscription {
  let n = 0;
  const event = () => ({
    eventId: `e_${n}`,
    type: "chat.message",
    roomId: "lobby",
    cursor: `c_${++n}`,
    tsMs: 0,
    payload: { message: "x".repeat(900) },
  });
  return {
    roomId: "lobby",
    cursor: "c_0",
    next: async () => ok({ events: [event(), event()], nextCursor: `c_${n}`, serverTsMs: 0 }) as never,
    close: () => {
      closed.count += 1;
    },
  };
}

function stream(closed: { count: number }) {
  const service = { subscribeEvents: async () => ok(subscription(closed)) } as unknown as AicService;
  return createEventStream({
    service,
    logger: quiet,
    answer: createAnswer(quiet),
    heartbeatMs: 60_000,
    abortOnDisconnect: () => ({ signal: new AbortController().signal, release() {} }),
    opened() {},
    maxBufferedBytes: 4096,
    slowReaderMs: 2000,
  });
}

describe("SSE slow readers", () => {
  it("a reader that stays over the bound is cut after slowReaderMs, and its stream slot is freed", async () => {
    vi.useFakeTimers();
    const closed = { count: 0 };
    const { res } = stalledResponse();
    const done = stream(closed)({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, {});
    await vi.advanceTimersByTimeAsync(1000);
    expect(res.destroyed).toBe(false);
    const buffered = res.writableLength;
    expect(buffered).toBeGreaterThan(4096);
    await vi.advanceTimersByTimeAsync(1500);
    await done;
    expect(res.destroyed).toBe(true);
    expect(closed.count).toBe(1);
    // It stopped reading events for the reader once behind: the buffer did not grow on.
    expect(buffered).toBeLessThan(4096 + 2 * 2 * 1024);
  });

  it("a reader that catches up keeps its stream", async () => {
    vi.useFakeTimers();
    const closed = { count: 0 };
    const { res, readAll } = stalledResponse();
    void stream(closed)({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, {});
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(500);
      readAll();
    }
    expect(res.destroyed).toBe(false);
    expect(closed.count).toBe(0);
    res.destroy();
  });
});
